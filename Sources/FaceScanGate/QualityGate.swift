import FaceScanCapture

/// Why the gate rejected a frame. When several rules fail, the first in this order is counted.
public enum Rejection: String, Sendable, Hashable, Codable, CaseIterable {
    /// The face is outside the accepted distance range (or its distance is not a number).
    case distance
    /// ARKit's tracking is not normal.
    case tracking
    /// Too little light.
    case lighting
    /// The expression is not neutral (jaw open, smile or raised brows).
    case expression
}

/// What to tell the user about a rejected frame: an enum an app can switch over for its own
/// (localized) text, with FaceScanner's English strings as ``defaultText``.
public enum Guidance: String, Sendable, Hashable, Codable, CaseIterable {
    /// Distance below the range: "Move back — too close".
    case tooClose
    /// Distance above the range: "Move closer".
    case tooFar
    /// The distance is not a number (no usable depth): "Face the camera".
    case distanceUnknown
    /// Tracking not normal: "Keep face steady".
    case keepSteady
    /// Too little light: "Need better lighting".
    case needMoreLight
    /// Expression not neutral: "Relax your face".
    case relaxFace

    /// FaceScanner's English instruction for this guidance.
    public var defaultText: String {
        switch self {
        case .tooClose: "Move back — too close"
        case .tooFar: "Move closer"
        case .distanceUnknown: "Face the camera"
        case .keepSteady: "Keep face steady"
        case .needMoreLight: "Need better lighting"
        case .relaxFace: "Relax your face"
        }
    }

    /// The rejection this guidance answers.
    public var rejection: Rejection {
        switch self {
        case .tooClose, .tooFar, .distanceUnknown: .distance
        case .keepSteady: .tracking
        case .needMoreLight: .lighting
        case .relaxFace: .expression
        }
    }
}

/// FORMAT.md's frame quality rules, as the FaceScanner iOS app judges frames live.
///
/// poor (distance outside [minDistance, maxDistance] or tracking not normal) → rejected;
/// fair (light at or below minAmbientIntensity) → rejected; good with a neutral expression
/// (jawOpen < maxJawOpen, mean smile < maxSmile, browInnerUp < maxBrowInnerUp) → accepted.
/// Missing blend shapes count as 0; a missing distance or light is not checked. A value that is
/// not a number fails its rule.
public struct QualityGate: Sendable, Hashable, Codable {
    /// The thresholds the rules use.
    public var thresholds: GateThresholds

    /// A gate with `thresholds` (FORMAT.md's by default).
    public init(thresholds: GateThresholds = GateThresholds()) { self.thresholds = thresholds }

    /// nil when the frame is accepted, else the first failing reason.
    public func judge(_ f: FrameMetadata) -> Rejection? {
        let t = thresholds
        if let d = f.distance, !(d >= t.minDistance && d <= t.maxDistance) { return .distance }
        if f.tracking != .normal { return .tracking }
        if let light = f.ambientIntensity, !(light > t.minAmbientIntensity) { return .lighting }
        let smile = ((f.mouthSmileLeft ?? 0) + (f.mouthSmileRight ?? 0)) / 2
        if !((f.jawOpen ?? 0) < t.maxJawOpen) || !(smile < t.maxSmile) || !((f.browInnerUp ?? 0) < t.maxBrowInnerUp) {
            return .expression
        }
        return nil
    }

    /// What to tell the user about a frame rejected for `reason`: for a distance, whether the
    /// face is too close (below the range), too far (above it) or its distance unknown (NaN).
    public func guidance(for reason: Rejection, _ f: FrameMetadata) -> Guidance {
        switch reason {
        case .distance:
            guard let d = f.distance, !d.isNaN else { return .distanceUnknown }
            return d > thresholds.maxDistance ? .tooFar : .tooClose
        case .tracking: return .keepSteady
        case .lighting: return .needMoreLight
        case .expression: return .relaxFace
        }
    }

    /// The short instruction the FaceScanner app shows for a frame the gate rejected for
    /// `reason`: ``Guidance/defaultText`` of ``guidance(for:_:)``.
    public func instruction(for reason: Rejection, _ f: FrameMetadata) -> String {
        guidance(for: reason, f).defaultText
    }
}
