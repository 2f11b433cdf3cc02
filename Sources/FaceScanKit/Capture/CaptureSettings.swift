/// Output size presets of the FaceScanner iOS app: low / medium / high = 5 000 / 10 000 / 20 000 vertices.
public enum Quality: String, Sendable, CaseIterable {
    case low, medium, high
    public var vertexCount: Int {
        switch self {
        case .low: 5_000
        case .medium: 10_000
        case .high: 20_000
        }
    }
}

/// Output length unit. Input is always metres.
public enum LengthUnit: String, Sendable, CaseIterable {
    case mm, m
    /// Factor from metres to this unit.
    public var fromMetres: Double { self == .mm ? 1000 : 1 }
    /// Millimetres per unit.
    public var millimetres: Double { self == .mm ? 1 : 1000 }
}

/// The capture's `settings` object (FORMAT.md), every key optional. `nil` means "not given";
/// ``PipelineOptions`` resolves flags over settings over defaults.
public struct CaptureSettings: Sendable, Equatable {
    public var quality: Quality?
    public var targetVertexCount: Int?
    public var smoothingIterations: Int?
    public var scale: Double?
    public var units: LengthUnit?
    public var exportFormats: [String]?
    public var maxFrames: Int?
    public var minDistance: Double?
    public var maxDistance: Double?
    public var minAmbientIntensity: Double?
    public var maxJawOpen: Double?
    public var maxSmile: Double?
    public var maxBrowInnerUp: Double?
    /// `"solid": true` or `{"thickness": mm, "base": bool}`: close the face into a printable part.
    public var solid: SolidOptions?

    public init() {}
}

/// Thresholds of the quality gate (FORMAT.md "Quality of a frame").
public struct GateThresholds: Sendable, Equatable {
    public var minDistance = 0.3
    public var maxDistance = 0.5
    public var minAmbientIntensity = 500.0
    public var maxJawOpen = 0.4
    public var maxSmile = 0.5
    public var maxBrowInnerUp = 0.5
    public init() {}

    public init(settings s: CaptureSettings) {
        if let v = s.minDistance { minDistance = v }
        if let v = s.maxDistance { maxDistance = v }
        if let v = s.minAmbientIntensity { minAmbientIntensity = v }
        if let v = s.maxJawOpen { maxJawOpen = v }
        if let v = s.maxSmile { maxSmile = v }
        if let v = s.maxBrowInnerUp { maxBrowInnerUp = v }
    }
}
