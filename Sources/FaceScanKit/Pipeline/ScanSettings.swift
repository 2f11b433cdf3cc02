/// Everything a scan uses, with FORMAT.md's defaults: the gate, how many frames, the smoothing
/// and averaging tuning, the output size, unit and scale, and whether to close the face into a
/// solid. `ScanSettings()` is what `facescan process` does for a capture without settings.
///
/// Any value can be stored; ``validate()`` checks them all, and ``FaceScanSession`` calls it when
/// it is made, before the first frame, so a setting no scan can run with is refused at once with
/// ``FaceScanError/badSetting(_:)`` naming the field and its allowed range. `Codable` (an app can
/// keep its settings as JSON) and `Hashable`.
public struct ScanSettings: Sendable, Hashable, Codable {
    /// Quality-gate thresholds (distance, light, expression).
    public var gate: GateThresholds
    /// The scan is complete after this many accepted frames.
    public var maxFrames: Int
    /// Vertices of the output mesh, exactly (``Quality/vertexCount`` gives the app's presets).
    public var targetVertices: Int
    /// Smoothing passes, or ``Smoothing/auto`` (the default) to choose them from the noise
    /// measured in the frames.
    public var smoothing: Smoothing
    /// Output unit of the mesh's coordinates (captures are in metres).
    public var units: LengthUnit
    /// Uniform scale applied after the unit conversion.
    public var scale: Double
    /// Close the face into a printable solid (``Solidify``); nil: an open surface.
    public var solid: SolidOptions?
    /// Formats ``Pipeline/process(input:options:progress:)`` writes; not used in memory.
    public var formats: [OutputFormat]

    /// Laplacian weights of the smoothing.
    public var smoothingWeights: SmoothingWeights
    /// Smoothing may move a vertex at most this many standard errors of the mean (estimated from
    /// the frame-to-frame variance) away from the average; 0 removes the bound.
    public var noiseLimit: Double
    /// Bilateral range scale of the smoothing, in standard errors of the mean
    /// (`TaubinOptions/featureScale`); 0 turns the range weight off.
    public var featureScale: Double
    /// Leave frames that disagree with the others out of the average (`RobustAccumulator`).
    public var rejectOutliers: Bool
    /// How the kept frames are weighted in the average (inverse-variance by default).
    public var frameWeighting: FrameWeighting

    /// Settings with FORMAT.md's defaults for whatever is not given. Not checked here: see
    /// ``validate()``.
    public init(
        gate: GateThresholds = GateThresholds(), maxFrames: Int = 90,
        targetVertices: Int = Quality.medium.vertexCount, smoothing: Smoothing = .auto,
        units: LengthUnit = .mm, scale: Double = 1, solid: SolidOptions? = nil,
        formats: [OutputFormat] = [.stl, .obj, .png],
        smoothingWeights: SmoothingWeights = .cotangent, noiseLimit: Double = 4, featureScale: Double = 5,
        rejectOutliers: Bool = true, frameWeighting: FrameWeighting = .residual
    ) {
        self.gate = gate
        self.maxFrames = maxFrames
        self.targetVertices = targetVertices
        self.smoothing = smoothing
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

    /// Checks every setting against its allowed range: ``maxFrames`` at least 1,
    /// ``targetVertices`` from 4 to ``Decimation/maximumTargetVertices``, ``smoothing``
    /// auto or 0 passes or more, ``scale`` positive and finite, ``noiseLimit`` and
    /// ``featureScale`` finite and 0 or more, at least one format, the gate's thresholds
    /// (``GateThresholds/validate()``) and the solid's options (``SolidOptions/validate()``).
    /// NaN is never in range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first field out of range and the
    ///   range, e.g. `ScanSettings.maxFrames must be at least 1, found 0`.
    public func validate() throws(FaceScanError) {
        do throws(UsageError) { try check() } catch { throw .badSetting(error) }
    }

    /// ``validate()`` with the narrow error.
    func check() throws(UsageError) {
        func bad(_ field: String, _ range: String, _ value: Any) -> UsageError {
            UsageError("ScanSettings.\(field) must be \(range), found \(value)", field: "ScanSettings.\(field)")
        }
        guard maxFrames >= 1 else { throw bad("maxFrames", "at least 1", maxFrames) }
        guard (4...Decimation.maximumTargetVertices).contains(targetVertices) else {
            throw bad("targetVertices", "from 4 to \(Decimation.maximumTargetVertices)", targetVertices)
        }
        if case .passes(let n) = smoothing, n < 0 { throw bad("smoothing", "auto or 0 passes or more", n) }
        guard scale > 0, scale.isFinite else { throw bad("scale", "positive and finite", scale) }
        guard noiseLimit >= 0, noiseLimit.isFinite else { throw bad("noiseLimit", "0 or more, finite", noiseLimit) }
        guard featureScale >= 0, featureScale.isFinite else {
            throw bad("featureScale", "0 or more, finite", featureScale)
        }
        guard !formats.isEmpty else { throw bad("formats", "at least one format", "none") }
        try gate.check(prefix: "ScanSettings.gate.")
        if let solid { try solid.check(prefix: "ScanSettings.solid.") }
    }
}

/// The settings a run actually uses, after flags, capture settings and defaults are combined.
public typealias ResolvedSettings = ScanSettings

extension ScanSettings {
    /// Flags (`options`) over the capture's `settings` over the defaults.
    public init(options o: PipelineOptions, settings s: CaptureSettings) {
        self.init()
        // Unknown names are left out here; Pipeline refuses them by name before any frame.
        if let names = o.formats ?? s.exportFormats {
            formats = names.compactMap { OutputFormat(name: $0) }
        }
        targetVertices =
            o.targetVertices ?? o.quality?.vertexCount ?? s.targetVertexCount
            ?? (s.quality ?? .medium).vertexCount
        // A --quality flag beats a targetVertexCount setting.
        if o.targetVertices == nil, let q = o.quality { targetVertices = q.vertexCount }
        smoothing = o.smoothing ?? s.smoothing ?? smoothing
        units = o.units ?? s.units ?? units
        scale = o.scale ?? s.scale ?? scale
        maxFrames = o.maxFrames ?? s.maxFrames ?? maxFrames
        gate = o.gate.applied(to: GateThresholds(settings: s))
        solid = o.solid ?? s.solid
        smoothingWeights = o.smoothingWeights
        noiseLimit = o.noiseLimit
        featureScale = o.featureScale
        rejectOutliers = o.rejectOutliers
        frameWeighting = o.frameWeighting
    }
}

/// A file ``Pipeline/process(input:options:progress:)`` writes: a mesh format, or the PNG
/// thumbnail. The raw value is the name `--formats` takes and the file extension.
public enum OutputFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Binary STL.
    case stl
    /// Wavefront OBJ.
    case obj
    /// The PNG thumbnail (the clay rendering, front view).
    case png
    /// The averaged face coloured by each vertex's standard error (µm, with a legend), front view:
    /// where the capture is unsure. Written as `NAME.uncertainty.png`.
    case uncertaintyPNG = "uncertainty.png"
    /// Binary glTF 2.0, in metres.
    case glb
    /// 3D Manufacturing Format, in millimetres, with the thumbnail (lib3mf).
    case threeMF = "3mf"
    /// Binary PLY (assimp).
    case ply
    /// COLLADA, in metres (assimp).
    case dae
    /// Binary FBX 7.4, written by facescan (``Mesh/fbxBytes(centimetresPerUnit:)``).
    case fbx
    /// X3D, in metres (assimp).
    case x3d
    /// DirectX .x (assimp).
    case x
    /// 3D Studio (assimp).
    case threeDS = "3ds"

    /// The format a name stands for (`"STL"`, `" 3mf "`: case and surrounding spaces ignored), or nil.
    public init?(name: String) {
        self.init(rawValue: name.lowercased().trimmingSpaces)
    }

    /// The output format of a mesh format, or nil for OFF (read, not written by `process`).
    public init?(_ format: MeshFormat) {
        self.init(rawValue: format.rawValue)
    }

    /// The mesh format, or nil for formats ``MeshFormat`` does not cover (PNG, DAE, FBX, …).
    public var meshFormat: MeshFormat? { MeshFormat(rawValue: rawValue) }
}
