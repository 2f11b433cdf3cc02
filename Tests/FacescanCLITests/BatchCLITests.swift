import Foundation
import Testing

@Suite(.serialized) struct BatchCLITests {
    /// Four small captures in one directory.
    /// With `failing`, the last capture has no frame that passes the gate.
    func inputs(failing: Bool = false) throws -> String {
        let dir = tempDir() + "/in"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, extra) in [goodMeta, goodMeta + ",\"distance\":0.45", goodMeta + ",\"ambientIntensity\":800", "\"distance\":0.9"].enumerated() {
            let first = failing && i == 3 ? "\"trackingState\":\"limited\"" : goodMeta
            try smallCapture(frames: [first, extra]).write(toFile: "\(dir)/cap\(i).json", atomically: false, encoding: .utf8)
        }
        return dir
    }

    func files(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test func shardsPartitionTheInputsAndThreadsDoNotChangeBytes() throws {
        let dir = try inputs()
        let base = tempDir()
        let all = try runFacescan(["batch", dir, "--output-dir", base + "/all", "--formats", "stl,obj", "--jobs", "1", "--target-vertices", "144"])
        #expect(all.status == 0, "\(all.stdout)\(all.stderr)")
        #expect(all.stdout.split(separator: "\n").count == 4)
        let two = try runFacescan(["batch", dir, "--output-dir", base + "/two", "--formats", "stl,obj", "--jobs", "2", "--target-vertices", "144"])
        #expect(two.status == 0)
        // Output lines come in input order whatever the thread count.
        #expect(two.stdout.split(separator: "\n").map { $0.split(separator: ":").first } == all.stdout.split(separator: "\n").map { $0.split(separator: ":").first })
        #expect(files(base + "/all") == files(base + "/two"))
        for f in files(base + "/all") {
            #expect(FileManager.default.contentsEqual(atPath: base + "/all/" + f, andPath: base + "/two/" + f), "\(f)")
        }
        // Shards 0/3, 1/3, 2/3: disjoint, together everything.
        var union: [String] = []
        for k in 0..<3 {
            let r = try runFacescan(["batch", dir, "--output-dir", base + "/s", "--formats", "stl", "--shard", "\(k)/3", "--json", "--target-vertices", "144"])
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
        try "./in/cap0.json\nin//cap0.json\nin/cap0.json\nin/./cap1.json\nlinked.json\n".write(toFile: root + "/list.txt", atomically: false, encoding: .utf8)
        let r = try runFacescan(["batch", "list.txt", "--output-dir", "out", "--formats", "stl", "--target-vertices", "144", "--json"], cwd: root)
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try r.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["input"] as? String
        }
        #expect(inputs == ["in/cap0.json", "in/cap1.json"], "\(r.stdout)")
        #expect(files(root + "/out") == ["cap0.stl", "cap1.stl"])
    }

    @Test func gnuParallelExampleFromTheREADME() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel") else {
            Issue.record("GNU parallel is not installed (make deps installs it)")
            return
        }
        let dir = try inputs(failing: true)
        let out = tempDir()
        // The README's example: two shards run by GNU parallel.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/parallel")
        p.arguments = ["--will-cite", facescanBinary, "batch", dir, "--shard", "{}/2", "--output-dir", out, "--formats", "stl",
                       "--target-vertices", "144", "--json", ":::", "0", "1"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        // cap3 has no good frame: exit 3 for its shard, the other captures are written.
        #expect(p.terminationStatus != 0)
        #expect(String(decoding: data, as: UTF8.self).split(separator: "\n").count == 4)
        #expect(files(out) == ["cap0.stl", "cap1.stl", "cap2.stl"])
    }
}
