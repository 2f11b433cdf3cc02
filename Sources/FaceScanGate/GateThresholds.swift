import FaceScanCore

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

    /// Checks every threshold: distances and light finite and 0 or more, the expression limits
    /// (blend-shape coefficients) from 0 to 1, and `minDistance ≤ maxDistance`.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first threshold out of range, e.g.
    ///   `GateThresholds.maxDistance must be at least GateThresholds.minDistance (0.3), found 0.2`.
    public func validate() throws(FaceScanError) {
        try lift { () throws(UsageError) in try check(SettingNames(name: { "GateThresholds." + $0 })) }
    }

    /// ``validate()`` with the narrow error, each threshold named by `names`.
    package func check(_ names: SettingNames) throws(UsageError) {
        let fields: [(String, Double, ClosedRange<Double>?)] = [
            ("minDistance", minDistance, nil), ("maxDistance", maxDistance, nil),
            ("minAmbientIntensity", minAmbientIntensity, nil), ("maxJawOpen", maxJawOpen, 0...1),
            ("maxSmile", maxSmile, 0...1), ("maxBrowInnerUp", maxBrowInnerUp, 0...1),
        ]
        for (path, value, range) in fields where names.checks(path) {
            if let range, !range.contains(value) {
                throw UsageError(
                    "\(names.name(path)) must be from 0 to 1, found \(value)", field: names.fieldName(path))
            }
            guard value >= 0 && value.isFinite else {
                throw UsageError(
                    "\(names.name(path)) must be finite and 0 or more, found \(value)", field: names.fieldName(path))
            }
        }
        // An inverted range blames the end given last (options over settings over defaults; both
        // alike: the far end).
        guard minDistance <= maxDistance || !names.checks("minDistance") || !names.checks("maxDistance") else {
            let (min, max) = ("minDistance", "maxDistance")
            if names.rank(max) >= names.rank(min) {
                throw UsageError(
                    "\(names.name(max)) must be at least \(names.name(min)) (\(minDistance)), found \(maxDistance)",
                    field: names.fieldName(max))
            }
            throw UsageError(
                "\(names.name(min)) must be at most \(names.name(max)) (\(maxDistance)), found \(minDistance)",
                field: names.fieldName(min))
        }
    }
}
