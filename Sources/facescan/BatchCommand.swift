import ArgumentParser
import FaceScanKit

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Process many captures: directories, list files or capture files.",
        discussion: """
            The inputs are expanded (a directory gives its *.json and *.ndjson files; a list file \
            gives one path per line), sorted and de-duplicated; --shard K/N keeps every N-th of them \
            starting at K (0-based), so N machines running the same command with K = 0…N-1 share \
            the work without overlap. Prints one line per capture in input order (JSON lines with \
            --json). Exit code: 0 when every capture succeeded, otherwise the exit code of the first \
            capture that failed.
            """)

    @Argument(help: "Directories, list files or capture files.")
    var inputs: [String]

    @Option(parsing: .unconditional, help: "Captures processed at the same time.")
    var jobs = 2

    @Option(parsing: .unconditional, help: "Process only shard K of N (K/N, 0 ≤ K < N).")
    var shard: String?

    @OptionGroup var pipeline: PipelineFlags

    @Flag(help: "Print one JSON report per line on standard output.")
    var json = false

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        var list = try Batch.collectInputs(inputs)
        if let shard {
            let s = try Batch.parseShard(shard)
            list = Batch.shard(list, index: s.index, count: s.count)
        }
        let options = pipeline.options()
        let json = self.json
        let firstFailure = FirstFailure()
        try Batch.run(list, options: options, jobs: jobs) { o in
            if o.exitCode != 0 { firstFailure.record(o.exitCode) }
            if json {
                var members: [(String, JSONValue)] = [("input", .string(o.input)), ("exitCode", .int(Int(o.exitCode)))]
                if let e = o.error { members.append(("error", .string(e))) }
                if let r = o.report { members.append(("report", r.json)) }
                print(JSONValue.object(members).serialized())
            } else if let r = o.report, o.exitCode == 0 {
                print("OK   \(o.input): \(r.frames.accepted)/\(r.frames.read) frames, \(r.mesh.outputVertices) vertices, \(Summary.ms(r.timingsMs.total))")
            } else {
                print("FAIL \(o.input): exit \(o.exitCode): \(o.error ?? "")")
            }
        }
        if let code = firstFailure.code { throw ExitCode(code) }
    }
}

/// The first non-zero exit code seen (outcomes arrive in input order, on one thread at a time).
final class FirstFailure: @unchecked Sendable {
    private(set) var code: Int32?
    func record(_ c: Int32) { if code == nil { code = c } }
}
