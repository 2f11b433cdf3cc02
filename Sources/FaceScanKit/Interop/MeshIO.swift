/// The one entry point for mesh files: OBJ and STL go through facescan's own readers and
/// writers, everything else through ``AssimpIO``.
public enum MeshIO {
    /// Native formats by extension; other extensions map to assimp export format ids.
    static let assimpExportIDs: [String: String] = [
        "ply": "plyb", "glb": "glb2", "gltf": "gltf2", "3mf": "3mf", "dae": "collada", "fbx": "fbx",
        "x3d": "x3d", "x": "x", "stp": "stp", "step": "stp", "3ds": "3ds",
    ]

    /// File extensions ``write(_:to:format:)`` understands.
    public static var writableExtensions: [String] { ["obj", "stl"] + assimpExportIDs.keys.sorted() }

    /// Reads a mesh: OBJ and STL natively (also `-` for standard input), any other format
    /// through assimp. Throws ``IOFailure`` or ``InputError``.
    public static func read(path: String) throws -> Mesh {
        if path == "-" || MeshFormat(path: path) != nil { return try Mesh.read(path: path) }
        return try AssimpIO.read(path: path)
    }

    /// The bytes of `mesh` in `format`: a file extension (`obj`, `stl`, `ply`, `glb`, `3mf`, …) or
    /// an assimp export id (`plyb`, `glb2`, …). Formats that need more than one file (text glTF)
    /// are refused here; use ``write(_:to:format:)``. Throws ``UsageError`` or ``IOFailure``.
    public static func bytes(_ mesh: Mesh, format: String) throws -> [UInt8] {
        let files = try encode(mesh, format: format)
        guard files.count == 1 else {
            throw UsageError("format '\(format)' writes \(files.count) files; write it to a path instead")
        }
        return files[0].bytes
    }

    /// Writes `mesh` to `path` atomically in `format` (default: from the path's extension).
    /// Secondary files (glTF's buffer) are written beside it, named as the format references them.
    public static func write(_ mesh: Mesh, to path: String, format: String? = nil) throws {
        guard let format = format ?? fileExtension(path) else {
            throw UsageError("\(path): cannot tell the mesh format from the name; use one of \(writableExtensions.joined(separator: ", "))")
        }
        let files = try encode(mesh, format: format)
        let t = OutputTransaction()
        try t.stage(files[0].bytes, to: path)
        let dir = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        for f in files.dropFirst() {
            guard !f.name.isEmpty, !f.name.contains("/") else {
                throw IOFailure(path: path, "assimp produced an extra file with an unusable name '\(f.name)'")
            }
            try t.stage(f.bytes, to: dir + f.name)
        }
        try t.commit()
    }

    static func encode(_ mesh: Mesh, format: String) throws -> [AssimpIO.ExportedFile] {
        let f = format.lowercased()
        switch f {
        case "obj": return [AssimpIO.ExportedFile(name: "", bytes: mesh.objBytes())]
        case "stl": return [AssimpIO.ExportedFile(name: "", bytes: mesh.stlBytes())]
        default:
            return try AssimpIO.export(mesh, formatID: assimpExportIDs[f] ?? f)
        }
    }

    static func fileExtension(_ path: String) -> String? {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        return base[base.index(after: dot)...].lowercased()
    }
}
