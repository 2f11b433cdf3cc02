import Foundation
import Testing

/// `facescan batch --shard` on a real Slurm cluster (one node: munged, slurmctld and slurmd started
/// by the test from Tests/slurm/slurm.conf.in, everything in a temporary directory) and the
/// Kubernetes Indexed Job's container command, both exactly as in deploy/ and the README.
@Suite(.serialized) struct SlurmTests {
    static let shards = 4

    /// `count` small captures under `dir/captures/` (different frames, so different outputs);
    /// all but those in `slow` ask for their own 144 vertices (no refinement to the default count);
    /// those in `slow` ask for 150 000 vertices and a solid, about 2 s in the release build (a
    /// refinement to the default count alone ends in tens of milliseconds, too soon to catch).
    func writeCaptures(in dir: String, count: Int, slow: Set<Int> = []) throws {
        let captures = dir + "/captures"
        try FileManager.default.createDirectory(atPath: captures, withIntermediateDirectories: true)
        for i in 0..<count {
            let extra = goodMeta + ",\"distance\":\(0.32 + 0.01 * Double(i))"
            var text = smallCapture(frames: [goodMeta, extra])
            let settings =
                slow.contains(i) ? "\"targetVertexCount\":150000,\"solid\":true" : "\"targetVertexCount\":144"
            text = text.replacingOccurrences(of: "\"version\":1,", with: "\"version\":1,\"settings\":{\(settings)},")
            try text.write(toFile: "\(captures)/cap\(i).json", atomically: false, encoding: .utf8)
        }
    }

    /// `inputs` of every JSON line in the files `PREFIX*.jsonl` of `dir`, with the exit codes and
    /// whether `--resume` skipped them.
    func reportedInputs(_ dir: String, prefix: String = "reports-") throws -> [(
        input: String, exitCode: Int, skipped: Bool
    )] {
        var out: [(String, Int, Bool)] = []
        for f in try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        where f.hasPrefix(prefix) && f.hasSuffix(".jsonl") {
            for line in try String(contentsOfFile: dir + "/" + f, encoding: .utf8).split(separator: "\n") {
                let j = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(f): \(line)")
                out.append(
                    (
                        try #require(j["input"] as? String), try #require(j["exitCode"] as? Int),
                        j["skipped"] as? Bool == true
                    ))
            }
        }
        return out
    }

    /// `out` and `ref` hold the same files, each with the same bytes (the per-capture
    /// `.report.json`, which holds timings, only has to exist).
    func expectSameOutputs(_ out: String, _ ref: String) throws {
        let a = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        let b = try FileManager.default.contentsOfDirectory(atPath: ref).sorted()
        #expect(a == b)
        #expect(b.filter { $0.hasSuffix(".stl") }.count >= 7)
        for f in b where !f.hasSuffix(".report.json") {
            #expect(
                FileManager.default.contentsEqual(atPath: out + "/" + f, andPath: ref + "/" + f),
                "\(f) differs from the one-machine run")
        }
    }

    /// The one-machine run: `facescan batch captures/ --output-dir ref`.
    func oneMachineRun(in dir: String) throws {
        let r = try run(facescanBinary, ["batch", "captures/", "--output-dir", "ref", "--json"], cwd: dir)
        #expect(r.status == 0, "\(r.output)")
    }

    /// A line of `file` (under the package root) that starts with `prefix`, trimmed.
    func line(in file: String, startingWith prefix: String) throws -> String {
        let text = try String(contentsOfFile: packageRoot + "/" + file, encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return try #require(lines.first { $0.hasPrefix(prefix) }, "\(file) has no line starting with '\(prefix)'")
    }

    @Test func kubernetesIndexedJobCommandCoversEveryCaptureOnce() throws {
        let command = try line(in: "deploy/kubernetes/facescan-job.yaml", startingWith: "- facescan batch").dropFirst(2)
        // The command-line reference (docs/CLI.md) shows the same command line.
        #expect(try String(contentsOfFile: packageRoot + "/docs/CLI.md", encoding: .utf8).contains(String(command)))
        let dir = tempDir()
        try writeCaptures(in: dir, count: 7)
        try oneMachineRun(in: dir)
        // One run per completion index, as the Job's pods do (in the container's working directory).
        for k in 0..<Self.shards {
            var env = ProcessInfo.processInfo.environment
            env["JOB_COMPLETION_INDEX"] = String(k)
            env["PATH"] =
                URL(fileURLWithPath: facescanBinary).deletingLastPathComponent().path + ":"
                + (env["PATH"] ?? "/usr/bin:/bin")
            let r = try run("/bin/sh", ["-c", String(command)], cwd: dir, environment: env)
            #expect(r.status == 0, "index \(k): \(r.output)")
        }
        let reported = try reportedInputs(dir)
        #expect(reported.map(\.input).sorted() == (0..<7).map { "captures/cap\($0).json" })
        #expect(reported.allSatisfy { $0.exitCode == 0 })
        try expectSameOutputs(dir + "/out", dir + "/ref")
    }

    @Test(
        .enabled(
            if: Tool.inCI || SlurmCluster.cannotStart == nil,
            Comment(rawValue: "a one-node Slurm cluster cannot start: " + (SlurmCluster.cannotStart ?? "-"))))
    func slurmArrayJobCoversEveryCaptureOnce() throws {
        let cluster = try SlurmCluster.start()
        defer { cluster.stop() }
        let script = packageRoot + "/deploy/slurm/facescan.sbatch"
        let command = try line(in: "deploy/slurm/facescan.sbatch", startingWith: "facescan batch")
        let reference = try String(contentsOfFile: packageRoot + "/docs/CLI.md", encoding: .utf8)
        #expect(reference.contains(command), "docs/CLI.md's Slurm example differs from deploy/slurm/facescan.sbatch")
        #expect(
            try line(in: "deploy/slurm/facescan.sbatch", startingWith: "#SBATCH --array=")
                == "#SBATCH --array=0-\(Self.shards - 1)")

        let dir = tempDir()
        try writeCaptures(in: dir, count: 10)
        try oneMachineRun(in: dir)
        let job = try cluster.submit(["sbatch", "--parsable", script], cwd: dir)
        let states = try cluster.wait(job: job, timeout: 60)
        #expect(states.count == Self.shards, "\(states)")
        #expect(states.values.allSatisfy { $0 == "COMPLETED" }, "\(states)")
        let reported = try reportedInputs(dir)
        // Each capture once, from the task whose shard it is in.
        #expect(reported.map(\.input).sorted() == (0..<10).map { "captures/cap\($0).json" }.sorted())
        #expect(reported.allSatisfy { $0.exitCode == 0 })
        for k in 0..<Self.shards {
            let lines = try String(contentsOfFile: "\(dir)/reports-\(k).jsonl", encoding: .utf8).split(separator: "\n")
                .count
            #expect(lines == (10 - k + Self.shards - 1) / Self.shards, "task \(k) reported \(lines) captures")
        }
        try expectSameOutputs(dir + "/out", dir + "/ref")

        // Second submission: array task 1 is cancelled (SIGTERM) after its first capture, while
        // it processes its second; the same script resubmitted for that task alone with
        // --array=1 (the script runs batch --resume) skips the finished capture and does the rest.
        let second = tempDir()
        // Task 1's second capture (cap5) is refined to 150 000 vertices and closed: slow enough to catch.
        try writeCaptures(in: second, count: 8, slow: [5])
        try oneMachineRun(in: second)
        let job2 = try cluster.submit(["sbatch", "--parsable", script], cwd: second)
        let victim = "\(job2)_1"
        var cancelled = false
        let deadline = Date().addingTimeInterval(60)
        while !cancelled && Date() < deadline {
            let lines =
                (try? String(contentsOfFile: second + "/reports-1.jsonl", encoding: .utf8))?.split(separator: "\n")
                .count ?? 0
            if lines == 1 {
                try cluster.client(["scancel", victim])
                cancelled = true
            } else if lines > 1 {
                break
            }
            usleep(50_000)
        }
        try #require(cancelled, "task 1 was not caught between its first and its second capture")
        let states2 = try cluster.wait(job: job2, timeout: 60)
        #expect(states2[1] == "CANCELLED", "\(states2)")
        #expect([0, 2, 3].allSatisfy { states2[$0] == "COMPLETED" }, "\(states2)")
        // The cancelled task left its finished capture and nothing of the unfinished one.
        let before = try reportedInputs(second)
        #expect(
            before.filter { $0.input == "captures/cap1.json" || $0.input == "captures/cap5.json" }.map(\.input) == [
                "captures/cap1.json"
            ])
        #expect(!FileManager.default.fileExists(atPath: second + "/out/cap5.stl"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: second + "/out").allSatisfy { !$0.hasPrefix(".") },
            "temporary files left")

        let job3 = try cluster.submit(
            ["sbatch", "--parsable", "--array=1", "--output=resumed-%a.jsonl", script], cwd: second)
        let states3 = try cluster.wait(job: job3, timeout: 60)
        #expect(states3 == [1: "COMPLETED"], "\(states3)")
        let resumed = try reportedInputs(second, prefix: "resumed-")
        #expect(resumed.map(\.input) == ["captures/cap1.json", "captures/cap5.json"])
        #expect(resumed.map(\.skipped) == [true, false])
        // Over both submissions every capture was processed exactly once, and the outputs are
        // the one-machine run's bytes.
        let processed = (before + resumed).filter { !$0.skipped }.map(\.input)
        #expect(processed.sorted() == (0..<8).map { "captures/cap\($0).json" })
        #expect((before + resumed).allSatisfy { $0.exitCode == 0 })
        try expectSameOutputs(second + "/out", second + "/ref")
    }
}

func run(_ exe: String, _ args: [String], cwd: String? = nil, environment: [String: String]? = nil) throws -> (
    status: Int32, output: String
) {
    try Spawn.run(exe, args, cwd: cwd, environment: environment ?? ProcessInfo.processInfo.environment)
}

/// A one-node Slurm cluster of this test process: munged, slurmctld and slurmd in the foreground,
/// configured from Tests/slurm/slurm.conf.in, with every file in one temporary directory.
final class SlurmCluster {
    let dir: String
    let conf: String
    private var daemons: [(name: String, pid: pid_t)] = []
    private var jobs: [String] = []
    let tools: [String: String]

    static let daemonNames = ["munged", "slurmctld", "slurmd"]
    static let clientNames = ["sbatch", "squeue", "scontrol", "scancel", "sinfo"]

    /// Why the cluster cannot start here (a program missing, or not root), or nil.
    static let cannotStart: String? = {
        let missing = (daemonNames + clientNames).filter { Tool.path($0) == nil }
        if !missing.isEmpty {
            return "\(missing.joined(separator: ", ")) not installed (make test-deps installs slurm-wlm and munge)"
        }
        if geteuid() != 0 {
            return "slurmd must run as root to start job steps, and this test runs as uid \(geteuid())"
        }
        return nil
    }()

    /// A started cluster. The test that calls it is enabled only where ``cannotStart`` is nil or
    /// `CI` is set: with CI set a missing program or a non-root user is a test failure.
    static func start() throws -> SlurmCluster {
        if let why = cannotStart {
            throw Failure(description: "the Slurm cluster cannot start: \(why); CI is set, so the test must run")
        }
        var tools: [String: String] = [:]
        for name in daemonNames + clientNames { tools[name] = Tool.path(name) }
        let cluster = try SlurmCluster(tools: tools)
        do {
            try cluster.start()
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private init(tools: [String: String]) throws {
        self.tools = tools
        dir = tempDir() + "/slurm"
        conf = dir + "/slurm.conf"
        for sub in ["", "/munge", "/state", "/spool", "/log"] {
            try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
        }
        chmod(dir + "/munge", 0o700)
        var key = [UInt8](repeating: 0, count: 1024)
        for i in key.indices { key[i] = UInt8.random(in: 0...255) }
        try Data(key).write(to: URL(fileURLWithPath: dir + "/munge/munge.key"))
        chmod(dir + "/munge/munge.key", 0o400)
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        let ports = Int.random(in: 20_000...29_000)
        var text = try String(contentsOfFile: packageRoot + "/Tests/slurm/slurm.conf.in", encoding: .utf8)
        for (k, v) in [
            ("@DIR@", dir), ("@CTLD_PORT@", String(ports)), ("@SLURMD_PORT@", String(ports + 1)),
            ("@HOSTNAME@", String(cString: host)), ("@CPUS@", String(ProcessInfo.processInfo.activeProcessorCount)),
            ("@USER@", String(cString: getpwuid(geteuid()).pointee.pw_name)),
        ] {
            text = text.replacingOccurrences(of: k, with: v)
        }
        try text.write(toFile: conf, atomically: false, encoding: .utf8)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["SLURM_CONF"] = conf
        env["PATH"] =
            URL(fileURLWithPath: facescanBinary).deletingLastPathComponent().path + ":"
            + (env["PATH"] ?? "/usr/bin:/bin")
        return env
    }

    private func launch(_ name: String, _ args: [String]) throws {
        let fd = open(dir + "/log/\(name).log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(dir)/log/\(name).log") }
        defer { close(fd) }
        daemons.append(
            (
                name,
                try Spawn.start(
                    tools[name]!, args, cwd: dir, environment: environment, stdout: .descriptor(fd),
                    stderr: .descriptor(fd))
            ))
    }

    /// Whether `pid` (a child) has exited; reaps it and gives its status when it has.
    private func exited(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? status : nil
    }

    func log(_ name: String) -> String {
        (try? String(contentsOfFile: dir + "/log/\(name).log", encoding: .utf8)) ?? ""
    }

    private func start() throws {
        let m = dir + "/munge"
        try launch(
            "munged",
            [
                "--foreground", "--force", "--key-file=\(m)/munge.key", "--socket=\(m)/munge.socket",
                "--pid-file=\(m)/munged.pid", "--seed-file=\(m)/munged.seed", "--log-file=\(dir)/log/munged-file.log",
            ])
        try waitFor("munged's socket", timeout: 10) { FileManager.default.fileExists(atPath: m + "/munge.socket") }
        try launch("slurmctld", ["-D", "-i", "-f", conf])
        try launch("slurmd", ["-D", "-N", "facescan-node", "-f", conf])
        try waitFor("the node to be idle", timeout: 30) {
            let r = try? run(self.tools["sinfo"]!, ["-h", "-o", "%t"], environment: self.environment)
            return r?.output.trimmingCharacters(in: .whitespacesAndNewlines) == "idle"
        }
    }

    private func waitFor(_ what: String, timeout: Double, _ ready: () throws -> Bool) throws {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if try ready() { return }
            for (i, (name, pid)) in daemons.enumerated() {
                if let status = exited(pid) {
                    daemons.remove(at: i)
                    throw Failure(
                        description: "\(name) exited (status \(status)) while waiting for \(what): \(log(name))")
                }
            }
            usleep(100_000)
        }
        throw Failure(
            description: "timed out waiting for \(what); slurmctld: \(log("slurmctld")) slurmd: \(log("slurmd"))")
    }

    /// Runs a Slurm client command line (`args[0]` is the tool name); returns its output.
    @discardableResult
    func client(_ args: [String], cwd: String? = nil) throws -> String {
        let r = try run(tools[args[0]]!, Array(args.dropFirst()), cwd: cwd, environment: environment)
        guard r.status == 0 else {
            throw Failure(description: "\(args.joined(separator: " ")) exited \(r.status): \(r.output)")
        }
        return r.output
    }

    /// Submits with `sbatch --parsable …`; returns the job id.
    func submit(_ args: [String], cwd: String) throws -> String {
        let id = try client(args, cwd: cwd).trimmingCharacters(in: .whitespacesAndNewlines)
        jobs.append(id)
        return id
    }

    /// The state of every array task of `job` (index → state), e.g. "COMPLETED".
    func taskStates(job: String) throws -> [Int: String] {
        var states: [Int: String] = [:]
        let text = try client(["scontrol", "show", "job", job, "-o"])
        for rec in text.split(separator: "\n") {
            let fields = Dictionary(
                rec.split(separator: " ").compactMap { f -> (String, String)? in
                    guard let eq = f.firstIndex(of: "=") else { return nil }
                    return (String(f[..<eq]), String(f[f.index(after: eq)...]))
                }, uniquingKeysWith: { a, _ in a })
            // Pending tasks share one record with a range of ids, e.g. ArrayTaskId=2-3 (or 1,3-5%2).
            guard let ids = fields["ArrayTaskId"], let s = fields["JobState"] else { continue }
            for part in ids.split(separator: "%")[0].split(separator: ",") {
                let ends = part.split(separator: "-").compactMap { Int($0) }
                guard let lo = ends.first, let hi = ends.last, lo <= hi else { continue }
                for t in lo...hi { states[t] = s }
            }
        }
        return states
    }

    /// Waits until no task of `job` is pending or running; returns the final states.
    func wait(job: String, timeout: Double) throws -> [Int: String] {
        let end = Date().addingTimeInterval(timeout)
        let active: Set<String> = ["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED"]
        while Date() < end {
            let states = try taskStates(job: job)
            if !states.isEmpty && states.values.allSatisfy({ !active.contains($0) }) { return states }
            usleep(200_000)
        }
        throw Failure(
            description: "job \(job) not done after \(timeout) s: \(try taskStates(job: job)); slurmd: \(log("slurmd"))"
        )
    }

    /// Cancels this cluster's jobs and stops every daemon it started (SIGTERM, then SIGKILL after 5 s).
    func stop() {
        for j in jobs { _ = try? run(tools["scancel"]!, [j], environment: environment) }
        for (_, pid) in daemons.reversed() {
            kill(pid, SIGTERM)
            let end = Date().addingTimeInterval(5)
            var done = false
            while !done && Date() < end {
                done = exited(pid) != nil
                if !done { usleep(50_000) }
            }
            if !done {
                kill(pid, SIGKILL)
                _ = Spawn.wait(pid)
            }
        }
        daemons.removeAll()
    }
}
