import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Mesh {
    /// Parses a mesh from bytes in a format facescan reads natively. `name` is used in messages.
    package static func parse(_ bytes: [UInt8], format: MeshFormat, name: String) throws(InputError) -> Mesh {
        // A text file may start with a UTF-8 byte-order mark (a binary STL's header is free-form).
        let bom = bytes.starts(with: FileBytes.byteOrderMark) && !(format == .stl && looksLikeBinarySTL(bytes))
        let text = bom ? Array(FileBytes.withoutByteOrderMark(bytes)) : bytes  // copies only with a mark
        switch format {
        case .obj: return try parseOBJ(text, name: name)
        case .stl: return try parseSTL(text, name: name)
        case .off: return try OFFReader.parse(text, name: name)
        default:
            throw InputError(
                file: name,
                "\(format.fileExtension) is not one of the formats FaceScanKit parses itself (stl, obj, off)")
        }
    }

    /// Reads an OBJ, STL or OFF file (by extension; by content for `-`).
    /// Throws ``FaceScanError/io(_:)`` or ``FaceScanError/badInput(_:)``.
    package static func read(path: String) throws(FaceScanError) -> Mesh {
        let bytes = try FileBytes.readMesh(path)
        let named = MeshFormat(path: path).flatMap { $0.isNative ? $0 : nil }
        let format =
            named
            ?? (looksLikeBinarySTL(bytes) || bytes.starts(with: Array("solid".utf8))
                ? .stl : OFFReader.looksLikeOFF(FileBytes.withoutByteOrderMark(bytes).prefix(256)) ? .off : .obj)
        return try lift { () throws(InputError) in try parse(bytes, format: format, name: path) }
    }
}

extension FileBytes {
    /// The largest mesh file facescan reads (the README's limits): 256 MiB, which keeps the
    /// file, the mesh and the work on it under 1 GB.
    package static let maxMeshFileBytes = 256 << 20

    /// Reads a mesh file (or standard input for `-`) whole; refuses, naming the limit, a regular
    /// file larger than ``maxMeshFileBytes`` before reading it and a stream as soon as it passes it.
    package static func readMesh(_ path: String) throws(FaceScanError) -> [UInt8] {
        try lift { () throws(InputError) in try checkMeshSize(path) }
        let bytes = try lift { () throws(IOFailure) in try read(path, upTo: maxMeshFileBytes + 1) }
        guard bytes.count <= maxMeshFileBytes else { throw .badInput(tooLarge(path)) }
        return bytes
    }

    /// Refuses a regular file larger than ``maxMeshFileBytes`` from its size alone.
    package static func checkMeshSize(_ path: String) throws(InputError) {
        var st = stat()
        if path != "-", stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) > maxMeshFileBytes {
            throw tooLarge(path)
        }
    }

    package static func tooLarge(_ path: String) -> InputError {
        InputError(
            file: path == "-" ? "<stdin>" : path,
            "larger than \(maxMeshFileBytes >> 20) MiB, facescan's limit for a mesh file")
    }
}
