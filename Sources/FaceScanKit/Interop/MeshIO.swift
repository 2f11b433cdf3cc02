/// The one entry point for mesh files: OBJ and STL go through facescan's own readers and
/// writers, everything else through ``AssimpIO``.
public enum MeshIO {
    /// File extensions written through assimp, with the export format id used for each. Left out
    /// on purpose (assimp 5.2): `3mf` (the exporter writes an archive without the mesh), binary
    /// FBX (assimp cannot read its own output; `fbx` writes ASCII FBX instead), text glTF (its
    /// buffer file is named `$blobfile.bin` when exporting to memory; use `glb`) and STEP
    /// (assimp cannot read it back).
    static let assimpExportIDs: [String: String] = [
        "ply": "plyb", "glb": "glb2", "dae": "collada", "fbx": "fbxa", "x3d": "x3d", "x": "x", "3ds": "3ds",
    ]

    /// assimp export ids whose output assimp itself cannot read back (see ``assimpExportIDs``).
    static let brokenAssimpExports: Set<String> = ["3mf", "fbx", "gltf", "gltf2", "stp"]

    /// File extensions ``write(_:to:format:)`` understands.
    public static var writableExtensions: [String] { ["obj", "stl"] + assimpExportIDs.keys.sorted() }

    /// Reads a mesh: OBJ and STL natively (also `-` for standard input), any other format
    /// through assimp. A file without a triangle is an error. Throws ``IOFailure`` or
    /// ``InputError``.
    public static func read(path: String) throws -> Mesh {
        guard path == "-" || MeshFormat(path: path) != nil else { return try AssimpIO.read(path: path) }
        let mesh = try Mesh.read(path: path)
        guard mesh.triangleCount > 0 else { throw InputError(file: path, "the file holds no triangles") }
        return mesh
    }

    /// The bytes of `mesh` in `format`: a file extension (`obj`, `stl`, `ply`, `glb`, `3mf`, …) or
    /// an assimp export id (`plyb`, `glb2`, …). Formats that need more than one file are refused.
    /// Throws ``UsageError`` or ``IOFailure``.
    public static func bytes(_ mesh: Mesh, format: String) throws -> [UInt8] {
        let files = try encode(mesh, format: format)
        guard files.count == 1 else {
            throw UsageError("format '\(format)' writes \(files.count) files; facescan writes single-file formats only")
        }
        return files[0].bytes
    }

    /// Writes `mesh` to `path` atomically in `format` (default: from the path's extension); `-`
    /// writes to standard output (OBJ unless `format` says otherwise).
    public static func write(_ mesh: Mesh, to path: String, format: String? = nil) throws {
        guard let format = format ?? (path == "-" ? "obj" : fileExtension(path)) else {
            throw UsageError("\(path): cannot tell the mesh format from the name; use one of \(writableExtensions.joined(separator: ", "))")
        }
        try OutputTransaction.write(try bytes(mesh, format: format), to: path)
    }

    static func encode(_ mesh: Mesh, format: String) throws -> [AssimpIO.ExportedFile] {
        let f = format.lowercased()
        switch f {
        case "obj": return [AssimpIO.ExportedFile(name: "", bytes: mesh.objBytes())]
        case "stl": return [AssimpIO.ExportedFile(name: "", bytes: mesh.stlBytes())]
        default:
            let id = assimpExportIDs[f] ?? f
            guard !brokenAssimpExports.contains(id) else {
                throw UsageError("facescan does not write '\(format)' (assimp's exporter for it is unusable); use one of \(writableExtensions.joined(separator: ", "))")
            }
            guard id == "3ds" else { return try AssimpIO.export(mesh, formatID: id) }
            // 3DS is z-up (readers, assimp's included, turn it to y-up): store y-up as z-up.
            var zUp = mesh
            zUp.positions = mesh.positions.map { SIMD3($0.x, -$0.z, $0.y) }
            return try AssimpIO.export(zUp, formatID: id)
        }
    }

    static func fileExtension(_ path: String) -> String? {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        return base[base.index(after: dot)...].lowercased()
    }
}
