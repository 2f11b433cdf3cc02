import Foundation
import Testing

/// A child on a pseudo-terminal: standard input and error on the terminal (its controlling
/// terminal, in a session of its own, so that ^C on the terminal is SIGINT to it), standard
/// output into a file, as in `facescan batch … > log` typed at a shell — or, with no
/// `stdoutPath`, on the terminal too.
final class TerminalChild: @unchecked Sendable {
    let pid: pid_t
    let master: Int32
    private let lock = NSLock()
    private var received = Data()
    private let reader = DispatchGroup()

    init(_ args: [String], stdoutPath: String?, executable: String = facescanBinary) throws {
        // posix_openpt, grantpt, unlockpt and ptsname are not in Swift's Glibc module (they need
        // _XOPEN_SOURCE): looked up by name in the C library.
        typealias IntFn = @convention(c) (Int32) -> Int32
        typealias NameFn = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let o = dlsym(nil, "posix_openpt"), let g = dlsym(nil, "grantpt"), let u = dlsym(nil, "unlockpt"),
            let n = dlsym(nil, "ptsname")
        else { throw POSIXError(.ENOSYS) }
        master = unsafeBitCast(o, to: IntFn.self)(O_RDWR | O_NOCTTY)
        guard master >= 0, unsafeBitCast(g, to: IntFn.self)(master) == 0, unsafeBitCast(u, to: IntFn.self)(master) == 0,
            let name = unsafeBitCast(n, to: NameFn.self)(master)
        else {
            throw POSIXError(.ENOTTY)
        }
        let slave = String(cString: name)
        pid = try Spawn.start(
            executable, args, stdin: .file(slave, flags: O_RDWR),
            stdout: stdoutPath.map { .file($0, flags: O_WRONLY | O_CREAT | O_TRUNC) } ?? .descriptor(0),
            stderr: .descriptor(0), newSession: true, closing: [master])
        reader.enter()
        let fd = master
        Thread.detachNewThread { [self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &buf, buf.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                lock.lock()
                received.append(contentsOf: buf[0..<n])
                lock.unlock()
            }
            reader.leave()
        }
    }

    /// What the child wrote on the terminal so far.
    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits up to `seconds` for the terminal to show `text` after what it showed at `offset`
    /// (bytes); true when it did.
    func waitFor(_ text: String, after offset: Int = 0, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if String(output.utf8.dropFirst(offset))?.contains(text) == true { return true }
            usleep(20_000)
        }
        return false
    }

    /// Types `bytes` on the terminal (0x03 is ^C).
    func type(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) } }

    /// The wait status once the child ended, and everything it wrote on the terminal.
    func wait() -> (status: Int32, terminal: String) {
        let status = Spawn.rawWait(pid)
        _ = reader.wait(timeout: .now() + 10)
        close(master)
        lock.lock()
        defer { lock.unlock() }
        return (status, String(decoding: received, as: UTF8.self))
    }
}

@Suite(.serialized) struct TerminalCLITests {
    /// `count` small captures in a new directory.
    func captures(_ count: Int) throws -> String {
        let dir = tempDir() + "/caps"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<count {
            try smallCapture(frames: [goodMeta, goodMeta + ",\"distance\":0.4\(i % 10)"]).write(
                toFile: "\(dir)/cap\(i < 10 ? "0" : "")\(i).json", atomically: false, encoding: .utf8)
        }
        return dir
    }

    /// On a terminal: a progress line per capture on standard error, then the summary; the
    /// result lines go to standard output only.
    @Test func progressAndSummaryOnATerminal() throws {
        let dir = try captures(3)
        let root = (dir as NSString).deletingLastPathComponent
        let child = try TerminalChild(
            ["batch", dir, "-o", root + "/out", "--formats", "stl", "-n", "144", "-j", "1"], stdoutPath: root + "/log")
        let (status, terminal) = child.wait()
        #expect(status == 0, "\(terminal)")
        for k in 0...3 { #expect(terminal.contains("[\(k)/3]"), "\(terminal.debugDescription)") }
        #expect(terminal.contains("ETA 0:0"), "\(terminal.debugDescription)")
        #expect(terminal.contains("facescan: batch: 3 captures in 0:0"), "\(terminal.debugDescription)")
        #expect(terminal.contains("3 done, 0 failed"))
        #expect(!terminal.contains("OK   "))
        let log = try String(contentsOfFile: root + "/log", encoding: .utf8)
        #expect(log.split(separator: "\n").map { $0.hasPrefix("OK   ") } == [true, true, true], "\(log)")
        #expect(!log.contains("\u{1B}") && !log.contains("["))
        // --quiet: nothing on the terminal.
        let quiet = try TerminalChild(
            ["batch", dir, "-o", root + "/out2", "--formats", "stl", "-n", "144", "-q"], stdoutPath: root + "/log2")
        let q = quiet.wait()
        #expect(q.status == 0 && q.terminal.isEmpty, "\(q.terminal.debugDescription)")
    }

    /// ^C in the middle of a batch writing `> log --json`: every line in the log is whole JSON
    /// (one per finished capture, as many as the summary says), the finished captures' outputs
    /// and reports are there, no temporary file is left, and the exit status is 130.
    @Test func interruptMidBatch() throws {
        let dir = try captures(20)
        let root = (dir as NSString).deletingLastPathComponent
        let out = root + "/out"
        let log = root + "/log"
        // With thumbnails each capture takes a good part of a second: ^C comes in the middle.
        let child = try TerminalChild(
            ["batch", dir, "-o", out, "--formats", "stl,png", "-n", "144", "-j", "2", "--json"],
            stdoutPath: log)
        let deadline = Date().addingTimeInterval(120)
        var lines = 0
        while Date() < deadline {
            lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").filter { $0 == "\n" }.count
            if lines >= 2 { break }
            usleep(20_000)
        }
        #expect(lines >= 2, "no line in two minutes")
        child.type([0x03])
        let (status, terminal) = child.wait()
        // Exited (not killed by the signal) with 128 + SIGINT.
        #expect(
            status & 0x7f == 0 && (status >> 8) & 0xff == 130, "wait status \(status): \(terminal.debugDescription)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "a torn last line: \(text.suffix(80).debugDescription)")
        let records = try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        #expect(records.count >= 2 && records.count < 20, "\(records.count) lines")
        #expect(records.allSatisfy { $0["exitCode"] as? Int == 0 })
        #expect(
            terminal.contains(
                "facescan: batch interrupted by SIGINT after \(records.count)/20 captures: \(records.count) done, 0 failed"
            ),
            "\(terminal.debugDescription)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).sorted()
        // Nothing hidden: the stop removes the staging directory and the claims it holds.
        #expect(names.filter { $0.hasPrefix(".") }.isEmpty, "left behind: \(names)")
        let reports = names.filter { $0.hasSuffix(".report.json") }
        // Every capture with a line is committed; a capture committed after one still in
        // progress (lines are in input order) has its outputs but no line.
        for r in records {
            let input = try #require(r["input"] as? String)
            let name = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            #expect(reports.contains(name + ".report.json"), "\(name): \(names)")
        }
        #expect(reports.count >= records.count && reports.count < 20, "\(names)")
        for r in reports {
            let name = String(r.dropLast(".report.json".count))
            #expect(names.contains(name + ".stl") && names.contains(name + ".png"), "\(name): \(names)")
        }
        // A later --resume run does the rest: exactly the committed ones are skipped.
        let rest = try runFacescan([
            "batch", dir, "-o", out, "--formats", "stl,png", "-n", "144", "--json", "--resume", "-q",
        ])
        #expect(rest.status == 0, "\(rest.stderr)")
        let skipped = rest.stdout.split(separator: "\n").filter { $0.contains("\"skipped\":true") }.count
        #expect(skipped == reports.count)
        #expect(rest.stdout.split(separator: "\n").count == 20)
        let after = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).sorted()
        #expect(after.filter { $0.hasPrefix(".") }.isEmpty, "left behind: \(after)")
        #expect(after.count == 60)
    }

    /// SIGTERM (a cluster's scheduler ending the job): the same, exit 143.
    @Test func terminateMidBatch() throws {
        let dir = try captures(20)
        let root = (dir as NSString).deletingLastPathComponent
        let log = root + "/log"
        let child = try TerminalChild(
            ["batch", dir, "-o", root + "/out", "--formats", "stl,png", "-n", "144", "-j", "2"], stdoutPath: log)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").isEmpty { usleep(20_000) }
        kill(child.pid, SIGTERM)
        let (status, terminal) = child.wait()
        #expect(
            status & 0x7f == 0 && (status >> 8) & 0xff == 143, "wait status \(status): \(terminal.debugDescription)")
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        #expect(lines.hasSuffix("\n"))
        let n = lines.split(separator: "\n").count
        #expect(lines.split(separator: "\n").allSatisfy { $0.hasPrefix("OK   ") && $0.hasSuffix(" ms") }, "\(lines)")
        #expect(terminal.contains("interrupted by SIGTERM after \(n)/20 captures"), "\(terminal.debugDescription)")
    }
}

extension TerminalCLITests {
    /// A terminal on standard input is never waited on in silence; binary output is never
    /// written onto a terminal (exit 2, nothing else written).
    @Test func terminalsOnTheStandardStreams() throws {
        let dir = tempDir()
        func onTerminal(_ args: [String]) throws -> (status: Int32, terminal: String) {
            let child = try TerminalChild(args, stdoutPath: nil)
            // batch - waits for a list: end it as a user would, with ^D.
            if args.contains("batch") {
                usleep(300_000)
                child.type([0x04])
            }
            let (status, terminal) = child.wait()
            return ((status >> 8) & 0xff, terminal)
        }
        let process = try onTerminal(["process", "-", "-o", dir + "/o"])
        #expect(process.status == 2 && process.terminal.contains("standard input is a terminal"), "\(process)")
        let inspect = try onTerminal(["inspect", "-"])
        #expect(inspect.status == 2 && inspect.terminal.contains("standard input is a terminal"), "\(inspect)")
        let batch = try onTerminal(["batch", "-", "-o", dir + "/o"])
        #expect(batch.terminal.contains("reading capture paths from the terminal"), "\(batch)")
        #expect(batch.status == 2, "\(batch)")
        for (args, format) in [
            (["render", faceFixture, "-"], "PNG"),
            (["simplify", faceFixture, "-", "-n", "100", "--format", "stl"], "STL"),
            (["convert", faceFixture, "-", "--format", "glb"], "GLB"),
            (["convert", faceFixture, "-", "--format", "fbx"], "FBX"),
            (["compare", faceFixture, faceFixture, "--heatmap", "-", "--samples", "100"], "PNG"),
        ] {
            let r = try onTerminal(args)
            #expect(r.status == 2, "\(args): \(r)")
            #expect(r.terminal.contains("refusing to write binary \(format) to a terminal"), "\(args): \(r)")
            #expect(r.terminal.split(separator: "\n").count == 1, "\(args): \(r)")
        }
        // Text on a terminal is fine (OBJ).
        let obj = try onTerminal(["simplify", faceFixture, "-", "-n", "100"])
        #expect(obj.status == 0 && obj.terminal.contains("\nv "), "\(obj.terminal.prefix(200))")
    }
}
