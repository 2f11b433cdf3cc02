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
    /// Throws ``IOFailure`` or ``InputError``.
    package static func read(path: String) throws -> Mesh {
        let bytes = try FileBytes.readMesh(path)
        let named = MeshFormat(path: path).flatMap { $0.isNative ? $0 : nil }
        let format =
            named
            ?? (looksLikeBinarySTL(bytes) || bytes.starts(with: Array("solid".utf8))
                ? .stl : OFFReader.looksLikeOFF(FileBytes.withoutByteOrderMark(bytes).prefix(256)) ? .off : .obj)
        return try parse(bytes, format: format, name: path)
    }
}
