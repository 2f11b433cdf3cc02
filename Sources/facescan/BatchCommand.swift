import ArgumentParser
import CProcess
import FaceScanKit
import FacescanTools

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Process many captures: directories, list files or capture files.",
        discussion: """
            The inputs are expanded (a directory gives its capture files, *.json and *.ndjson — with \
            --recursive also those in its subdirectories; a list file or - gives one path per line), \
            sorted and de-duplicated; --shard K/N keeps every N-th of them starting at K (0-based), so \
            N machines running the same command with K = 0…N-1 share the work without overlap. \
            Outputs go to DIR/NAME.FORMAT, NAME being the capture's file name without extension \
            (with its parent directories' names in front when captures share a file name: \
            ict-neutral-capture); each capture's JSON report goes to DIR/NAME.report.json once its \
            outputs are in place. With --resume, a capture whose report and outputs exist and are not \
            older than the capture is skipped. Prints one line per capture in input order as soon as \
            it is known (JSON lines with --json); on a terminal, a progress line and a summary on \
            standard error. Exit code: 0 when every capture succeeded, otherwise the exit code of the \
            first capture that failed; 2 when no capture was found; 128+N when stopped by signal N \
            (finished lines and outputs stay, unfinished outputs are removed). --report FILE also writes \
            one self-contained HTML page of the batch (docs/CLI.md).
            """)

    @Argument(help: "Directories, list files (- for standard input) or capture files.", completion: Completions.anyFile)
    var inputs: [String]

    @Option(name: [.short, .long], parsing: .unconditional, help: "Captures processed at the same time.")
    var jobs = 2

    @Option(
        parsing: .unconditional, help: "Process only shard K of N (K/N, 0 ≤ K < N). (default: all)",
        completion: Completions.shard)
    var shard: String?

    @Flag(name: [.short, .long], help: "Search the directories' subdirectories too.")
    var recursive = false

    @Flag(
        help: "Skip captures whose report and outputs in the output directory exist and are not older than the capture."
    )
    var resume = false

    @OptionGroup var pipeline: PipelineFlags

    @Flag(help: "Print one JSON report per line on standard output.")
    var json = false

    @OptionGroup var report: HTMLReportFlag

    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if inputs.isEmpty {
            throw ValidationError(
                "no input: name directories, list files, capture files or - (a list on standard input)")
        }
    }

    func run() throws {
        // Capture after capture allocates and frees the same large arrays: keep the freed memory.
        facescan_keep_freed_memory()
        if inputs.contains("-") && Terminal.stdinIsTerminal {
            verbosity.warn(
                "reading capture paths from the terminal, one per line; end with Ctrl-D (or pipe a list: ls caps/*.json | facescan batch -)"
            )
        }
        try report.check(outputDirectory: pipeline.outputDir)
        let found = try Batch.collect(inputs, recursive: recursive)
        for d in found.duplicates.prefix(5) {
            verbosity.warn("skipped '\(d.path)': the same file as '\(d.sameAs)'")
        }
        if found.duplicates.count > 5 { verbosity.warn("skipped \(found.duplicates.count - 5) more duplicate paths") }
        // Files of a searched directory that are not captures (expected.json, reports, a directory
        // named *.json) are listed with -v and counted in the summary. A file named on the
        // command line is processed: one that is not a capture fails, saying so.
        for i in found.ignored { verbosity.note("skipped \(i.path): \(i.reason)") }
        var list = found.captures
        if list.isEmpty {
            var why = "no capture found in \(inputs.joined(separator: " "))"
            if !found.ignored.isEmpty {
                why +=
                    " (\(found.ignored.count) input\(found.ignored.count == 1 ? "" : "s") skipped, not captures: \(found.ignored.prefix(3).map(\.path).joined(separator: ", "))\(found.ignored.count > 3 ? ", …" : ""))"
            }
            if !found.subdirectoriesNotSearched.isEmpty {
                why +=
                    "; \(found.subdirectoriesNotSearched.count) subdirector\(found.subdirectoriesNotSearched.count == 1 ? "y" : "ies") not searched: add --recursive"
            }
            throw UsageError(why)
        }
        if let shard {
            let s = try Batch.parseShard(shard)
            let total = list.count
            list = Batch.shard(list, index: s.index, count: s.count)
            if list.isEmpty {
                verbosity.warn("shard \(shard) has no capture (\(total) in all)")
                return
            }
        }
        let options = pipeline.options()
        let reporter = BatchReporter(
            total: list.count, json: json, verbosity: verbosity, skippedInputs: found.ignored.count)
        Interrupts.onStop { sig in reporter.stop(signal: sig) }
        reporter.start()
        let collector = HTMLReportCollector()
        try Batch.run(list, options: options, jobs: jobs, resume: resume) { o in
            reporter.emit(o)
            if report.path != nil { collector.add(o) }
        }
        if let page = report.path {
            try collector.writeBatchPage(
                to: page, options: options, ignored: found.ignored,
                settings: [
                    .init("inputs", inputs.joined(separator: " ")), .init("jobs", "\(jobs)"),
                    .init("shard", shard ?? "all"), .init("recursive", recursive ? "yes" : "no"),
                    .init("resume", resume ? "yes" : "no"),
                ])
        }
        try reporter.finish()
    }
}
