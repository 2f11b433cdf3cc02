/// What a `process` run was asked to do. Every optional is an override: command-line flag over the
/// capture's `settings` over the default.
public struct PipelineOptions: Sendable, Hashable, Codable {
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
    /// Bilateral range scale of the smoothing, in standard errors of the mean (`TaubinOptions/featureScale`);
    /// 0 turns the range weight off.
    public var featureScale = 5.0
    /// Leave frames that disagree with the others out of the average (`RobustAccumulator`).
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
