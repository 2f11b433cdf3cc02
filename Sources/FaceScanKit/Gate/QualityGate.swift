/// Why the gate rejected a frame. When several rules fail, the first in this order is counted.
public enum Rejection: String, Sendable, CaseIterable {
    case distance, tracking, lighting, expression
}

/// FORMAT.md's frame quality rules, as the FaceScanner iOS app judges frames live.
///
/// poor (distance outside [minDistance, maxDistance] or tracking not normal) → rejected;
/// fair (light at or below minAmbientIntensity) → rejected; good with a neutral expression
/// (jawOpen < maxJawOpen, mean smile < maxSmile, browInnerUp < maxBrowInnerUp) → accepted.
/// Missing blend shapes count as 0; a missing distance or light is not checked.
public struct QualityGate: Sendable, Equatable {
    public var thresholds: GateThresholds

    public init(thresholds: GateThresholds = GateThresholds()) { self.thresholds = thresholds }

    /// nil when the frame is accepted, else the first failing reason.
    public func judge(_ f: FrameMetadata) -> Rejection? {
        let t = thresholds
        if let d = f.distance, !(d >= t.minDistance && d <= t.maxDistance) { return .distance }
        if f.tracking != .normal { return .tracking }
        if let light = f.ambientIntensity, !(light > t.minAmbientIntensity) { return .lighting }
        let smile = ((f.mouthSmileLeft ?? 0) + (f.mouthSmileRight ?? 0)) / 2
        if (f.jawOpen ?? 0) >= t.maxJawOpen || smile >= t.maxSmile || (f.browInnerUp ?? 0) >= t.maxBrowInnerUp {
            return .expression
        }
        return nil
    }

    /// The short instruction the FaceScanner app shows for a frame the gate rejected for
    /// `reason`: "Move back — too close" or "Move closer" (distance), "Keep face steady"
    /// (tracking), "Need better lighting", "Relax your face" (expression).
    public func instruction(for reason: Rejection, _ f: FrameMetadata) -> String {
        switch reason {
        case .distance:
            // Below the range (or not a number): too close. Above it: too far.
            if let d = f.distance, d > thresholds.maxDistance { return "Move closer" }
            return "Move back — too close"
        case .tracking: return "Keep face steady"
        case .lighting: return "Need better lighting"
        case .expression: return "Relax your face"
        }
    }
}
