import Foundation
import Testing

@Suite(.serialized) struct BatchCLITests {
    /// Four small captures in one directory.
    /// With `failing`, the last capture has no frame that passes the gate.
    func inputs(failing: Bool = false) throws -> String {
        let dir = tempDir() + "/in"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, extra) in [
            goodMeta, goodMeta + ",\"distance\":0.45", goodMeta + ",\"ambientIntensity\":800", "\"distance\":0.9",
        ].enumerated() {
            let first = failing && i == 3 ? "\"trackingState\":\"limited\"" : goodMeta
            try smallCapture(frames: [first, extra]).write(
                toFile: "\(dir)/cap\(i).json", atomically: false, encoding: .utf8)
        }
        return dir
    }

    func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    @Test func shardsPartitionTheInputsAndThreadsDoNotChangeBytes() throws {
        let dir = try inputs()
        let base = tempDir()
        let all = try runFacescan([
            "batch", dir, "--output-dir", base + "/all", "--formats", "stl,obj", "--jobs", "1", "--target-vertices",
            "144",
        ])
        #expect(all.status == 0, "\(all.stdout)\(all.stderr)")
        #expect(all.stdout.split(separator: "\n").count == 4)
        let two = try runFacescan([
            "batch", dir, "--output-dir", base + "/two", "--formats", "stl,obj", "--jobs", "2", "--target-vertices",
            "144",
        ])
        #expect(two.status == 0)
        // Output lines come in input order whatever the thread count.
        #expect(
            two.stdout.split(separator: "\n").map { $0.split(separator: ":").first }
                == all.stdout.split(separator: "\n").map { $0.split(separator: ":").first })
        #expect(files(base + "/all") == files(base + "/two"))
        // The reports hold timings; every other output is the same bytes.
        for f in files(base + "/all") where !f.hasSuffix(".report.json") {
            #expect(FileManager.default.contentsEqual(atPath: base + "/all/" + f, andPath: base + "/two/" + f), "\(f)")
        }
        // Shards 0/3, 1/3, 2/3: disjoint, together everything.
        var union: [String] = []
        for k in 0..<3 {
            let r = try runFacescan([
                "batch", dir, "--output-dir", base + "/s", "--formats", "stl", "--shard", "\(k)/3", "--json",
                "--target-vertices", "144",
            ])
            #expect(r.status == 0)
            for line in r.stdout.split(separator: "\n") {
                let j = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                union.append(try #require(j["input"] as? String))
            }
        }
        #expect(union.sorted() == (0..<4).map { "\(dir)/cap\($0).json" })
        #expect(Set(union).count == 4)
        #expect(try runFacescan(["batch", dir, "--shard", "3/3"]).status == 2)
    }

    /// A list naming captures as `./in/cap0.json`, `in//cap0.json` or through a hard link is one
    /// capture each, not a clash of output names.
    @Test func spellingsOfOnePathAreOneCapture() throws {
        let dir = try inputs()
        let root = (dir as NSString).deletingLastPathComponent
        try FileManager.default.linkItem(atPath: dir + "/cap1.json", toPath: root + "/linked.json")
        try "./in/cap0.json\nin//cap0.json\nin/cap0.json\nin/./cap1.json\nlinked.json\n".write(
            toFile: root + "/list.txt", atomically: false, encoding: .utf8)
        let r = try runFacescan(
            ["batch", "list.txt", "--output-dir", "out", "--formats", "stl", "--target-vertices", "144", "--json"],
            cwd: root)
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try r.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["input"] as? String
        }
        #expect(inputs == ["in/cap0.json", "in/cap1.json"], "\(r.stdout)")
        #expect(files(root + "/out") == ["cap0.report.json", "cap0.stl", "cap1.report.json", "cap1.stl"])
        // The duplicates are named on standard error.
        #expect(r.stderr.contains("warning: skipped 'linked.json': the same file as 'in/cap1.json'"), "\(r.stderr)")
    }

    @Test(.enabled(if: Tool.available("parallel"), "GNU parallel is not installed (make test-deps installs it)"))
    func gnuParallelExampleFromTheREADME() throws {
        let parallel = try Tool.require("parallel")
        let dir = try inputs(failing: true)
        let out = tempDir()
        // The README's example: two shards run by GNU parallel.
        let r = try runProgram(
            parallel,
            [
                "--will-cite", facescanBinary, "batch", dir, "--shard", "{}/2", "--output-dir", out, "--formats", "stl",
                "--target-vertices", "144", "--json", ":::", "0", "1",
            ])
        let data = r.stdout
        #expect(r.status != 0)
        #expect(String(decoding: data, as: UTF8.self).split(separator: "\n").count == 4)
        #expect(files(out).filter { $0.hasSuffix(".stl") } == ["cap0.stl", "cap1.stl", "cap2.stl"])
        // A report for each capture that succeeded, none for the one that failed.
        #expect(
            files(out).filter { $0.hasSuffix(".report.json") } == [
                "cap0.report.json", "cap1.report.json", "cap2.report.json",
            ])
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// --resume skips a capture whose report and outputs are there and not older than it, and
    /// processes it again when the capture changed or an output is missing.
    @Test func resumeSkipsFinishedCaptures() throws {
        let dir = try inputs()
        let out = tempDir() + "/out"
        let args = ["batch", dir, "-o", out, "--formats", "stl,obj", "-n", "144", "--json", "--resume"]
        let first = try runFacescan(args)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try jsonLines(first.stdout).allSatisfy { $0["skipped"] == nil })
        #expect(files(out).count == 12)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/cap0.report.json")))
                as? [String: Any])
        #expect((report["mesh"] as? [String: Any])?["outputVertices"] as? Int == 144)
        let stl = try Data(contentsOf: URL(fileURLWithPath: out + "/cap2.stl"))

        // cap1 changed after its outputs, cap2's OBJ is gone: those two again, the others skipped.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: dir + "/cap1.json")
        try FileManager.default.removeItem(atPath: out + "/cap2.obj")
        let second = try runFacescan(args)
        #expect(second.status == 0, "\(second.stderr)")
        let lines = try jsonLines(second.stdout)
        #expect(lines.map { $0["skipped"] as? Bool ?? false } == [true, false, false, true])
        #expect((lines[0]["report"] as? [String: Any])?["mesh"] as? [String: Int] == report["mesh"] as? [String: Int])
        #expect(second.stderr.contains("2 done, 0 failed, 2 skipped (--resume)"), "\(second.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/cap2.stl")) == stl)
        #expect(files(out).count == 12)
        // Asking for a format the earlier run did not write processes everything again.
        let third = try runFacescan([
            "batch", dir, "-o", out, "--formats", "stl,png", "-n", "144", "--json", "--resume",
        ])
        #expect(try jsonLines(third.stdout).allSatisfy { $0["skipped"] == nil })
        // Without --resume nothing is skipped.
        let fourth = try runFacescan(["batch", dir, "-o", out, "--formats", "stl", "-n", "144", "--json"])
        #expect(try jsonLines(fourth.stdout).allSatisfy { $0["skipped"] == nil })
    }

    /// `batch -` reads the list from standard input; no capture at all is exit 2 with a hint.
    @Test func listOnStandardInputAndZeroInputs() throws {
        let dir = try inputs()
        let out = tempDir()
        let r = try runFacescan(
            ["batch", "-", "-o", out, "--formats", "stl", "-n", "144"],
            stdin: Data("\(dir)/cap2.json\n# a comment\n\n\(dir)/cap0.json\n".utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.split(separator: "\n").map {
                $0.hasPrefix("OK   \(dir)/cap0.json") || $0.hasPrefix("OK   \(dir)/cap2.json")
            } == [true, true], "\(r.stdout)")
        let empty = tempDir()
        let none = try runFacescan(["batch", empty, "-o", out])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("facescan: no capture found in \(empty)"), "\(none.stderr)")
        let noneStdin = try runFacescan(["batch", "-", "-o", out], stdin: Data("# nothing\n".utf8))
        #expect(noneStdin.status == 2)
        // Captures only in subdirectories: the message names --recursive.
        try FileManager.default.createDirectory(atPath: empty + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/cap0.json", toPath: empty + "/sub/cap0.json")
        let sub = try runFacescan(["batch", empty, "-o", out])
        #expect(sub.status == 2 && sub.stderr.contains("add --recursive"), "\(sub.stderr)")
    }

    /// The bundled samples (every one named capture.*, one level down, beside expected.json
    /// files) batch with --recursive, each under a name from its directory.
    @Test func recursiveSamplesGetDistinctNames() throws {
        let out = tempDir()
        let r = try runFacescan([
            "batch", "--recursive", packageRoot + "/samples", "-o", out, "--formats", "stl", "-n", "500", "--json",
            "-v",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try jsonLines(r.stdout).compactMap { $0["input"] as? String }
        #expect(inputs == sampleCaptures().map(\.capture).sorted(), "\(inputs)")
        let names = sampleCaptures().map { ($0.dir as NSString).lastPathComponent + "-capture.stl" }.sorted()
        #expect(files(out).filter { $0.hasSuffix(".stl") } == names)
        // expected.json and expected-gate.json are not captures: ignored, named with --verbose.
        #expect(r.stderr.contains("expected.json: not a facescan capture"), "\(r.stderr)")
        #expect(r.stderr.contains("inputs skipped, not captures"), "\(r.stderr)")
    }

    /// Issue 23, findings 7–9: a capture that starts with a byte-order mark is a capture, not a
    /// list; a huge capture is not read whole to decide; a FIFO named *.json is not opened.
    @Test func byteOrderMarkHugeFileAndFIFO() throws {
        let dir = try inputs()
        let root = (dir as NSString).deletingLastPathComponent
        let text = try String(contentsOfFile: dir + "/cap0.json", encoding: .utf8)
        try (Data([0xEF, 0xBB, 0xBF]) + Data(("\n  " + text).utf8)).write(to: URL(fileURLWithPath: root + "/bom.json"))
        // Taken as one capture (not a list whose one "path" is the whole file): batch's line for
        // it has the exit code `process` gives the same file.
        let bom = try runFacescan([
            "batch", root + "/bom.json", "-o", root + "/o", "--formats", "stl", "-n", "144", "--json",
        ])
        let single = try runFacescan([
            "process", root + "/bom.json", "-o", root + "/p", "--formats", "stl", "-n", "144",
        ])
        let bomLines = try jsonLines(bom.stdout)
        #expect(bomLines.count == 1 && bomLines.first?["input"] as? String == root + "/bom.json", "\(bom.stdout)")
        #expect(bomLines.first?["exitCode"] as? Int == Int(single.status), "\(bom.stdout) vs \(single.stderr)")
        #expect(bom.status == single.status)

        // 64 GiB, sparse: '{' then zeros. Read whole it would not fit in memory.
        let huge = root + "/huge.json"
        #expect(FileManager.default.createFile(atPath: huge, contents: Data("{".utf8)))
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try h.truncate(atOffset: 64 << 30)
        try h.close()
        let big = try runFacescan(["batch", huge, "-o", root + "/o", "--json"])
        #expect(big.status == 2, "\(big.stderr)")
        let line = try #require(try jsonLines(big.stdout).first)
        #expect(line["input"] as? String == huge && line["exitCode"] as? Int == 2)

        // A FIFO among the captures: left out (never opened, so never waited on).
        #expect(mkfifo(dir + "/pipe.json", 0o644) == 0)
        let fifo = try runFacescan(["batch", dir, "-o", root + "/o2", "--formats", "stl", "-n", "144", "-v"])
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(fifo.stdout.split(separator: "\n").count == 4)
        #expect(fifo.stderr.contains("pipe.json: not a regular file"), "\(fifo.stderr)")
    }

    /// A list file line that cannot be a path is an error naming the file and line.
    @Test func listLineThatIsNotAPath() throws {
        let root = tempDir()
        try ("caps/a.json\n" + String(repeating: "x", count: 5000) + "\n").write(
            toFile: root + "/list.txt", atomically: false, encoding: .utf8)
        let r = try runFacescan(["batch", root + "/list.txt"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("list.txt") && r.stderr.contains("line 2"), "\(r.stderr)")
    }
}

extension BatchCLITests {
    /// A JSON file that is not a capture is called so (process, and batch's line for it); a
    /// directory's non-captures, a directory named *.json among them, are counted in batch's summary.
    @Test func notACaptureIsNamedAndSkippedInputsCounted() throws {
        let dir = tempDir()
        let package = dir + "/package.json"
        try "{\"name\": \"x\", \"version\": \"1.0.0\"}\n".write(toFile: package, atomically: false, encoding: .utf8)
        let p = try runFacescan(["process", package, "-o", dir + "/o"])
        expectOneLine(p, status: 2, "package.json", "not a facescan capture")
        let named = try runFacescan(["batch", package, "-o", dir + "/o"])
        #expect(named.status == 2 && named.stdout.contains("not a facescan capture"), "\(named.stdout)")

        let caps = dir + "/caps"
        try FileManager.default.createDirectory(atPath: caps + "/more.json", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: package, toPath: caps + "/package.json")
        try smallCapture(frames: [goodMeta]).write(toFile: caps + "/a.json", atomically: false, encoding: .utf8)
        let b = try runFacescan(["batch", caps, "-o", dir + "/ob", "--formats", "stl", "-n", "144"])
        #expect(b.status == 0, "\(b.stderr)")
        #expect(b.stderr.contains("1 done, 0 failed; 2 inputs skipped, not captures"), "\(b.stderr)")
        let v = try runFacescan(["batch", caps, "-o", dir + "/ob2", "--formats", "stl", "-n", "144", "-v"])
        #expect(v.stderr.contains("package.json: not a facescan capture"), "\(v.stderr)")
        #expect(v.stderr.contains("more.json: a directory"), "\(v.stderr)")
    }
}
