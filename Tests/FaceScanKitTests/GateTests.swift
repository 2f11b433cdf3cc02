import Foundation
import Testing

@testable import FaceScanKit

@Suite struct GateTests {
    func meta(
        distance: Double? = 0.4, tracking: TrackingState = .normal, light: Double? = 1000,
        jaw: Double? = nil, smile: (Double, Double)? = nil, brow: Double? = nil
    ) -> FrameMetadata {
        var m = FrameMetadata()
        m.distance = distance
        m.tracking = tracking
        m.ambientIntensity = light
        m.jawOpen = jaw
        m.mouthSmileLeft = smile?.0
        m.mouthSmileRight = smile?.1
        m.browInnerUp = brow
        return m
    }

    @Test func decisions() {
        let g = QualityGate()
        #expect(g.judge(meta()) == nil)
        #expect(g.judge(meta(distance: nil, light: nil)) == nil)  // not recorded: not checked
        #expect(g.judge(meta(distance: 0.3)) == nil)  // bounds inclusive
        #expect(g.judge(meta(distance: 0.5)) == nil)
        #expect(g.judge(meta(distance: 0.29)) == .distance)
        #expect(g.judge(meta(distance: 0.51)) == .distance)
        #expect(g.judge(meta(tracking: .limited)) == .tracking)
        #expect(g.judge(meta(tracking: .notAvailable)) == .tracking)
        #expect(g.judge(meta(light: 500)) == .lighting)  // must be above 500
        #expect(g.judge(meta(light: 500.1)) == nil)
        #expect(g.judge(meta(jaw: 0.39)) == nil)
        #expect(g.judge(meta(jaw: 0.4)) == .expression)
        #expect(g.judge(meta(smile: (0.9, 0.05))) == nil)  // mean 0.475
        #expect(g.judge(meta(smile: (0.6, 0.4))) == .expression)  // mean 0.5
        #expect(g.judge(meta(brow: 0.5)) == .expression)
        // First failing rule wins: distance, tracking, lighting, expression.
        #expect(g.judge(meta(distance: 0.9, tracking: .limited, light: 10, jaw: 1)) == .distance)
        #expect(g.judge(meta(tracking: .limited, light: 10, jaw: 1)) == .tracking)
        #expect(g.judge(meta(light: 10, jaw: 1)) == .lighting)
    }

    @Test func settingsMoveThresholds() {
        var s = CaptureSettings()
        s.gate.maxDistance = 0.8
        s.gate.minAmbientIntensity = 100
        s.gate.maxJawOpen = 0.9
        let g = QualityGate(thresholds: GateThresholds(settings: s))
        #expect(g.judge(meta(distance: 0.7, light: 200, jaw: 0.5)) == nil)
    }
}
