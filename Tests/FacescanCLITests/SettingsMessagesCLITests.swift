import Foundation
import Testing

/// A setting out of range is refused in the words of whoever gave it, by the one set of rules
/// (ScanSettings): a capture's settings name the file and the key as the file spells it, flags
/// name the flag; no message names a Swift type; the ranges agree on every route.
@Suite struct SettingsMessagesCLITests {
    /// The small capture of BadInputs/base.json with `settings` in place of its own.
    static func capture(_ settings: [String: Any], in dir: String, name: String = "capture.json") throws -> String {
        let base = try Data(contentsOf: URL(fileURLWithPath: badInputDirectory + "/base.json"))
        var root = try JSONSerialization.jsonObject(with: base) as? [String: Any] ?? [:]
        root["settings"] = settings
        let path = dir + "/" + name
        try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `process` and checks the one-line refusal (exit 2) that holds every `part` and no type name.
    static func expectRefusal(_ args: [String], _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let r = try runFacescan(["process"] + args)
        #expect(r.status == 2, "\(args): exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(
            r.stderr.hasPrefix("facescan: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)",
            sourceLocation: sourceLocation)
        for part in parts {
            #expect(r.stderr.contains(part), "\(args): no '\(part)' in \(r.stderr)", sourceLocation: sourceLocation)
        }
        for type in ["ScanSettings", "GateThresholds", "PipelineOptions", "SolidOptions", "CaptureSettings"] {
            #expect(!r.stderr.contains(type), "\(args): names \(type): \(r.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func captureSettingsNameTheFileAndTheKey() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = ["--output-dir", dir + "/out"]
        let inverted = try Self.capture(["minDistance": 0.6, "maxDistance": 0.2], in: dir, name: "inverted.json")
        try Self.expectRefusal(
            [inverted] + out,
            [inverted, "field 'settings.maxDistance'", "maxDistance must be at least minDistance (0.6)"])
        // Against the default far end, the near end given is blamed.
        let far = try Self.capture(["minDistance": 1e308], in: dir, name: "far.json")
        try Self.expectRefusal([far] + out, [far, "field 'settings.minDistance'", "the default maxDistance"])
        // The key as the file spells it (targetVertexCount, not the API's targetVertices).
        let target = try Self.capture(["targetVertexCount": 3], in: dir, name: "target.json")
        try Self.expectRefusal(
            [target] + out, [target, "field 'settings.targetVertexCount'", "targetVertexCount must"])
        let smoothing = try Self.capture(["smoothingIterations": -1], in: dir, name: "smoothing.json")
        try Self.expectRefusal([smoothing] + out, [smoothing, "field 'settings.smoothingIterations'"])
    }

    @Test func flagsNameTheFlag() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Self.capture([:], in: dir)
        let out = ["--output-dir", dir + "/out"]
        try Self.expectRefusal(
            [plain, "--min-distance", "0.6", "--max-distance", "0.2"] + out,
            ["--max-distance must be at least --min-distance (0.6)"])
        // Against the default: the flag given is blamed.
        try Self.expectRefusal(
            [plain, "--min-distance", "0.6"] + out, ["--min-distance must be at most the default maxDistance (0.5)"])
        // A flag against the capture's value: the flag (given last) is blamed.
        let near = try Self.capture(["maxDistance": 0.4], in: dir, name: "near.json")
        try Self.expectRefusal([near, "--min-distance", "0.45"] + out, ["--min-distance must be at most maxDistance"])
        try Self.expectRefusal([plain, "--max-frames", "0"] + out, ["--max-frames must be at least 1"])
    }

    /// The same limits on all three routes: a capture, a flag (and the library, SettingsRulesTests).
    @Test func rangesAgree() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Self.capture([:], in: dir)
        let out = ["--output-dir", dir + "/out"]
        let cases: [(key: String, flag: String, bad: Double, good: Double)] = [
            ("scale", "--scale", 2e6, 1e6), ("maxJawOpen", "--max-jaw-open", 1.5, 1),
            ("smoothingIterations", "--smoothing", 1001, 1000),
            ("targetVertexCount", "--target-vertices", 500_001, 100),
        ]
        for c in cases {
            let file = try Self.capture([c.key: c.bad], in: dir, name: "\(c.key).json")
            try Self.expectRefusal([file] + out, [file, "field 'settings.\(c.key)'"])
            let flagValue = c.bad == c.bad.rounded() ? String(Int(c.bad)) : String(c.bad)
            try Self.expectRefusal([plain, c.flag, flagValue] + out, [c.flag])
            // A value inside the range passes (the scale, expression and smoothing limits themselves).
            let ok = try Self.capture([c.key: c.good], in: dir, name: "ok-\(c.key).json")
            let r = try runFacescan(["process", ok, "--formats", "stl", "--quiet", "-n", "100"] + out)
            #expect(r.status == 0, "\(c.key) \(c.good): \(r.stderr)")
        }
    }

    /// A format name is parsed once, where it is read: `--formats` by the flag, a capture's
    /// `exportFormats` at its place in the file.
    @Test func unknownFormatsAreRefusedWhereParsed() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Self.capture([:], in: dir)
        try Self.expectRefusal(
            [plain, "--formats", "stl,objx", "--output-dir", dir], ["'objx'", "did you mean 'obj'"])
        let listed = try Self.capture(["exportFormats": ["stl", "xyz"]], in: dir, name: "listed.json")
        try Self.expectRefusal(
            [listed, "--formats", "stl", "--output-dir", dir], [listed, "field 'settings.exportFormats'", "\"xyz\""])
        // Names are case-blind and repeats dropped: one file each.
        let r = try runFacescan(["process", plain, "--formats", "STL, obj,stl", "-q", "--output-dir", dir + "/o"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            Set((try? FileManager.default.contentsOfDirectory(atPath: dir + "/o")) ?? []) == [
                "capture.stl", "capture.obj",
            ])
    }
}

extension SettingsMessagesCLITests {
    /// `"maxFrames": 0x10` names the setting, not just `settings`.
    @Test func hexInASettingNamesTheSetting() throws {
        let dir = tempDir()
        let text = smallCapture(frames: [goodMeta]).replacingOccurrences(
            of: "\"version\":1,", with: "\"version\":1,\"settings\":{\"maxFrames\": 0x10},")
        try text.write(toFile: dir + "/hex.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/hex.json", "-o", dir + "/o"])
        expectOneLine(r, status: 2, "hex.json", "field 'settings.maxFrames'")
    }
}
