import ArgumentParser
import FaceScanKit
import FacescanTools
import Synchronization

/// `--report FILE` of `batch` and `regress`: the HTML page (FaceScanKit's ``HTMLReport``). This
/// file only gathers the entries and writes the page; the page itself is the library's.
struct HTMLReportFlag: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            "Also write a self-contained HTML page of the run to FILE (thumbnails, verdicts, gate counts, timings, links).",
            valueName: "FILE"),
        completion: .file(extensions: ["html", "htm"]))
    var path: String?

    /// Refuses a page path that cannot be written before any work is done (its directory may be
    /// `outputDirectory`, which the run creates).
    func check(outputDirectory: String? = nil) throws {
        if let path { try HTMLReport.checkDestination(path, outputDirectory: outputDirectory) }
    }
}

/// Collects batch outcomes (from the batch's worker threads, in input order) for the page.
final class HTMLReportCollector: Sendable {
    private let outcomes = Mutex<[Batch.Outcome]>([])

    func add(_ o: Batch.Outcome) { outcomes.withLock { $0.append(o) } }

    /// Writes the page of a batch to `path`: the captures in input order, then the inputs
    /// skipped as not captures.
    func writeBatchPage(
        to path: String, options: PipelineOptions, ignored: [Batch.Ignored], settings: [HTMLReport.Setting]
    ) throws {
        let pageDirectory = OutputDirectory.of(HTMLReport.absolute(path))
        let outputDirectory = options.outputDirectory
        let captures = outcomes.withLock { $0 }.map { o in
            HTMLReport.capture(
                o, exitCode: o.exitStatus, message: o.failure.map(GateHint.message) ?? "",
                outputDirectory: outputDirectory, pageDirectory: pageDirectory)
        }
        let page = HTMLReport.Page(
            command: "batch", settings: HTMLReport.settings(options, extra: settings),
            captures: captures + ignored.map(HTMLReport.capture(ignored:)))
        try HTMLReport.write(page, to: path)
    }
}

enum OutputDirectory {
    /// The directory part of an absolute path.
    static func of(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
