import Foundation
import Testing

@Suite(.serialized) struct ProcessCLITests {
    @Test func versionAndHelp() throws {
        let v = try runFacescan(["--version"])
        #expect(v.status == 0)
        #expect(!v.stdout.isEmpty)
        for sub in [[], ["process"]] {
            let h = try runFacescan(sub + ["--help"])
            #expect(h.status == 0)
            #expect(h.stdout.contains("USAGE") || h.stdout.contains("Usage"))
        }
    }

    @Test func processesASmallCaptureAndReportsJSON() throws {
        let dir = tempDir()
        let bad = "\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,-0.7,1]"
        let text = smallCapture(frames: [
            goodMeta, bad, goodMeta, "\"trackingState\":\"limited\"", "\"ambientIntensity\":500",
            "\"blendShapes\":{\"browInnerUp\":0.7}", "",
        ])
        try text.write(toFile: dir + "/cap.json", atomically: false, encoding: .utf8)
        let r = try runFacescan([
            "process", dir + "/cap.json", "--output-dir", dir + "/out", "--formats", "stl,obj", "--json",
            "--target-vertices", "144",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(r.json)
        let frames = try #require(j["frames"] as? [String: Any])
        #expect(frames["read"] as? Int == 7)
        #expect(frames["accepted"] as? Int == 3)
        let rej = try #require(frames["rejected"] as? [String: Int])
        #expect(rej == ["distance": 1, "tracking": 1, "lighting": 1, "expression": 1])
        let mesh = try #require(j["mesh"] as? [String: Int])
        #expect(mesh["inputVertices"] == 144 && mesh["inputTriangles"] == 242)
        let outputs = try #require(j["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["format"] as? String } == ["stl", "obj"])
        let stl = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/cap.stl"))
        #expect(stl.count == 84 + 50 * (mesh["outputTriangles"] ?? -1))
        #expect(outputs.first?["bytes"] as? Int == stl.count)
        let timings = try #require(j["timingsMs"] as? [String: Double])
        for k in ["ingest", "smooth", "decimate", "refine", "export", "total"] { #expect(timings[k] != nil, "\(k)") }
        // Only the outputs, no temporary files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted() == ["cap.obj", "cap.stl"])
        // Millimetres by default; metres on request: the same mesh 1000× smaller.
        let m = try runFacescan([
            "process", dir + "/cap.json", "--output-dir", dir + "/m", "--formats", "obj", "--units", "m",
            "--name", "metres", "--quiet", "--target-vertices", "144",
        ])
        #expect(m.status == 0 && m.stderr.isEmpty)
        let mm = try String(contentsOfFile: dir + "/out/cap.obj", encoding: .utf8)
        let me = try String(contentsOfFile: dir + "/m/metres.obj", encoding: .utf8)
        func firstV(_ s: String) -> [Double] {
            s.split(separator: "\n").first { $0.hasPrefix("v ") }!.split(separator: " ").dropFirst().map { Double($0)! }
        }
        let a = firstV(mm), b = firstV(me)
        for k in 0..<3 { #expect(abs(a[k] - 1000 * b[k]) < 1e-3 * max(1, abs(a[k]))) }
    }

    /// `uncertainty.png` is written (a picture with its legend, wider than tall), the report
    /// carries the noise and the smoothing chosen, and `--verbose` says why in one line.
    @Test func uncertaintyPictureAndSmoothingReason() throws {
        let dir = tempDir()
        try smallCapture(frames: [goodMeta, goodMeta, goodMeta, goodMeta]).write(
            toFile: dir + "/cap.json", atomically: false, encoding: .utf8)
        let r = try runFacescan([
            "process", dir + "/cap.json", "--output-dir", dir + "/out", "--formats", "stl,uncertainty.png", "--json",
            "--verbose", "--target-vertices", "144",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(r.json)
        let outputs = try #require(j["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["format"] as? String } == ["stl", "uncertainty.png"])
        let png = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/cap.uncertainty.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // IHDR: width and height, big-endian, at bytes 16 and 20.
        func be32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(16) > be32(20) - 64, "\(be32(16)) × \(be32(20))")
        let noise = try #require(j["noise"] as? [String: Double])
        #expect((noise["medianStandardErrorUm"] ?? -1) >= 0 && noise["p95StandardErrorUm"] != nil)
        let smoothing = try #require(j["smoothing"] as? [String: Any])
        #expect(smoothing["mode"] as? String == "auto")
        #expect(r.stderr.contains("facescan: noise: standard error "), "\(r.stderr)")
        #expect(r.stderr.contains("chosen from the measured noise"))
        // A fixed count is reported as asked.
        let f = try runFacescan([
            "process", dir + "/cap.json", "--output-dir", dir + "/f", "--formats", "stl", "--json",
            "--smoothing", "3", "--target-vertices", "144",
        ])
        let fixed = try #require(f.json?["smoothing"] as? [String: Any])
        #expect(fixed["passes"] as? Int == 3 && fixed["mode"] as? String == "fixed")
    }

    @Test func sameInputSameBytes() throws {
        let dir = tempDir()
        try smallCapture(frames: [goodMeta, goodMeta]).write(
            toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        for o in ["a", "b"] {
            let r = try runFacescan([
                "process", dir + "/c.json", "--output-dir", dir + "/" + o, "--formats", "stl,obj", "--quiet",
                "--target-vertices", "144",
            ])
            #expect(r.status == 0, "\(r.stderr)")
        }
        for f in ["c.stl", "c.obj"] {
            #expect(FileManager.default.contentsEqual(atPath: dir + "/a/" + f, andPath: dir + "/b/" + f))
        }
    }

    @Test func readsStandardInputInBothEncodings() throws {
        let dir = tempDir()
        let doc = smallCapture(frames: [goodMeta, goodMeta])
        try doc.write(toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let fromFile = try runFacescan([
            "process", dir + "/c.json", "--output-dir", dir + "/f", "--formats", "stl", "--quiet", "--target-vertices",
            "144",
        ])
        #expect(fromFile.status == 0)
        let fromStdin = try runFacescan(
            ["process", "-", "--output-dir", dir + "/s", "--formats", "stl", "--json", "--target-vertices", "144"],
            stdin: Data(doc.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: dir + "/f/c.stl", andPath: dir + "/s/face.stl"))
        // NDJSON: header line, then one frame per line.
        let obj = try JSONSerialization.jsonObject(with: Data(doc.utf8)) as! [String: Any]
        var header = obj
        let frames = header.removeValue(forKey: "frames") as! [Any]
        var lines = [String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)]
        for f in frames { lines.append(String(decoding: try JSONSerialization.data(withJSONObject: f), as: UTF8.self)) }
        let nd = try runFacescan(
            ["process", "-", "--output-dir", dir + "/n", "--formats", "stl", "--quiet", "--target-vertices", "144"],
            stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(nd.status == 0, "\(nd.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: dir + "/f/c.stl", andPath: dir + "/n/face.stl"))
    }

    @Test func exitCodes() throws {
        let dir = tempDir()
        // 2: bad input, naming file, frame and field.
        try smallCapture(frames: [goodMeta, "\"trackingState\":\"sideways\""]).write(
            toFile: dir + "/bad.json", atomically: false, encoding: .utf8)
        let bad = try runFacescan(["process", dir + "/bad.json", "--output-dir", dir + "/o"])
        #expect(bad.status == 2)
        #expect(
            bad.stderr.contains(dir + "/bad.json") && bad.stderr.contains("frame 1")
                && bad.stderr.contains("trackingState"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/o/bad.stl"))
        // 2: usage.
        #expect(try runFacescan(["process", dir + "/bad.json", "--no-such-flag"]).status == 2)
        #expect(
            try runFacescan(["process", dir + "/bad.json", "--formats", "xyz", "--output-dir", dir + "/o"]).status == 2)
        // 3: nothing passed the gate; the report is still printed with --json.
        try smallCapture(frames: ["\"trackingState\":\"limited\"", "\"distance\":0.9"]).write(
            toFile: dir + "/none.json", atomically: false, encoding: .utf8)
        let none = try runFacescan(["process", dir + "/none.json", "--output-dir", dir + "/o", "--json"])
        #expect(none.status == 3)
        let frames = try #require(none.json?["frames"] as? [String: Any])
        #expect(frames["accepted"] as? Int == 0 && frames["read"] as? Int == 2)
        // The topology was read: its counts are reported (12×12 grid, 2 × 11² triangles).
        let mesh = try #require(none.json?["mesh"] as? [String: Any])
        #expect(mesh["inputVertices"] as? Int == 144 && mesh["inputTriangles"] as? Int == 242, "\(mesh)")
        #expect(mesh["outputVertices"] as? Int == 0)
        // 1: I/O — missing input, output directory that is a file.
        #expect(try runFacescan(["process", dir + "/missing.json"]).status == 1)
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        try smallCapture(frames: [goodMeta]).write(toFile: dir + "/ok.json", atomically: false, encoding: .utf8)
        let io = try runFacescan([
            "process", dir + "/ok.json", "--output-dir", dir + "/file", "--formats", "stl", "--target-vertices", "144",
        ])
        #expect(io.status == 1, "\(io.stderr)")
    }

    @Test func failedRunKeepsPreviousOutputs() throws {
        let dir = tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try "previous".write(toFile: dir + "/out/c.stl", atomically: false, encoding: .utf8)
        // Truncated mid-frame.
        let text = smallCapture(frames: [goodMeta, goodMeta])
        try String(text.prefix(text.count - 200)).write(toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/c.json", "--output-dir", dir + "/out", "--formats", "stl"])
        #expect(r.status == 2)
        #expect(try String(contentsOfFile: dir + "/out/c.stl", encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out") == ["c.stl"])
    }

    /// Every bundled sample processes, and its gate counts match the counts derived from FORMAT.md
    /// when the sample was made (samples/*/expected-gate.json).
    @Test func samplesMatchTheirExpectedGateCounts() throws {
        let samples = sampleCaptures()
        #expect(samples.count >= 3)
        for (dir, capture) in samples {
            let out = tempDir()
            let r = try runFacescan(["process", capture, "--output-dir", out, "--formats", "stl,obj", "--json"])
            #expect(r.status == 0, "\(capture): \(r.stderr)")
            guard let j = r.json, let frames = j["frames"] as? [String: Any] else {
                Issue.record("\(capture): no JSON report")
                continue
            }
            let expectedPath = dir + "/expected-gate.json"
            if let data = FileManager.default.contents(atPath: expectedPath),
                let expected = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                #expect(frames["read"] as? Int == expected["read"] as? Int, "\(capture)")
                #expect(frames["accepted"] as? Int == expected["accepted"] as? Int, "\(capture)")
                #expect(frames["rejected"] as? [String: Int] == expected["rejected"] as? [String: Int], "\(capture)")
            } else {
                Issue.record("\(dir) has no expected-gate.json")
            }
        }
    }
}

@Suite struct SolidCLITests {
    @Test(arguments: [["--solid"], ["--solid", "--base"], ["--thickness", "3"]])
    func solidOutputIsWatertightWithTheExactCount(flags: [String]) throws {
        let dir = tempDir()
        try smallCapture(frames: [goodMeta, goodMeta]).write(
            toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(
            ["process", dir + "/c.json", "--output-dir", dir, "--formats", "stl", "--target-vertices", "200", "--json"]
                + flags)
        #expect(r.status == 0, "\(r.stderr)")
        let mesh = try #require(r.json?["mesh"] as? [String: Int])
        #expect(mesh["outputVertices"] == 200)
        let i = try runFacescan(["inspect", dir + "/c.stl", "--json"])
        #expect(i.status == 0, "\(i.stderr)")
        let j = try #require(i.json)
        #expect(j["watertight"] as? Bool == true, "\(i.stdout)")
        #expect(j["vertices"] as? Int == 200)
        #expect((j["volumeCm3"] as? Double ?? 0) > 0, "\(i.stdout)")
    }

    @Test func solidFromSettings() throws {
        let dir = tempDir()
        let text = smallCapture(frames: [goodMeta]).replacingOccurrences(
            of: "\"version\":1,",
            with: "\"version\":1,\"settings\":{\"solid\":{\"thickness\":1.5,\"base\":true},\"targetVertexCount\":180},")
        try text.write(toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/c.json", "--output-dir", dir, "--formats", "stl", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect((r.json?["mesh"] as? [String: Int])?["outputVertices"] == 180)
        let i = try runFacescan(["inspect", dir + "/c.stl", "--json"])
        #expect(i.json?["watertight"] as? Bool == true)
    }
}
