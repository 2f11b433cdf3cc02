/// facescan's version, printed by `facescan --version`.
public let version = "0.1.0"
