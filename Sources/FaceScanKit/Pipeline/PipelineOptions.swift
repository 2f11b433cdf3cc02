/// What a `process` run was asked to do. Every optional is an override: command-line flag over the
/// capture's `settings` over the default.
public struct PipelineOptions: Sendable, Equatable {
    public var outputDirectory = "out"
    /// Base name of the outputs; default: the input's file name without its extension ("face" for stdin).
    public var name: String?
    public var formats: [String]?
    public var quality: Quality?
    public var targetVertices: Int?
    public var smoothingIterations: Int?
    public var smoothingWeights = SmoothingWeights.cotangent
    /// Smoothing may move a vertex at most this many standard errors of the mean (estimated from
    /// the frame-to-frame variance) away from the average; 0 removes the bound.
    public var noiseLimit = 4.0
    /// Bilateral range scale of the smoothing, in standard errors of the mean (``TaubinOptions/featureScale``);
    /// 0 turns the range weight off.
    public var featureScale = 5.0
    /// Leave frames that disagree with the others out of the average (``RobustAccumulator``).
    public var rejectOutliers = true
    /// How the kept frames are weighted in the average (``FrameWeighting``; inverse-variance by default).
    public var frameWeighting = FrameWeighting.residual
    public var units: LengthUnit?
    public var scale: Double?
    public var maxFrames: Int?
    public var thumbnailSize = 512
    /// Threads of the ingest stage: 1 reads, gates and averages on the calling thread; 2 averages
    /// accepted frames on a second thread while the next ones are read. nil: automatic
    /// (``Pipeline/defaultIngestThreads``). The outputs are byte-identical either way.
    public var ingestThreads: Int?
    /// Close the face into a printable solid (``Solidify``); nil: as the capture's settings say.
    public var solid: SolidOptions?

    /// Quality-gate thresholds that override the capture's settings (nil: the capture's, else
    /// FORMAT.md's defaults): metres, lumens, blend-shape coefficients.
    public var minDistance: Double?
    public var maxDistance: Double?
    public var minAmbientIntensity: Double?
    public var maxJawOpen: Double?
    public var maxSmile: Double?
    public var maxBrowInnerUp: Double?

    public init() {}
}

/// The settings a run actually uses, after flags, capture settings and defaults are combined.
public struct ResolvedSettings: Sendable, Equatable {
    public var formats: [String]
    public var targetVertices: Int
    /// Passes, or ``autoSmoothing``.
    public var smoothingIterations: Int
    /// `smoothingIterations: "auto"` / `--smoothing auto`: chosen from the estimated noise.
    public static let autoSmoothing = -1
    public var units: LengthUnit
    public var scale: Double
    public var maxFrames: Int
    public var gate: GateThresholds
    public var solid: SolidOptions?

    public init(options o: PipelineOptions, settings s: CaptureSettings) {
        formats = o.formats ?? s.exportFormats ?? ["stl", "obj", "png"]
        targetVertices = o.targetVertices ?? o.quality?.vertexCount ?? s.targetVertexCount
            ?? (s.quality ?? .medium).vertexCount
        // A --quality flag beats a targetVertexCount setting.
        if o.targetVertices == nil, let q = o.quality { targetVertices = q.vertexCount }
        smoothingIterations = o.smoothingIterations ?? s.smoothingIterations ?? 2
        units = o.units ?? s.units ?? .mm
        scale = o.scale ?? s.scale ?? 1
        maxFrames = o.maxFrames ?? s.maxFrames ?? 90
        gate = GateThresholds(settings: s)
        if let v = o.minDistance { gate.minDistance = v }
        if let v = o.maxDistance { gate.maxDistance = v }
        if let v = o.minAmbientIntensity { gate.minAmbientIntensity = v }
        if let v = o.maxJawOpen { gate.maxJawOpen = v }
        if let v = o.maxSmile { gate.maxSmile = v }
        if let v = o.maxBrowInnerUp { gate.maxBrowInnerUp = v }
        solid = o.solid ?? s.solid
    }

    /// Metres → output unit, times the scale.
    public var outputFactor: Double { units.fromMetres * scale }
}
