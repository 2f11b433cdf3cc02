import Foundation
import Testing

@testable import FaceScanKit

/// The settings' rules, stated once (ScanSettings.check), in the API's words for an app and in
/// the capture's words for a capture's settings.
@Suite struct SettingsRulesTests {
    static func field(_ settings: ScanSettings) -> String? {
        do throws(FaceScanError) {
            try settings.validate()
            return nil
        } catch {
            guard case .badSetting(let e) = error else { return "?" }
            return e.field
        }
    }

    @Test func theAPINamesItsProperties() {
        #expect(Self.field(ScanSettings(scale: 2e6)) == "ScanSettings.scale")
        #expect(Self.field(ScanSettings(scale: ScanSettings.maximumScale)) == nil)
        #expect(Self.field(ScanSettings(smoothing: .passes(1001))) == "ScanSettings.smoothing")
        #expect(Self.field(ScanSettings(gate: GateThresholds(maxJawOpen: 1.5))) == "ScanSettings.gate.maxJawOpen")
        #expect(Self.field(ScanSettings(solid: SolidOptions(fitMargin: 500))) == "ScanSettings.solid.fitMargin")
        var s = ScanSettings()
        (s.gate.minDistance, s.gate.maxDistance) = (0.6, 0.2)
        do throws(FaceScanError) {
            try s.validate()
            Issue.record("an inverted range passed")
        } catch {
            #expect(
                "\(error)"
                    == "ScanSettings.gate.maxDistance must be at least ScanSettings.gate.minDistance (0.6), found 0.2")
        }
    }

    /// A capture processed in memory: its settings are named by the capture and the key.
    @Test func aCapturesSettingsNameTheCaptureAndTheKey() throws {
        let base = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../FacescanCLITests/BadInputs/base.json"))
        var root = try JSONSerialization.jsonObject(with: base) as? [String: Any] ?? [:]
        root["settings"] = ["minDistance": 0.6, "maxDistance": 0.2, "scale": 3]
        let bytes = try JSONSerialization.data(withJSONObject: root)
        do throws(FaceScanError) {
            _ = try FaceScan.process(capture: bytes, name: "face.json")
            Issue.record("an inverted range passed")
        } catch {
            guard case .badInput(let e) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(e.file == "face.json" && e.field == "settings.maxDistance")
            #expect(!"\(error)".contains("ScanSettings"), "\(error)")
        }
    }

    /// Options alone (before a capture is read) are checked by the same rules, named as the caller says.
    @Test func optionsAreNamedByTheirCaller() {
        var o = PipelineOptions()
        o.scale = 2e6
        o.optionNames = ["scale": "--scale"]
        #expect(throws: UsageError("--scale must be positive and at most 1e6, found 2000000.0", field: "--scale")) {
            try ScanSettings.check(o)
        }
        o.optionNames = [:]
        #expect(throws: UsageError.self) { try ScanSettings.check(o) }
        o.scale = 1e6
        #expect(throws: Never.self) { try ScanSettings.check(o) }
    }

    /// Flags and a capture's settings are merged, then validated: an option replaces a capture's
    /// value, but a capture's own value out of range is its file's bad input even where an
    /// option replaces it; a value the merge keeps is named as the capture wrote it, a rule
    /// between the two blames the one given last.
    @Test func mergedThenValidatedOnce() throws {
        var o = PipelineOptions()
        o.scale = 2
        o.optionNames = ["scale": "--scale", "gate.minDistance": "--min-distance"]
        let v = try ScanSettings.validated(options: o, capture: CaptureSettings(scale: 3), file: "c.json")
        #expect(v.scale == 2 && v.settings.scale == 2)
        #expect(
            throws: FaceScanError.badInput(
                InputError(
                    file: "c.json", field: "settings.scale", "scale must be positive and at most 1e6, found -1.0"))
        ) {
            try ScanSettings.validated(options: o, capture: CaptureSettings(scale: -1), file: "c.json")
        }
        o.scale = nil
        #expect(
            throws: FaceScanError.badInput(
                InputError(
                    file: "c.json", field: "settings.scale", "scale must be positive and at most 1e6, found -1.0"))
        ) {
            try ScanSettings.validated(options: o, capture: CaptureSettings(scale: -1), file: "c.json")
        }
        o.gate.minDistance = 0.45
        var s = CaptureSettings()
        s.gate.maxDistance = 0.4
        #expect(
            throws: FaceScanError.badSetting(
                UsageError("--min-distance must be at most maxDistance (0.4), found 0.45", field: "--min-distance"))
        ) {
            try ScanSettings.validated(options: o, capture: s, file: "c.json")
        }
    }

    /// The solid's ranges and the smoothing passes are stated once (SolidOptions.check,
    /// ScanSettings.check): a capture's values are refused by them, named by the capture's key.
    @Test func aCapturesSolidAndSmoothingMeetTheOneRule() {
        let cases: [(CaptureSettings, String)] = [
            (CaptureSettings(solid: SolidOptions(thickness: -2)), "settings.solid.thickness"),
            (CaptureSettings(solid: SolidOptions(depth: 0)), "settings.solid.depth"),
            (CaptureSettings(smoothing: .passes(-1)), "settings.smoothingIterations"),
        ]
        for (settings, field) in cases {
            do throws(FaceScanError) {
                _ = try ScanSettings.validated(options: PipelineOptions(), capture: settings, file: "c.json")
                Issue.record("\(field) passed")
            } catch {
                guard case .badInput(let e) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(e.file == "c.json" && e.field == field, "\(e)")
            }
        }
    }

    /// Format names are read by one parser (FileFormat.named), aliases included, on every route.
    @Test func formatNamesAreReadByOneParser() throws {
        #expect(OutputFormat(name: " COLLADA ") == .dae)
        #expect(OutputFormat(name: "glb2") == .glb)
        #expect(OutputFormat(name: "off") == nil && OutputFormat(name: "gltf") == nil)
        var o = PipelineOptions()
        o.formats = ["STL", "collada"]
        #expect(try o.outputFormats() == [.stl, .dae])
        o.formats = ["stl", "xyz"]
        #expect(throws: UsageError.self) { try o.outputFormats() }
    }

    /// An error's frame and field are composed in one place: the frame given wins, a field
    /// already named is kept.
    @Test func anErrorIsPlacedOnce() {
        let inner = InputError(file: "c.json", field: "vertices", "bad")
        #expect(inner.at(frame: 3, field: "frames") == InputError(file: "c.json", frame: 3, field: "vertices", "bad"))
        #expect(InputError(file: "c.json", "bad").at(field: "settings.scale").field == "settings.scale")
    }
}
