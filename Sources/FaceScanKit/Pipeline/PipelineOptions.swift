/// What a `process` run was asked to do. Every optional is an override: command-line flag over the
/// capture's `settings` over the default.
public struct PipelineOptions: Sendable, Hashable, Codable {
    /// Directory the outputs are written into.
    public var outputDirectory = "out"
    /// Base name of the outputs; default: the input's file name without its extension ("face" for stdin).
    public var name: String?
    /// Output formats by name; nil: the capture's `exportFormats`, else the default.
    public var formats: [String]?
    /// Output size preset; nil: as the capture's settings say.
    public var quality: Quality?
    /// Exact output vertex count; beats ``quality``.
    public var targetVertices: Int?
    /// Smoothing passes (0 for none) or ``Smoothing/auto``; nil: the capture's setting, else auto.
    public var smoothing: Smoothing?
    /// Edge weights of the smoothing (``SmoothingWeights``); cotangent by default.
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
    /// Use a frame whose camera image is unusable for its geometry alone, counting it in the
    /// report, instead of stopping with the error (``ScanSettings/skipBadImages``; the CLI's
    /// `--skip-bad-images`). Not encoded (so options encoded before it decode alike).
    public var skipBadImages = false
    /// Unit of the output coordinates; nil: the capture's setting, else millimetres.
    public var units: LengthUnit?
    /// Uniform scale applied after the unit conversion; nil: the capture's setting, else 1.
    public var scale: Double?
    /// Stop after this many accepted frames; nil: the capture's setting, else 90.
    public var maxFrames: Int?
    /// Longest side of the PNG thumbnail, pixels.
    public var thumbnailSize = 512
    /// Threads of the ingest stage: 1 reads, gates and averages on the calling thread; 2 averages
    /// accepted frames on a second thread while the next ones are read. nil: automatic
    /// (``Pipeline/defaultIngestThreads``). The outputs are byte-identical either way.
    public var ingestThreads: Int?
    /// Threads of the PNG thumbnail's render, 1 or 2 (``RenderOptions/threads``). nil: automatic
    /// (``Pipeline/defaultRenderThreads``; `batch` with parallel jobs takes 1, its jobs already
    /// keeping the cores busy). The outputs are byte-identical either way.
    public var renderThreads: Int?
    /// Close the face into a printable solid (``Solidify``); nil: as the capture's settings say.
    public var solid: SolidOptions?

    /// Quality-gate thresholds that override the capture's settings (each nil: the capture's,
    /// else FORMAT.md's default).
    public var gate = GateOverrides()

    /// Options that override nothing: the capture's settings, else the defaults, into `out`.
    /// How messages name the options, by their path in ``ScanSettings`` (`scale`,
    /// `gate.maxDistance`): the command line's flags; empty, `PipelineOptions.` and the path.
    /// Not encoded.
    package var optionNames: [String: String] = [:]

    /// The words for the option at `path` in a message.
    package func optionName(_ path: String) -> String { optionNames[path] ?? "PipelineOptions." + path }

    /// Every option at its default: no override, so the capture's settings and then the defaults decide.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case outputDirectory, name, formats, quality, targetVertices, smoothing, smoothingWeights
        case noiseLimit, featureScale, rejectOutliers, frameWeighting, units, scale, maxFrames, thumbnailSize
        case ingestThreads, renderThreads, solid, gate
    }
}
