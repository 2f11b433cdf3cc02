import ArgumentParser
import FaceScanKit

/// What the shells' completion scripts (`--generate-completion-script bash|zsh|fish`) offer for
/// each argument and option value: file names (filtered by extension where the input has a
/// format), directories, and the values a list option takes.
enum Completions {
    /// Extensions of the mesh files facescan reads (OBJ, STL, OFF itself; 3MF through lib3mf;
    /// the rest through assimp), in lower and upper case.
    static let meshExtensions = withUpperCase(FileFormat.readableMeshNames)

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

    /// `--shard`: the form `K/N` (K counts from 0, K < N); no file names.
    static let shard = CompletionKind.custom { _, _, prefix in shard(completing: prefix) }

    /// Completions of a `--shard` word typed up to `prefix`: `K/N` for the K typed (0 when none)
    /// and the next few N above it (`1` → `1/2` … `1/5`; `2/` → `2/3` … `2/10`).
    static func shard(completing prefix: String) -> [String] {
        let parts = prefix.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count <= 2, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber),
            parts[0].count <= 6
        else { return [] }
        let k = Int(parts[0]) ?? 0
        let counts = (k + 1)...(k + (parts.count == 2 ? 8 : 4))
        return counts.map { "\(k)/\($0)" }.filter { $0.hasPrefix(prefix) || prefix.isEmpty }
    }

    /// ArgumentParser's fish script with one repair: it asks fish for the cursor's offset in the
    /// word with `commandline -tC`, which fish 3 (Debian 12's 3.6) refuses while completing
    /// ("Can not set commandline in non-interactive mode"), so custom completions (`--formats`,
    /// `--shard`) offered nothing. The offset is the length of the word up to the cursor.
    static func fishScript() -> String {
        FaceScan.completionScript(for: .fish).replacing(
            "(__facescan_tokens -tC)", with: "(string length -- (commandline -ct))")
    }

    /// The fish script when the arguments ask for it (`--generate-completion-script fish`), else nil.
    static func fishScriptRequested(_ arguments: [String]) -> String? {
        let args = Array(arguments.dropFirst())
        guard args == ["--generate-completion-script", "fish"] || args == ["--generate-completion-script=fish"]
        else { return nil }
        return fishScript()
    }

    private static func withUpperCase(_ extensions: [String]) -> [String] {
        extensions + extensions.map { $0.uppercased() }
    }
}
