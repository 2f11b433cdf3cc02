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
}
