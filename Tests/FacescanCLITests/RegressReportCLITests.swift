import FaceScanKit
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `compare --heatmap`, and `regress --junit / --json / --artifacts`.
@Suite(.serialized) struct RegressReportCLITests {
    /// A plate and the same plate with a 0.5 mm bump on the viewer's left, as OBJ in millimetres.
    func writePlates(in dir: String) throws {
        let nx = 61, ny = 41
        var flat = "", bumped = ""
        for j in 0..<ny {
            for i in 0..<nx {
                let x = Double(i - 30), y = Double(j - 20)
                let r2 = (x + 15) * (x + 15) + y * y
                flat += "v \(x) \(y) 0\n"
                bumped += "v \(x) \(y) \(0.5 * exp(-r2 / 32))\n"
            }
        }
        var faces = ""
        for j in 0..<(ny - 1) {
            for i in 0..<(nx - 1) {
                let a = j * nx + i + 1, b = a + 1, c = a + nx, d = c + 1
                faces += "f \(a) \(b) \(d)\nf \(a) \(d) \(c)\n"
            }
        }
        try (flat + faces).write(toFile: dir + "/flat.obj", atomically: false, encoding: .utf8)
        try (bumped + faces).write(toFile: dir + "/bumped.obj", atomically: false, encoding: .utf8)
    }

    /// Counts of mesh-area pixels (the top-left square, the legend's panel a quarter of its side
    /// to its right) that are yellow (top of the scale), left and right of centre.
    func yellowPixels(_ image: RGBAImage) -> (left: Int, right: Int) {
        var left = 0, right = 0
        let size = image.width * 4 / 5
        for y in 0..<size {
            for x in 0..<size {
                let p = image[x, y]
                if p.x > 180 && p.y > 180 && p.z < 90 { if x < size / 2 { left += 1 } else { right += 1 } }
            }
        }
        return (left, right)
    }

    @Test func compareWritesAHeatmapOfTheBump() throws {
        let dir = tempDir()
        try writePlates(in: dir)
        let r = try runFacescan(
            ["compare", "bumped.obj", "flat.obj", "--units", "mm", "--heatmap", "heat.png", "--json"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let max = try #require(r.json?["maxUm"] as? Double)
        #expect(max > 490 && max <= 500.001)  // sampled surface points: near the bump's top
        let image = try PNGEncoder.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/heat.png"))), name: "heat.png")
        #expect(image.width > image.height)
        // Under the mesh, a caption naming the files and the RMS/max: dark text pixels on white.
        let size = image.width * 4 / 5
        #expect(image.height > size)
        var ink = 0
        for y in size..<image.height {
            for x in 0..<image.width where image[x, y].x < 100 { ink += 1 }
        }
        #expect(ink > 500, "\(ink) text pixels under the mesh")
        let yellow = yellowPixels(image)
        #expect(yellow.left > 20 && yellow.right == 0, "\(yellow)")
        // The other way round the bump is still where the surfaces differ (distance to the bump).
        let flatSide = try runFacescan(
            ["compare", "flat.obj", "bumped.obj", "--units", "mm", "--heatmap", "flat.png"], cwd: dir)
        #expect(flatSide.status == 0)
        let img2 = try PNGEncoder.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/flat.png"))), name: "flat.png")
        let y2 = yellowPixels(img2)
        #expect(y2.left > 0 && y2.right == 0, "\(y2)")
        // A heatmap that is not a PNG file name is a usage error, and nothing is written.
        let bad = try runFacescan(
            ["compare", "bumped.obj", "flat.obj", "--units", "mm", "--heatmap", "heat.jpg"], cwd: dir)
        #expect(bad.status == 2 && bad.stderr.contains("--heatmap"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/heat.jpg"))
    }

    /// A copy of the MediaPipe sample, quick in debug builds (its own 468 vertices).
    func sampleCopy() throws -> String {
        let dir = tempDir() + "/mediapipe"
        try FileManager.default.copyItem(atPath: packageRoot + "/samples/mediapipe", toPath: dir)
        for f in ["expected.json", "expected.stl"] { try? FileManager.default.removeItem(atPath: dir + "/" + f) }
        let capture = dir + "/capture.json"
        let text = try String(contentsOfFile: capture, encoding: .utf8)
        try text.replacingOccurrences(of: "\"settings\":{", with: "\"settings\":{\"targetVertexCount\":468,")
            .write(toFile: capture, atomically: false, encoding: .utf8)
        return dir
    }

    @Test func junitJSONAndArtifactsForAFailingSample() throws {
        let dir = try sampleCopy()
        let work = (dir as NSString).deletingLastPathComponent
        #expect(try runFacescan(["regress", dir, "--update"]).status == 0)
        // Passing: JUnit with no failure, JSON says so, no artifacts.
        let ok = try runFacescan([
            "regress", dir, "--junit", work + "/ok.xml", "--json", "--artifacts", work + "/art-ok",
        ])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.json?["failed"] as? Bool == false)
        let okXML = try XMLDocument(contentsOf: URL(fileURLWithPath: work + "/ok.xml"))
        #expect(try okXML.nodes(forXPath: "//failure").isEmpty)
        let okCases = try okXML.nodes(forXPath: "//testcase").count
        #expect(okCases == (ok.json?["tests"] as? Int) && okCases > 10)
        #expect(!FileManager.default.fileExists(atPath: work + "/art-ok"))

        // The last accepted mesh moved by 0.1 mm at one corner: previousErrorUm fails.
        var stl = try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.stl"))
        var x = stl.subdata(in: 96..<100).withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
        x += 0.1
        withUnsafeBytes(of: x) { stl.replaceSubrange(96..<100, with: $0) }
        try stl.write(to: URL(fileURLWithPath: dir + "/expected.stl"))
        let r = try runFacescan([
            "regress", dir, "--junit", work + "/junit.xml", "--json", "--artifacts", work + "/art",
        ])
        #expect(r.status == 1)
        let j = try #require(r.json, "\(r.stdout)")
        #expect(j["failed"] as? Bool == true)
        let results = try #require(j["results"] as? [[String: Any]])
        let failing = results.filter { $0["status"] as? String == "FAIL" }
        #expect(failing.map { $0["metric"] as? String } == ["previousErrorUm"])
        #expect((failing.first?["found"] as? String)?.contains("max") == true)

        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: work + "/junit.xml"))
        #expect(try xml.nodes(forXPath: "//testcase").count == results.count)
        let failures = try xml.nodes(forXPath: "//testcase[failure]")
        #expect(failures.count == 1)
        let failure = try #require(failures.first as? XMLElement)
        #expect(failure.attribute(forName: "classname")?.stringValue == "regress.mediapipe")
        #expect(failure.attribute(forName: "name")?.stringValue == "previousErrorUm")
        let message = try #require(
            (failure.elements(forName: "failure").first)?.attribute(forName: "message")?.stringValue)
        #expect(message.contains("expected max ≤ 1 µm") && message.contains("found rms"), "\(message)")
        let heatmapPath = work + "/art/mediapipe/heatmap.png"
        #expect(failure.elements(forName: "system-out").first?.stringValue == "[[ATTACHMENT|\(heatmapPath)]]")
        #expect((j["artifacts"] as? [String: [String]])?["mediapipe"] == [heatmapPath])
        // The artifacts: the report and a heatmap with the moved corner at the top of its scale.
        let report = try String(contentsOfFile: work + "/art/mediapipe/report.txt", encoding: .utf8)
        #expect(report.split(separator: "\n").contains { $0.hasPrefix("FAIL") && $0.contains("previousErrorUm") })
        let image = try PNGEncoder.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: heatmapPath))), name: heatmapPath)
        #expect(image.width > image.height)
        // Same results, same bytes.
        let again = try runFacescan([
            "regress", dir, "--junit", work + "/junit2.xml", "--artifacts", work + "/art", "--quiet",
        ])
        #expect(again.status == 1)
        #expect(FileManager.default.contentsEqual(atPath: work + "/junit.xml", andPath: work + "/junit2.xml"))
    }
}
