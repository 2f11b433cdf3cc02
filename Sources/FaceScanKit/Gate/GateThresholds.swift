/// Thresholds of the quality gate (FORMAT.md "Quality of a frame"): metres, lumens, blend-shape
/// coefficients. The defaults are FORMAT.md's. Any value can be stored; ``validate()`` (which
/// ``FaceScanSession`` calls through ``ScanSettings/validate()``) refuses NaN, negative or
/// infinite values and an inverted distance range.
public struct GateThresholds: Sendable, Hashable, Codable {
    /// A frame is accepted from `minDistance` to `maxDistance` metres from the camera.
    public var minDistance: Double
    /// The far end of the accepted distance range, metres (at least ``minDistance``).
    public var maxDistance: Double
    /// A frame needs more light than this (ARKit's ambient intensity, lumens).
    public var minAmbientIntensity: Double
    /// Expression limit: `jawOpen` must stay below this.
    public var maxJawOpen: Double
    /// Expression limit: the mean of `mouthSmileLeft` and `mouthSmileRight` must stay below this.
    public var maxSmile: Double
    /// Expression limit: `browInnerUp` must stay below this.
    public var maxBrowInnerUp: Double

    /// Thresholds with FORMAT.md's defaults for whatever is not given (not checked here).
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

    /// Checks every threshold: finite and 0 or more, and `minDistance ≤ maxDistance`.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first threshold out of range, e.g.
    ///   `GateThresholds.maxDistance must be at least minDistance (0.3), found 0.2`.
    public func validate() throws(FaceScanError) {
        do throws(UsageError) { try check(prefix: "GateThresholds.") } catch { throw .badSetting(error) }
    }

    /// ``validate()`` with the narrow error; `prefix` names the thresholds in messages.
    func check(prefix: String) throws(UsageError) {
        let fields: [(String, Double)] = [
            ("minDistance", minDistance), ("maxDistance", maxDistance), ("minAmbientIntensity", minAmbientIntensity),
            ("maxJawOpen", maxJawOpen), ("maxSmile", maxSmile), ("maxBrowInnerUp", maxBrowInnerUp),
        ]
        for (name, value) in fields where !(value >= 0 && value.isFinite) {
            throw UsageError("\(prefix)\(name) must be finite and 0 or more, found \(value)", field: prefix + name)
        }
        guard minDistance <= maxDistance else {
            throw UsageError(
                "\(prefix)maxDistance must be at least minDistance (\(minDistance)), found \(maxDistance)",
                field: prefix + "maxDistance")
        }
    }
}
