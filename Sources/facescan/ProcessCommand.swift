import ArgumentParser
import FaceScanKit
import FacescanTools

#if canImport(Glibc)
import Glibc
#endif

extension Quality: ExpressibleByArgument {}
extension LengthUnit: ExpressibleByArgument {}
extension SmoothingWeights: ExpressibleByArgument {}

struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process a capture into a mesh: STL, OBJ and a PNG thumbnail.",
        discussion: """
            Reads a capture in format v1 (JSON document or NDJSON stream; '-' reads standard input), \
            keeps the frames that pass the quality gate, averages and smooths them, brings the mesh to \
            the target vertex count and writes DIR/NAME.FORMAT for every format. Flags override the \
            capture's settings. With --json, one JSON report is printed on standard output (also when \
            no frame passed the gate, exit 3).
            """)

    @Argument(help: "Capture file (JSON or NDJSON), or - for standard input.", completion: Completions.captureFile)
    var input: String

    @Option(
        help: "Base name of the outputs. (default: the input's file name without extension; face for standard input)")
    var name: String?

    func validate() throws {
        if let n = name, n.isEmpty || n.hasPrefix(".") || n.contains("/") || n.utf8.contains(0) {
            throw ValidationError("--name must be a plain file name: not empty, no '/', not starting with '.'")
        }
    }

    @OptionGroup var pipeline: PipelineFlags

    @Flag(help: "Print one JSON report on standard output.")
    var json = false

    @OptionGroup var verbosity: Verbosity

    func run() throws {
        try Terminal.refuseTerminalInput(
            input, what: "a capture",
            example: "facescan process - < capture.json, or cat capture.ndjson | facescan process -")
        var options = pipeline.options()
        options.name = name

        let showProgress = !verbosity.quiet && Console.stderrIsTerminal
        let report: Report
        do throws(FaceScanError) {
            report = try ProcessOutputs.process(
                input: input, options: options,
                progress: showProgress
                    ? { p in
                        if p.framesRead % 10 == 0 {
                            Console.raw("\rreading: \(p.framesRead) frames, \(p.accepted) accepted")
                        }
                    } : nil)
        } catch .noAcceptedFrames(let failure) {
            if showProgress { Console.raw("\r\u{1B}[K") }
            if json { print(failure.report.json.serialized()) }
            throw FaceScanError.noAcceptedFrames(failure)
        } catch {
            if showProgress { Console.raw("\r\u{1B}[K") }
            throw error
        }
        if showProgress { Console.raw("\r\u{1B}[K") }
        if json { print(report.json.serialized()) }
        if !verbosity.quiet {
            for warning in report.warnings { verbosity.warn("\(report.input): \(warning)") }
            Console.error(Summary.text(report))
            if verbosity.verbose, let line = Summary.noise(report) { verbosity.note(line) }
        }
    }
}

/// Threads of the ingest stage the environment asks for: `FACESCAN_INGEST_THREADS` (1 or 2;
/// larger means 2), nil when unset or not a positive number (the library's default: 2 on a
/// machine with two or more cores). The outputs are the same for every thread count.
func ingestThreadsFromEnvironment() -> Int? {
    guard let v = getenv("FACESCAN_INGEST_THREADS"), let n = Int(String(cString: v)), n >= 1 else { return nil }
    return min(n, 2)
}

/// The human summary printed on standard error.
enum Summary {
    static func text(_ r: Report) -> String {
        let rej = r.frames.rejected
        var lines = [
            "\(r.input): \(r.frames.read) frames read, \(r.frames.accepted) accepted; rejected: distance \(rej.distance), tracking \(rej.tracking), lighting \(rej.lighting), expression \(rej.expression)",
            "mesh: \(r.mesh.inputVertices) vertices, \(r.mesh.inputTriangles) triangles -> \(r.mesh.outputVertices) vertices, \(r.mesh.outputTriangles) triangles",
        ]
        for o in r.outputs { lines.append("wrote \(o.path) (\(o.bytes) bytes)") }
        let t = r.timingsMs
        lines.append(
            "time: ingest \(ms(t.ingest)), smooth \(ms(t.smooth)), \(t.refine > 0 ? "refine" : "decimate") \(ms(t.decimate)), render \(ms(t.render)), export \(ms(t.export)), total \(ms(t.total))"
        )
        return lines.joined(separator: "\n")
    }

    /// The noise measured in the average and the smoothing chosen for it, one line (verbose output).
    static func noise(_ r: Report) -> String? {
        guard let s = r.smoothing else { return nil }
        guard let n = r.noise else { return s.reason }
        let median = Int(n.medianStandardErrorUm.rounded()), p95 = Int(n.p95StandardErrorUm.rounded())
        return "noise: standard error \(median) µm median, \(p95) µm 95th percentile; \(s.reason)"
    }

    static func ms(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return "\(r) ms"
    }
}
