/// ARKit camera tracking state of a frame.
public enum TrackingState: String, Sendable, CaseIterable {
    case normal, limited, notAvailable
}

/// Why the gate rejected a frame. When several rules fail, the first in this order is counted.
public enum Rejection: String, Sendable, CaseIterable {
    case distance, tracking, lighting, expression
}

/// The per-frame facts the gate judges; `nil` means the capture did not record it (not checked).
public struct FrameMetadata: Sendable, Equatable {
    public var distance: Double?
    public var tracking: TrackingState = .normal
    public var ambientIntensity: Double?
    public var jawOpen: Double?
    public var mouthSmileLeft: Double?
    public var mouthSmileRight: Double?
    public var browInnerUp: Double?
    public init() {}
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
}
