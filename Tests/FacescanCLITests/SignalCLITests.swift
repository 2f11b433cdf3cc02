import Foundation
import Testing

/// The names in `dir` that start with "." (facescan's temporary files are `.NAME.XXXXXX`).
private func hiddenNames(in dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix(".") }.sorted()
}

/// The lines of `text`, without the final newline.
private func lines(_ text: String) -> [Substring] {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0).map { $0 }
}

/// Signals during export and usage errors: what is left on disk, the exit status and stderr.
@Suite(.serialized) struct SignalCLITests {
    /// `process` with a large thumbnail spends seconds rendering after the STL and OBJ are staged:
    /// the signal arrives while their temporary files exist, and must remove them.
    @Test(arguments: [SIGTERM, SIGINT])
    func signalDuringExportLeavesNoTemporaryFiles(signal: Int32) throws {
        let capture = try #require(
            sampleCaptures().first { $0.dir.hasSuffix("/ict-neutral") } ?? sampleCaptures().first)
        let out = tempDir()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let args = [
            "process", capture.capture, "--output-dir", out, "--thumbnail-size", "8192", "--formats", "stl,obj,png,ply",
        ]
        let pid = try Spawn.start(facescanBinary, args)

        // Wait (up to two minutes) for a temporary file to appear, then send the signal.
        var seen: [String] = []
        var status: Int32 = 0
        var ended = false
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { ended = true; break }
            seen = hiddenNames(in: out)
            if !seen.isEmpty { break }
            usleep(10_000)
        }
        if !ended {
            kill(pid, signal)
            status = Spawn.rawWait(pid)
        }

        #expect(!seen.isEmpty, "no temporary file appeared before the process ended")
        #expect(hiddenNames(in: out) == [], "left behind: \(hiddenNames(in: out))")
        // Killed by the signal itself (WIFSIGNALED, WTERMSIG), not an exit.
        let termsig = status & 0x7f
        #expect(termsig == signal, "wait status \(status)")
        // No output either: they are renamed into place together, after the PNG.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? ["?"]) == [])
    }

    @Test func unknownOptionIsOneLineAndExit2() throws {
        for args in [["process", "--no-such-flag"], ["process", "x.json", "--no-such-flag"]] {
            let r = try runFacescan(args)
            #expect(r.status == 2, "\(args)")
            let l = lines(r.stderr)
            #expect(l.count == 1 && l[0].hasPrefix("facescan: "), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let r = try runFacescan(["process", "x.json", "--no-such-flag"])
        #expect(r.stderr.contains("--no-such-flag"), "\(r.stderr)")
    }

    @Test func missingOptionOrValueIsOneLineAndExit2() throws {
        for (args, mention) in [
            (["simplify", "a.obj", "b.obj"], "--target-vertices"),
            (["process", "x.json", "--thumbnail-size"], "--thumbnail-size"),
            (["process", "x.json", "--thumbnail-size", "abc"], "abc"),
        ] {
            let r = try runFacescan(args)
            #expect(r.status == 2, "\(args)")
            let l = lines(r.stderr)
            #expect(l.count == 1 && l[0].hasPrefix("facescan: ") && l[0].contains(mention), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Usage:") && !r.stderr.contains("--help"), "\(args): \(r.stderr)")
        }
    }

    @Test func helpAndVersionStayOnStandardOutput() throws {
        let h = try runFacescan(["--help"])
        #expect(h.status == 0)
        #expect(h.stderr.isEmpty)
        #expect(
            h.stdout.contains("OVERVIEW:") && h.stdout.contains("USAGE: facescan <subcommand>")
                && h.stdout.contains("SUBCOMMANDS:"))
        #expect(lines(h.stdout).count > 10)
        let sub = try runFacescan(["simplify", "--help"])
        #expect(sub.status == 0 && sub.stdout.contains("--target-vertices") && sub.stderr.isEmpty)
        let v = try runFacescan(["--version"])
        #expect(v.status == 0 && lines(v.stdout).count == 1 && v.stderr.isEmpty)
    }
}
