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
        if path != "-" && OutputTransaction.isDirectoryFollowingLinks(path) { throw IOFailure(path: path, "is a directory") }
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
            guard assimpExportIDs.values.contains(id) else {
                throw UsageError("unknown mesh format '\(format)'; use one of \(writableExtensions.joined(separator: ", "))")
            }
            guard !brokenAssimpExports.contains(id) else {
                throw UsageError("facescan does not write '\(format)' (assimp's exporter for it is unusable); use one of \(writableExtensions.joined(separator: ", "))")
            }
            var exported = mesh
            if id == "3ds" {
                // 3DS is z-up (readers, assimp's included, turn it to y-up): store y-up as z-up.
                exported.positions = mesh.positions.map { SIMD3($0.x, -$0.z, $0.y) }
            }
            var files = try AssimpIO.export(exported, formatID: id)
            if !files.isEmpty { fixTimestamps(&files[0].bytes, formatID: id) }
            return files
        }
    }

    /// The fixed time written in place of the export time, so that the same mesh gives the same
    /// bytes: the Unix epoch.
    static let fixedTimestamp = (date: "1970-01-01T00:00:00", year: "1970", month: "1", day: "1")

    /// Replaces the wall-clock time assimp writes into a file header by ``fixedTimestamp``:
    /// COLLADA's `<created>` and `<modified>` (in `<asset>`), and ASCII FBX's
    /// `CreationTimeStamp` block (`Year` … `Millisecond`) and `CreationTime` string. Only the
    /// header is searched; other formats, and files without these fields, are left as they are.
    static func fixTimestamps(_ bytes: inout [UInt8], formatID: String) {
        let header = min(bytes.count, 8192)
        var edits: [(range: Range<Int>, value: String)] = []
        switch formatID {
        case "collada":
            guard let assetEnd = find("</asset>", in: bytes, from: 0, to: header) else { return }
            for tag in ["created", "modified"] {
                guard let open = find("<\(tag)>", in: bytes, from: 0, to: assetEnd.lowerBound),
                      let close = find("</\(tag)>", in: bytes, from: open.upperBound, to: assetEnd.lowerBound)
                else { continue }
                edits.append((open.upperBound..<close.lowerBound, fixedTimestamp.date))
            }
        case "fbxa":
            if let block = find("CreationTimeStamp:", in: bytes, from: 0, to: header),
               let blockEnd = find("}", in: bytes, from: block.upperBound, to: header) {
                let t = fixedTimestamp
                for (field, value) in [("Year", t.year), ("Month", t.month), ("Day", t.day), ("Hour", "0"),
                                       ("Minute", "0"), ("Second", "0"), ("Millisecond", "0")] {
                    guard let key = find("\t\(field): ", in: bytes, from: block.upperBound, to: blockEnd.lowerBound) else { continue }
                    var end = key.upperBound
                    while end < blockEnd.lowerBound, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
                    edits.append((key.upperBound..<end, value))
                }
            }
            if let key = find("CreationTime: \"", in: bytes, from: 0, to: header),
               let close = find("\"", in: bytes, from: key.upperBound, to: header) {
                edits.append((key.upperBound..<close.lowerBound, "1970-01-01 00:00:00:000"))
            }
        default:
            return
        }
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.value.utf8))
        }
    }

    /// The first range of `text`'s UTF-8 bytes in `bytes[from..<to]`.
    static func find(_ text: String, in bytes: ArraySlice<UInt8>, from: Int, to: Int) -> Range<Int>? {
        bytes[from..<to].firstRange(of: Array(text.utf8))
    }

    static func find(_ text: String, in bytes: [UInt8], from: Int, to: Int) -> Range<Int>? {
        find(text, in: bytes[...], from: from, to: to)
    }

    static func fileExtension(_ path: String) -> String? {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        return base[base.index(after: dot)...].lowercased()
    }
}
