/// Everything a scan uses, with FORMAT.md's defaults: the gate, how many frames, the smoothing
/// and averaging tuning, the output size, unit and scale, and whether to close the face into a
/// solid. `ScanSettings()` is what `facescan process` does for a capture without settings.
public struct ScanSettings: Sendable, Equatable {
    /// Quality-gate thresholds (distance, light, expression).
    public var gate: GateThresholds
    /// The scan is complete after this many accepted frames.
    public var maxFrames: Int
    /// Vertices of the output mesh, exactly (``Quality/vertexCount`` gives the app's presets).
    public var targetVertices: Int
    /// Smoothing passes, or ``autoSmoothing`` to choose them from the estimated noise.
    public var smoothingIterations: Int
    /// `smoothingIterations: "auto"` / `--smoothing auto`: chosen from the estimated noise.
    public static let autoSmoothing = -1
    /// Output unit of the mesh's coordinates (captures are in metres).
    public var units: LengthUnit
    /// Uniform scale applied after the unit conversion.
    public var scale: Double
    /// Close the face into a printable solid (``Solidify``); nil: an open surface.
    public var solid: SolidOptions?
    /// Formats `Pipeline.process` writes (names as `Exporter` knows them); not used in memory.
    public var formats: [String]

    /// Laplacian weights of the smoothing.
    public var smoothingWeights: SmoothingWeights
    /// Smoothing may move a vertex at most this many standard errors of the mean (estimated from
    /// the frame-to-frame variance) away from the average; 0 removes the bound.
    public var noiseLimit: Double
    /// Bilateral range scale of the smoothing, in standard errors of the mean
    /// (``TaubinOptions/featureScale``); 0 turns the range weight off.
    public var featureScale: Double
    /// Leave frames that disagree with the others out of the average (``RobustAccumulator``).
    public var rejectOutliers: Bool
    /// How the kept frames are weighted in the average (inverse-variance by default).
    public var frameWeighting: FrameWeighting

    public init(
        gate: GateThresholds = GateThresholds(), maxFrames: Int = 90,
        targetVertices: Int = Quality.medium.vertexCount, smoothingIterations: Int = 2,
        units: LengthUnit = .mm, scale: Double = 1, solid: SolidOptions? = nil,
        formats: [String] = ["stl", "obj", "png"],
        smoothingWeights: SmoothingWeights = .cotangent, noiseLimit: Double = 4, featureScale: Double = 5,
        rejectOutliers: Bool = true, frameWeighting: FrameWeighting = .residual
    ) {
        self.gate = gate
        self.maxFrames = maxFrames
        self.targetVertices = targetVertices
        self.smoothingIterations = smoothingIterations
        self.units = units
        self.scale = scale
        self.solid = solid
        self.formats = formats
        self.smoothingWeights = smoothingWeights
        self.noiseLimit = noiseLimit
        self.featureScale = featureScale
        self.rejectOutliers = rejectOutliers
        self.frameWeighting = frameWeighting
    }

    /// Metres → output unit, times the scale.
    public var outputFactor: Double { units.fromMetres * scale }

    /// Settings a session cannot run with: a frame limit below 1, a vertex target outside what
    /// decimation reaches, a negative pass count, a scale that is not positive and finite.
    func check() throws(UsageError) {
        guard maxFrames >= 1 else { throw UsageError("maxFrames must be at least 1, found \(maxFrames)") }
        guard (4...Decimation.maximumTargetVertices).contains(targetVertices) else {
            throw UsageError(
                "targetVertices must be from 4 to \(Decimation.maximumTargetVertices), found \(targetVertices)")
        }
        guard smoothingIterations >= 0 || smoothingIterations == Self.autoSmoothing else {
            throw UsageError(
                "smoothingIterations must be 0 or more (or ScanSettings.autoSmoothing), found \(smoothingIterations)")
        }
        guard scale > 0, scale.isFinite else { throw UsageError("scale must be positive and finite, found \(scale)") }
        guard noiseLimit >= 0, featureScale >= 0 else {
            throw UsageError("noiseLimit and featureScale must be 0 or more, found \(noiseLimit) and \(featureScale)")
        }
    }
}

/// The settings a run actually uses, after flags, capture settings and defaults are combined.
public typealias ResolvedSettings = ScanSettings

extension ScanSettings {
    /// Flags (`options`) over the capture's `settings` over the defaults.
    public init(options o: PipelineOptions, settings s: CaptureSettings) {
        self.init()
        formats = o.formats ?? s.exportFormats ?? formats
        targetVertices =
            o.targetVertices ?? o.quality?.vertexCount ?? s.targetVertexCount
            ?? (s.quality ?? .medium).vertexCount
        // A --quality flag beats a targetVertexCount setting.
        if o.targetVertices == nil, let q = o.quality { targetVertices = q.vertexCount }
        smoothingIterations = o.smoothingIterations ?? s.smoothingIterations ?? smoothingIterations
        units = o.units ?? s.units ?? units
        scale = o.scale ?? s.scale ?? scale
        maxFrames = o.maxFrames ?? s.maxFrames ?? maxFrames
        gate = GateThresholds(settings: s)
        if let v = o.minDistance { gate.minDistance = v }
        if let v = o.maxDistance { gate.maxDistance = v }
        if let v = o.minAmbientIntensity { gate.minAmbientIntensity = v }
        if let v = o.maxJawOpen { gate.maxJawOpen = v }
        if let v = o.maxSmile { gate.maxSmile = v }
        if let v = o.maxBrowInnerUp { gate.maxBrowInnerUp = v }
        solid = o.solid ?? s.solid
        smoothingWeights = o.smoothingWeights
        noiseLimit = o.noiseLimit
        featureScale = o.featureScale
        rejectOutliers = o.rejectOutliers
        frameWeighting = o.frameWeighting
    }
}
