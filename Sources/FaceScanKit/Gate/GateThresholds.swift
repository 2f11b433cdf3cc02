/// Thresholds of the quality gate (FORMAT.md "Quality of a frame"): metres, lumens, blend-shape
/// coefficients. The defaults are FORMAT.md's.
public struct GateThresholds: Sendable, Equatable {
    /// A frame is accepted from `minDistance` to `maxDistance` metres from the camera.
    public var minDistance: Double
    public var maxDistance: Double
    /// A frame needs more light than this (ARKit's ambient intensity, lumens).
    public var minAmbientIntensity: Double
    /// Expression limits: `jawOpen`, the mean of the two smiles and `browInnerUp` must stay below these.
    public var maxJawOpen: Double
    public var maxSmile: Double
    public var maxBrowInnerUp: Double

    public init(
        minDistance: Double = 0.3, maxDistance: Double = 0.5, minAmbientIntensity: Double = 500,
        maxJawOpen: Double = 0.4, maxSmile: Double = 0.5, maxBrowInnerUp: Double = 0.5
    ) {
        self.minDistance = minDistance
        self.maxDistance = maxDistance
        self.minAmbientIntensity = minAmbientIntensity
        self.maxJawOpen = maxJawOpen
        self.maxSmile = maxSmile
        self.maxBrowInnerUp = maxBrowInnerUp
    }
}
