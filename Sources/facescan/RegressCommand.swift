import ArgumentParser
import FaceScanKit
import FacescanTools

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
            expected.stl on purpose; never use it in CI. --junit FILE also writes JUnit XML (one \
            test case per sample and metric) for CI dashboards; --json prints one JSON document \
            instead of the lines; --artifacts DIR writes, for each failing sample, DIR/SAMPLE/report.txt \
            and DIR/SAMPLE/heatmap.png (the new mesh coloured by its distance to expected.stl, µm); --report FILE writes one \
            self-contained HTML page: per sample expected and current pictures and the heatmap, failures first.
            """)

    @Argument(help: "Sample directories (default: every sample under samples/).", completion: Completions.directory)
    var dirs: [String] = []

    @Flag(help: "Rewrite the expected files from this run.")
    var update = false

    @Option(
        name: .customLong("tolerance-um"), parsing: .unconditional,
        help: "Tolerance for distances and the bounding box, in micrometres.")
    var toleranceUm = 1.0

    func validate() throws {
        guard toleranceUm >= 0 && toleranceUm.isFinite else {
            throw ValidationError("--tolerance-um must be a number ≥ 0")
        }
    }

    @Flag(name: .customLong("allow-changed"), help: "Do not fail when only output bytes changed.")
    var allowChanged = false

    @Option(
        help: ArgumentHelp("Also write the results as JUnit XML to FILE.", valueName: "FILE"),
        completion: Completions.anyFile)
    var junit: String?

    @Flag(help: "Print one JSON document instead of the report lines.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "For each failing sample, write DIR/SAMPLE/report.txt and DIR/SAMPLE/heatmap.png.", valueName: "DIR"),
        completion: Completions.directory)
    var artifacts: String?

    @OptionGroup var report: HTMLReportFlag

    @OptionGroup var verbosity: Verbosity

    func run() throws {
        try report.check()
        let samples = dirs.isEmpty ? Regression.sampleDirectories(in: "samples") : dirs
        guard !samples.isEmpty else { throw UsageError("no sample directories (looked in samples/)") }
        var template = Array("/tmp/facescan-regress.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw IOFailure(path: "/tmp", "cannot create a work directory")
        }
        let work = String(cString: made)
        defer { _ = system("rm -rf '\(work)'") }
        var all: [Regression.Line] = []
        var attachments: [String: [String]] = [:]
        var pageSamples: [HTMLReport.Sample] = []
        for dir in samples {
            let name = dir.split(separator: "/").last.map(String.init) ?? "sample"
            let out = work + "/" + name
            mkdir(out, 0o755)
            let metrics = try Regression.measure(sampleDir: dir, workDir: out)
            let lines = try Regression.compare(metrics, sampleDir: dir, toleranceUm: toleranceUm, update: update)
            for line in lines where !json {
                // --quiet: the lines that need attention only.
                if !verbosity.quiet || line.status != .pass { print(line.text) }
            }
            all += lines
            let failed = lines.contains(where: { Regression.fails($0, allowChanged: allowChanged) })
            // Measured once, for the page and the artifacts alike.
            let drift =
                report.path != nil || (artifacts != nil && failed)
                ? try Regression.drift(metrics, sampleDir: dir, toleranceUm: toleranceUm) : nil
            if report.path != nil {
                pageSamples.append(
                    try HTMLReport.sample(
                        metrics, lines: lines, sampleDir: dir, drift: drift, allowChanged: allowChanged))
            }
            if let artifacts, failed {
                attachments[name] = try Regression.writeArtifacts(
                    metrics, lines: lines, sampleDir: dir, drift: drift, into: artifacts
                )
                .filter { $0.hasSuffix(".png") }
            }
        }
        if let junit {
            try OutputSet.write(
                Array(Regression.junitXML(all, allowChanged: allowChanged, attachments: attachments).utf8), to: junit)
        }
        if let page = report.path {
            let settings: [HTMLReport.Setting] = [
                .init("samples", samples.joined(separator: " ")), .init("tolerance", "\(toleranceUm) µm"),
                .init("allow changed", allowChanged ? "yes" : "no"), .init("update", update ? "yes" : "no"),
            ]
            try HTMLReport.write(
                HTMLReport.Page(command: "regress", settings: settings, samples: pageSamples), to: page)
        }
        if json { print(Regression.json(all, allowChanged: allowChanged, attachments: attachments).serialized()) }
        if all.contains(where: { Regression.fails($0, allowChanged: allowChanged) }) { throw ExitCode(1) }
    }
}
