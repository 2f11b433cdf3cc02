import Foundation
import Testing

/// Gate thresholds as flags override the capture's settings.
@Suite struct GateFlagsCLITests {
    static func frames(_ args: [String]) throws -> (status: Int32, frames: [String: Any]) {
        let sample = packageRoot + "/samples/ict-neutral/capture.json"
        // Three runs of process: the release binary when make test built it.
        let r = try SlicerTests.facescan(
            ["process", sample, "--output-dir", tempDir(), "--formats", "stl", "-n", "2000", "--json", "--quiet"] + args
        )
        let json = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]
        return (r.status, json?["frames"] as? [String: Any] ?? [:])
    }

    @Test func thresholdsFromFlags() throws {
        let plain = try Self.frames([])
        #expect(plain.status == 0)
        let plainRejected = plain.frames["rejected"] as? [String: Int] ?? [:]
        // No light is enough: every frame with a light estimate is rejected for lighting (a frame
        // without one is not checked, FORMAT.md).
        let dark = try Self.frames(["--min-light", "1e9"])
        let darkRejected = dark.frames["rejected"] as? [String: Int] ?? [:]
        #expect((dark.frames["accepted"] as? Int ?? 99) < (plain.frames["accepted"] as? Int ?? 0))
        #expect((darkRejected["lighting"] ?? 0) > (plainRejected["lighting"] ?? 0))
        // A narrower distance window rejects more for distance.
        let near = try Self.frames(["--max-distance", "0.31"])
        let nearRejected = near.frames["rejected"] as? [String: Int] ?? [:]
        #expect((nearRejected["distance"] ?? 0) > (plainRejected["distance"] ?? 0))
        // Bad values are usage errors (exit 64 or ArgumentParser's validation exit).
        let bad = try runFacescan(["process", packageRoot + "/samples/ict-neutral/capture.json", "--max-jaw-open", "2"])
        #expect(bad.status != 0 && bad.stderr.contains("--max-jaw-open"))
    }
}

extension GateFlagsCLITests {
    /// Exit 3 names the reason that rejected most frames and the option that relaxes it.
    @Test func noAcceptedFrameNamesTheWayOut() throws {
        let dir = tempDir()
        let far = goodMeta.replacingOccurrences(of: "-0.4,1]", with: "-0.9,1]")
        let dark = goodMeta.replacingOccurrences(of: "\"ambientIntensity\":900", with: "\"ambientIntensity\":10")
        try smallCapture(frames: [far, far, dark]).write(toFile: dir + "/far.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/far.json", "-o", dir + "/o"])
        expectOneLine(r, status: 3, "no frame passed the quality gate", "distance", "--max-distance")
        try smallCapture(frames: [dark, dark, far]).write(
            toFile: dir + "/dark.json", atomically: false, encoding: .utf8)
        let d = try runFacescan(["process", dir + "/dark.json", "-o", dir + "/o"])
        expectOneLine(d, status: 3, "most were rejected for lighting", "--min-light")
        let b = try runFacescan(["batch", dir + "/dark.json", "-o", dir + "/o"])
        #expect(b.status == 3 && b.stdout.contains("--min-light"), "\(b.stdout)")
    }
}
