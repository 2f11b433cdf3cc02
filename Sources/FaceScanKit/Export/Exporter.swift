/// Output formats of `process`: `stl`, `obj`, `png` (the thumbnail) and the single-file formats
/// written through assimp (``MeshIO/writableExtensions``).
public enum Exporter {
    /// Every format name `process` accepts.
    public static var supportedFormats: [String] { ["stl", "obj", "png"] + MeshIO.writableExtensions.filter { $0 != "stl" && $0 != "obj" } }

    /// Normalises a user-given list (lower case, trimmed, duplicates dropped), rejecting unknown names.
    public static func parseList(_ names: [String]) throws(UsageError) -> [String] {
        var out: [String] = []
        for raw in names {
            let n = raw.lowercased().trimmingSpaces
            guard supportedFormats.contains(n) else {
                throw UsageError("unknown output format '\(raw)' (supported: \(supportedFormats.joined(separator: ", ")))")
            }
            if !out.contains(n) { out.append(n) }
        }
        guard !out.isEmpty else { throw UsageError("no output format requested") }
        return out
    }

    /// Encodes `mesh` in `format`. For `png` the mesh is rendered with `render` (front view).
    /// Throws ``UsageError`` or ``IOFailure``.
    public static func bytes(_ mesh: Mesh, format: String, render: RenderOptions = RenderOptions()) throws -> [UInt8] {
        switch format {
        case "stl": return mesh.stlBytes()
        case "obj": return mesh.objBytes()
        case "png": return try PNGEncoder.encode(Rasterizer.render(mesh, options: render), name: "thumbnail")
        default: return try MeshIO.bytes(mesh, format: format)
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
