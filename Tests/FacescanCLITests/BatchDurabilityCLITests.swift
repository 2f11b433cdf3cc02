import FaceScanKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `batch` promises about its outputs when it is stopped, when its outputs are damaged
/// after the fact, and when two batches write into one directory (docs/CLI.md, *How outputs are
/// written* and *Batches and sharding*). Driven on the release binary when `make test` built it.
@Suite(.serialized) struct BatchDurabilityCLITests {
    /// `count` small captures (each a little different, so their outputs differ) in a new directory.
    private func captures(_ count: Int, in root: String) throws -> String {
        let dir = root + "/caps"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<count {
            let meta = goodMeta + ",\"distance\":0.4\(i % 10)"
            try smallCapture(frames: [goodMeta, meta], centre: [0.5 + Double(i) * 0.004, 0.5]).write(
                toFile: "\(dir)/cap\(i < 10 ? "0" : "")\(i).json", atomically: false, encoding: .utf8)
        }
        return dir
    }

    private func entries(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// The outputs of every capture (`NAME.FORMAT` for `formats`), by file name.
    private func outputs(_ dir: String, count: Int, formats: [String]) -> [String: Data] {
        var out: [String: Data] = [:]
        for i in 0..<count {
            for f in formats {
                let name = "cap\(i < 10 ? "0" : "")\(i).\(f)"
                out[name] = FileManager.default.contents(atPath: dir + "/" + name)
            }
        }
        return out
    }

    private func inode(_ path: String) -> UInt64? {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    /// 200 stops at random instants (SIGINT, SIGTERM, SIGHUP and SIGKILL in turn), each run
    /// after the first with `--resume`: whenever a run gets to the end, every capture's outputs
    /// are byte for byte those of an uninterrupted run and nothing hidden is left; a signal with
    /// a handler leaves nothing hidden of its run; and a capture whose report is in
    /// place is never written again (its files keep their inodes until the directory is
    /// emptied for the next round).
    @Test func randomStopsThenResume() throws {
        let root = tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let count = 20
        let caps = try captures(count, in: root)
        let formats = ["stl"]
        func args(_ out: String) -> [String] {
            ["batch", caps, "-o", out, "--formats", "stl", "-n", "144", "-j", "2", "--resume", "-q"]
        }
        let started = Date()
        // Three uninterrupted runs: the same bytes each time; the quickest sets the time scale.
        var runTime = Double.infinity
        for k in 0..<3 {
            let t = Date()
            let reference = try runProgram(fastFacescanBinary, args(root + "/ref\(k)"))
            runTime = min(runTime, Date().timeIntervalSince(t))
            #expect(reference.status == 0, "\(reference.stderr)")
        }
        let expected = outputs(root + "/ref0", count: count, formats: formats)
        #expect(outputs(root + "/ref1", count: count, formats: formats) == expected)
        #expect(outputs(root + "/ref2", count: count, formats: formats) == expected)
        #expect(expected.values.count == count * formats.count && Set(expected.values).count == count * formats.count)

        let out = root + "/out"
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGKILL]
        var g = SplitMix64(seed: 59)
        var stops = [Int32: Int](), completions = 0, rounds = 0
        var committed: [String: [UInt64?]] = [:]
        func checkComplete(_ round: Int) {
            #expect(outputs(out, count: count, formats: formats) == expected, "round \(round): outputs differ")
            let left = entries(out).filter { $0.hasPrefix(".") }
            #expect(left.isEmpty, "round \(round): left behind \(left)")
            #expect(entries(out).count == count * (formats.count + 1), "round \(round): \(entries(out))")
        }
        while stops.values.reduce(0, +) < 200 && rounds < 3000 {
            rounds += 1
            let sig = signals[stops.values.reduce(0, +) % signals.count]
            let hiddenBefore = Set(entries(out).filter { $0.hasPrefix(".") })
            let pid = try Spawn.start(fastFacescanBinary, args(out))
            // Anywhere in a whole run, early instants more often (a resumed run has less to do).
            let u = Double.random(in: 0...1, using: &g)
            usleep(UInt32(runTime * 1e6 * u * u))
            kill(pid, sig)
            let status = Spawn.rawWait(pid)
            let killed = status & 0x7f, code = (status >> 8) & 0xff
            if killed == 0 && code == 0 {
                // It got to the end before the signal.
                completions += 1
                checkComplete(rounds)
                try FileManager.default.removeItem(atPath: out)
                committed.removeAll()
                continue
            }
            // Stopped: by the signal itself, or (with a handler) exit 128 + signal.
            #expect(killed == sig || (killed == 0 && code == 128 + sig), "round \(rounds): wait status \(status)")
            stops[sig, default: 0] += 1
            if sig != SIGKILL {
                // Nothing hidden added (what a SIGKILL before left goes once a run gets to it).
                let left = Set(entries(out).filter { $0.hasPrefix(".") }).subtracting(hiddenBefore)
                #expect(left.isEmpty, "round \(rounds), signal \(sig): left behind \(left.sorted())")
            }
            // A capture with its report in place is committed: never written again.
            for i in 0..<count {
                let name = "cap\(i < 10 ? "0" : "")\(i)"
                guard inode(out + "/" + name + ".report.json") != nil else { continue }
                let ids = (formats + ["report.json"]).map { inode(out + "/" + name + "." + $0) }
                #expect(ids.allSatisfy { $0 != nil }, "round \(rounds): \(name) has a report but not every output")
                if let before = committed[name] {
                    #expect(before == ids, "round \(rounds): \(name) was written again after its commit")
                } else {
                    committed[name] = ids
                }
            }
        }
        // The last resume finishes the work.
        let last = try runProgram(fastFacescanBinary, args(out))
        #expect(last.status == 0, "\(last.stderr)")
        checkComplete(rounds + 1)
        print(
            "stops: \(stops.sorted { $0.key < $1.key }.map { "signal \($0.key): \($0.value)" }.joined(separator: ", ")); \(completions) runs finished first, \(rounds) rounds, whole batch \(Int(runTime * 1000)) ms, \(Int(Date().timeIntervalSince(started))) s in all"
        )
        #expect(stops.values.reduce(0, +) == 200 && signals.allSatisfy { stops[$0, default: 0] == 50 })
    }

    /// An output of a committed capture truncated, zeroed or deleted: `--resume` redoes exactly
    /// those captures (the others keep their files), and the outputs are whole again.
    @Test func damagedOutputsAreRedoneOnResume() throws {
        let root = tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let caps = try captures(6, in: root)
        let out = root + "/out"
        let args = ["batch", caps, "-o", out, "--formats", "stl,obj", "-n", "144", "--json", "--resume", "-q"]
        #expect(try runProgram(fastFacescanBinary, args).status == 0)
        let before = outputs(out, count: 6, formats: ["stl", "obj"])
        let inodes = Dictionary(uniqueKeysWithValues: before.keys.map { ($0, inode(out + "/" + $0)) })
        // cap01.stl cut to half, cap02.obj zeroed (same size), cap03.stl deleted.
        #expect(truncate(out + "/cap01.stl", off_t(before["cap01.stl"]!.count / 2)) == 0)
        try Data(count: before["cap02.obj"]!.count).write(to: URL(fileURLWithPath: out + "/cap02.obj"))
        #expect(unlink(out + "/cap03.stl") == 0)
        let again = try runProgram(fastFacescanBinary, args)
        #expect(again.status == 0, "\(again.stderr)")
        let lines = String(decoding: again.stdout, as: UTF8.self).split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        #expect(lines.count == 6)
        let redone = lines.filter { $0["skipped"] as? Bool != true }.compactMap { $0["input"] as? String }
        #expect(redone == ["cap01", "cap02", "cap03"].map { caps + "/" + $0 + ".json" }, "\(redone)")
        #expect(outputs(out, count: 6, formats: ["stl", "obj"]) == before)
        for name in before.keys where ["cap00", "cap04", "cap05"].contains(String(name.prefix(5))) {
            #expect(inode(out + "/" + name) == inodes[name], "\(name) was written again")
        }
        #expect(entries(out).filter { $0.hasPrefix(".") }.isEmpty, "\(entries(out))")
    }

    /// Two batches over the same captures started at once into one directory (without
    /// `--resume`): both succeed, every capture is processed by exactly one of them (the other
    /// says it was done by another batch), and the outputs are those of one batch alone.
    @Test func twoBatchesAtOnceShareTheWork() throws {
        let root = tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let count = 12
        let caps = try captures(count, in: root)
        func args(_ out: String) -> [String] {
            [
                "batch", caps, "-o", out, "--formats", "stl,png", "--thumbnail-size", "768", "-n", "144", "-j", "1",
                "--json",
            ]
        }
        #expect(try runProgram(fastFacescanBinary, args(root + "/ref")).status == 0)
        let expected = outputs(root + "/ref", count: count, formats: ["stl", "png"])
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let logs = [root + "/a.jsonl", root + "/b.jsonl"]
        let pids = try logs.map { log in
            try Spawn.start(fastFacescanBinary, args(out), stdout: .file(log, flags: O_WRONLY | O_CREAT | O_TRUNC))
        }
        let statuses = pids.map { Spawn.wait($0) }
        #expect(statuses == [0, 0])
        var processedBy: [String: Int] = [:]
        for log in logs {
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == count, "\(log): \(lines.count) lines")
            for line in lines {
                let j = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(j["exitCode"] as? Int == 0)
                if j["skipped"] as? Bool != true { processedBy[j["input"] as? String ?? "", default: 0] += 1 }
            }
        }
        #expect(processedBy.count == count && processedBy.values.allSatisfy { $0 == 1 }, "\(processedBy)")
        #expect(outputs(out, count: count, formats: ["stl", "png"]) == expected)
        #expect(entries(out).filter { $0.hasPrefix(".") }.isEmpty, "\(entries(out))")
    }
}
