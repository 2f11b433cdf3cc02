/// facescan's version, printed by `facescan --version`.
package let version = "0.1.0"
