import Foundation
import Testing

@Suite(.serialized) struct RegressCLITests {
    /// A copy of the small MediaPipe sample in a temporary directory.
    func sampleCopy() throws -> String {
        let dir = tempDir() + "/mediapipe"
        try FileManager.default.copyItem(atPath: packageRoot + "/samples/mediapipe", toPath: dir)
        for f in ["expected.json", "expected.stl"] { try? FileManager.default.removeItem(atPath: dir + "/" + f) }
        // Keep the run quick in debug builds: no refinement, the input's own 468 vertices.
        let capture = dir + "/capture.json"
        let text = try String(contentsOfFile: capture, encoding: .utf8)
        let quick = text.replacingOccurrences(of: "\"settings\":{", with: "\"settings\":{\"targetVertexCount\":468,")
        #expect(quick != text)
        try quick.write(toFile: capture, atomically: false, encoding: .utf8)
        return dir
    }

    @Test func passesAfterUpdateAndFailsWhenOutputsChange() throws {
        let dir = try sampleCopy()
        // No expected files yet: FAIL.
        let missing = try runFacescan(["regress", dir])
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("FAIL"))
        let up = try runFacescan(["regress", dir, "--update"])
        #expect(up.status == 0, "\(up.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/expected.json"))
        let again = try runFacescan(["regress", dir])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(!again.stdout.contains("FAIL") && again.stdout.contains("PASS"))
        #expect(again.stdout.contains("sha256.stl"))
        let original = try String(contentsOfFile: dir + "/expected.json", encoding: .utf8)

        // Only an output's bytes differ: reported as CHANGED, exit 1 (0 with --allow-changed).
        let hash = try #require(original.range(of: "\"stl\":\""))
        var changed = original
        let at = changed.index(hash.upperBound, offsetBy: 0)
        changed.replaceSubrange(at...at, with: changed[at] == "0" ? "1" : "0")
        try changed.write(toFile: dir + "/expected.json", atomically: false, encoding: .utf8)
        let c = try runFacescan(["regress", dir])
        #expect(c.status == 1)
        #expect(c.stdout.contains("CHANGED") && c.stdout.contains("sha256.stl"))
        #expect(try runFacescan(["regress", dir, "--allow-changed"]).status == 0)

        // A metric moves (the expected vertex count): FAIL.
        let count = try #require(original.firstMatch(of: /"outputVertices":(\d+)/))
        let fewer = original.replacingOccurrences(of: String(count.0), with: "\"outputVertices\":\(Int(count.1)! - 1)")
        #expect(fewer != original)
        try fewer.write(toFile: dir + "/expected.json", atomically: false, encoding: .utf8)
        let f = try runFacescan(["regress", dir])
        #expect(f.status == 1)
        #expect(f.stdout.split(separator: "\n").contains { $0.hasPrefix("FAIL") && $0.contains("outputVertices") })

        // The last accepted mesh moved: the distance to it fails.
        try original.write(toFile: dir + "/expected.json", atomically: false, encoding: .utf8)
        var stl = try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.stl"))
        // Shift the first facet's first corner by 0.1 mm along x.
        var x = stl.subdata(in: 96..<100).withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
        x += 0.1
        withUnsafeBytes(of: x) { stl.replaceSubrange(96..<100, with: $0) }
        try stl.write(to: URL(fileURLWithPath: dir + "/expected.stl"))
        let moved = try runFacescan(["regress", dir])
        #expect(moved.status == 1)
        #expect(
            moved.stdout.split(separator: "\n").contains { $0.hasPrefix("FAIL") && $0.contains("previousErrorUm") },
            "\(moved.stdout)")
    }
}
