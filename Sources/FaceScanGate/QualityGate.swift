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
    /// An accepted frame in which the eyes closed: "Hold still: you blinked".
    case blinked
    /// An accepted frame with a smile: "Hold still: you smiled".
    case smiled
    /// An accepted frame in which the jaw or lips moved: "Hold still: you moved your mouth".
    case movedMouth
    /// An accepted frame in which the brows moved: "Hold still: you moved your brows".
    case movedBrows

    /// FaceScanner's English instruction for this guidance.
    public var defaultText: String {
        switch self {
        case .tooClose: "Move back — too close"
        case .tooFar: "Move closer"
        case .distanceUnknown: "Face the camera"
        case .keepSteady: "Keep face steady"
        case .needMoreLight: "Need better lighting"
        case .relaxFace: "Relax your face"
        case .blinked: "Hold still: you blinked"
        case .smiled: "Hold still: you smiled"
        case .movedMouth: "Hold still: you moved your mouth"
        case .movedBrows: "Hold still: you moved your brows"
        }
    }

    /// The rejection this guidance answers (the hold-still notices of accepted frames —
    /// ``blinked``, ``smiled``, ``movedMouth``, ``movedBrows`` — are about the expression too,
    /// though their frames are not rejected).
    public var rejection: Rejection {
        switch self {
        case .tooClose, .tooFar, .distanceUnknown: .distance
        case .keepSteady: .tracking
        case .needMoreLight: .lighting
        case .relaxFace, .blinked, .smiled, .movedMouth, .movedBrows: .expression
        }
    }

    /// How far a blend-shape coefficient of an accepted frame may stray from its typical value
    /// (its median over the frames accepted so far) before ``holdStill(_:typical:)`` speaks up:
    /// an eyelid closed this far moves by several millimetres, which the expression model has to
    /// undo from few frames and which costs the average accuracy there.
    public static let holdStillDeviation = 0.3

    /// The hold-still notice for an accepted frame whose `blendShapes` stray from `typical` (each
    /// coefficient's usual value so far; missing ones count as 0) by more than
    /// ``holdStillDeviation``: the coefficient that strays most decides — `eyeBlink…` →
    /// ``blinked``, `mouthSmile…` → ``smiled``, other `jaw…`/`mouth…` → ``movedMouth``, `brow…` →
    /// ``movedBrows``; nil when none strays that far (or only others, such as gaze, do).
    public static func holdStill(_ blendShapes: [String: Double], typical: [String: Double]) -> Guidance? {
        var best: (deviation: Double, name: String, guidance: Guidance)?
        for (name, value) in blendShapes {
            let kind: Guidance
            if name.hasPrefix("eyeBlink") {
                kind = .blinked
            } else if name.hasPrefix("mouthSmile") {
                kind = .smiled
            } else if name.hasPrefix("jaw") || name.hasPrefix("mouth") {
                kind = .movedMouth
            } else if name.hasPrefix("brow") {
                kind = .movedBrows
            } else {
                continue
            }
            let d = abs(value - (typical[name] ?? 0))
            guard d > holdStillDeviation else { continue }
            if let b = best, b.deviation > d || (b.deviation == d && b.name < name) { continue }
            best = (d, name, kind)
        }
        return best?.guidance
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
