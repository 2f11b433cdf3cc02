import ArgumentParser
import FaceScanKit

/// What the shells' completion scripts (`--generate-completion-script bash|zsh|fish`) offer for
/// each argument and option value: file names (filtered by extension where the input has a
/// format), directories, and the values a list option takes.
enum Completions {
    /// Extensions of the mesh files facescan reads (OBJ, STL, OFF itself; 3MF through lib3mf;
    /// the rest through assimp), in lower and upper case.
    static let meshExtensions = withUpperCase([
        "obj", "stl", "off", "ply", "glb", "gltf", "3mf", "dae", "fbx", "x3d", "3ds", "x",
    ])

    /// A capture: JSON or NDJSON.
    static let captureFile = CompletionKind.file(extensions: withUpperCase(["json", "ndjson"]))
    /// A mesh file to read.
    static let meshFile = CompletionKind.file(extensions: meshExtensions)
    /// A new file of any name (an output).
    static let anyFile = CompletionKind.file()
    /// A PNG image to write.
    static let pngFile = CompletionKind.file(extensions: withUpperCase(["png"]))
    /// A directory.
    static let directory = CompletionKind.directory
    /// One mesh format (`--format`).
    static let meshFormat = CompletionKind.list(MeshIO.writableExtensions)
    /// `--formats`: a comma-separated list; the word's last item is completed, the formats it
    /// already names are not offered again.
    static let formatList = CompletionKind.custom { _, _, prefix in formatList(completing: prefix) }

    /// Completions of a `--formats` word typed up to `prefix` (`stl,o` → `stl,obj`).
    static func formatList(completing prefix: String) -> [String] {
        var items = prefix.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let last = items.removeLast().lowercased()
        let head = items.isEmpty ? "" : items.joined(separator: ",") + ","
        return Exporter.supportedFormats.filter { $0.hasPrefix(last) && !items.contains($0) }.map { head + $0 }
    }

    private static func withUpperCase(_ extensions: [String]) -> [String] {
        extensions + extensions.map { $0.uppercased() }
    }
}
