import ArgumentParser
import FaceScanKit

#if canImport(Glibc)
import Glibc
#endif

struct RegressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regress",
        abstract: "Compare fresh runs on sample captures with their committed expected.json.",
        discussion: """
            Each DIR holds capture.json or capture.ndjson (and optionally truth.obj, ground truth in \
            metres). Prints one line per sample and metric: PASS, FAIL, or CHANGED (output bytes \
            differ while every metric is within tolerance). Exits 1 on any FAIL or CHANGED \
            (CHANGED is allowed with --allow-changed). --update rewrites expected.json and \
            expected.stl on purpose; never use it in CI.
            """)

    @Argument(help: "Sample directories (default: every sample under samples/).")
    var dirs: [String] = []

    @Flag(help: "Rewrite the expected files from this run.")
    var update = false

    @Option(name: .customLong("tolerance-um"), parsing: .unconditional, help: "Tolerance for distances and the bounding box, in micrometres.")
    var toleranceUm = 1.0

    func validate() throws {
        guard toleranceUm >= 0 && toleranceUm.isFinite else { throw ValidationError("--tolerance-um must be a number ≥ 0") }
    }

    @Flag(name: .customLong("allow-changed"), help: "Do not fail when only output bytes changed.")
    var allowChanged = false

    @OptionGroup var verbosity: Verbosity

    func run() throws {
        let samples = dirs.isEmpty ? Regression.sampleDirectories(in: "samples") : dirs
        guard !samples.isEmpty else { throw UsageError("no sample directories (looked in samples/)") }
        var template = Array("/tmp/facescan-regress.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw IOFailure(path: "/tmp", "cannot create a work directory")
        }
        let work = String(cString: made)
        defer { _ = system("rm -rf '\(work)'") }
        var failed = false
        for dir in samples {
            let out = work + "/" + (dir.split(separator: "/").last.map(String.init) ?? "sample")
            mkdir(out, 0o755)
            let metrics = try Regression.measure(sampleDir: dir, workDir: out)
            for line in try Regression.compare(metrics, sampleDir: dir, toleranceUm: toleranceUm, update: update) {
                // --quiet: the lines that need attention only.
                if !verbosity.quiet || line.status != .pass { print(line.text) }
                if line.status == .fail || (line.status == .changed && !allowChanged) { failed = true }
            }
        }
        if failed { throw ExitCode(1) }
    }
}
