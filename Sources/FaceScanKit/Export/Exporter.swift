/// Output formats of `process` and the stage commands.
public enum ExportFormat: String, Sendable, CaseIterable {
    case stl, obj, png

    /// Parses a user-given list, rejecting unknown and duplicate names.
    public static func parseList(_ names: [String]) throws(UsageError) -> [ExportFormat] {
        var out: [ExportFormat] = []
        for raw in names {
            let n = raw.lowercased().trimmingSpaces
            guard let f = ExportFormat(rawValue: n) else {
                throw UsageError("unknown output format '\(raw)' (supported: \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if !out.contains(f) { out.append(f) }
        }
        guard !out.isEmpty else { throw UsageError("no output format requested") }
        return out
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

/// Encodes a mesh in one format.
public enum Exporter {
    public static func bytes(_ mesh: Mesh, format: ExportFormat, thumbnailSize: Int = 512) throws -> [UInt8] {
        switch format {
        case .stl: return mesh.stlBytes()
        case .obj: return mesh.objBytes()
        case .png: throw UsageError("png output is not available in this build")
        }
    }
}
