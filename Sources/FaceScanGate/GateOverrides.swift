/// Quality-gate thresholds given by a capture's settings (``CaptureSettings/gate``) or by a run's
/// options (``PipelineOptions/gate``), each nil where not given. A run's thresholds are FORMAT.md's
/// defaults, then the capture's, then the options' (``applied(to:)``). Units as in
/// ``GateThresholds``: metres, lumens, blend-shape coefficients.
public struct GateOverrides: Sendable, Hashable, Codable {
    /// Nearest accepted camera distance, metres.
    public var minDistance: Double?
    /// Farthest accepted camera distance, metres.
    public var maxDistance: Double?
    /// Least accepted ambient light, lumens.
    public var minAmbientIntensity: Double?
    /// `jawOpen` must stay below this (0…1).
    public var maxJawOpen: Double?
    /// The mean of `mouthSmileLeft` and `mouthSmileRight` must stay below this (0…1).
    public var maxSmile: Double?
    /// `browInnerUp` must stay below this (0…1).
    public var maxBrowInnerUp: Double?

    /// Overrides of the given thresholds; every one left out is nil (not given).
    public init(
        minDistance: Double? = nil, maxDistance: Double? = nil, minAmbientIntensity: Double? = nil,
        maxJawOpen: Double? = nil, maxSmile: Double? = nil, maxBrowInnerUp: Double? = nil
    ) {
        (self.minDistance, self.maxDistance, self.minAmbientIntensity) = (minDistance, maxDistance, minAmbientIntensity)
        (self.maxJawOpen, self.maxSmile, self.maxBrowInnerUp) = (maxJawOpen, maxSmile, maxBrowInnerUp)
    }

    /// `thresholds` with every threshold given here in its place.
    public func applied(to thresholds: GateThresholds) -> GateThresholds {
        var t = thresholds
        for (_, given, target) in Self.fields {
            if let v = self[keyPath: given] { t[keyPath: target] = v }
        }
        return t
    }

    /// Each threshold: its key in a capture's settings (FORMAT.md), where it is given here, and
    /// where it goes in ``GateThresholds``.
    package static var fields:
        [(key: String, given: WritableKeyPath<GateOverrides, Double?>, target: WritableKeyPath<GateThresholds, Double>)]
    {
        [
            ("minDistance", \.minDistance, \.minDistance), ("maxDistance", \.maxDistance, \.maxDistance),
            ("minAmbientIntensity", \.minAmbientIntensity, \.minAmbientIntensity),
            ("maxJawOpen", \.maxJawOpen, \.maxJawOpen), ("maxSmile", \.maxSmile, \.maxSmile),
            ("maxBrowInnerUp", \.maxBrowInnerUp, \.maxBrowInnerUp),
        ]
    }
}
