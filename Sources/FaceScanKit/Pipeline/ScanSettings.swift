import FaceScanCore
import FaceScanDecimate
import FaceScanGate
import FaceScanSmooth
import FaceScanSolid

/// Everything a scan uses, with FORMAT.md's defaults: the gate, how many frames, the smoothing
/// and averaging tuning, the output size, unit and scale, and whether to close the face into a
/// solid. `ScanSettings()` is what `facescan process` does for a capture without settings.
///
/// Any value can be stored; ``validated()`` checks them all once into the ``ValidatedSettings`` a
/// ``FaceScanSession`` scans with (its initialiser does it, before the first frame), so a setting
/// no scan can run with is refused at once with ``FaceScanError/badSetting(_:)`` naming the field
/// and its allowed range. `Codable` (an app can
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
    /// A frame whose camera image cannot be used (corrupt or truncated, a size other than the
    /// camera's, oversized, a camera without intrinsics) is used for its geometry alone and counted
    /// in ``Report/skippedImages`` by reason, instead of stopping the run with the error naming
    /// the file, frame and field (the default). The CLI's `--skip-bad-images`.
    public var skipBadImages: Bool

    /// Settings with FORMAT.md's defaults for whatever is not given. Not checked here: see
    /// ``validate()``.
    public init(
        gate: GateThresholds = GateThresholds(), maxFrames: Int = 90,
        targetVertices: Int = Quality.medium.vertexCount, smoothing: Smoothing = .auto,
        units: LengthUnit = .mm, scale: Double = 1, solid: SolidOptions? = nil,
        formats: [OutputFormat] = [.stl, .obj, .png],
        smoothingWeights: SmoothingWeights = .cotangent, noiseLimit: Double = 4, featureScale: Double = 5,
        rejectOutliers: Bool = true, frameWeighting: FrameWeighting = .residual, skipBadImages: Bool = false
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
        self.skipBadImages = skipBadImages
    }

    /// Metres → output unit, times the scale.
    public var outputFactor: Double { units.fromMetres * scale }

    /// Largest ``scale``: a 0.2 m face in millimetres times this stays far inside float32's range.
    public static let maximumScale = 1e6
    /// Largest number of smoothing passes.
    public static let maximumSmoothingIterations = 1000

    /// Checks every setting against its allowed range: ``maxFrames`` at least 1,
    /// ``targetVertices`` from 4 to ``Decimation/maximumTargetVertices``, ``smoothing``
    /// auto or from 0 to ``maximumSmoothingIterations`` passes, ``scale`` positive and at
    /// most ``maximumScale``, ``noiseLimit`` and ``featureScale`` finite and 0 or more, at least
    /// one format, the gate's thresholds (``GateThresholds/validate()``) and the solid's options
    /// (``SolidOptions/validate()``). NaN is never in range. These are the only statements of
    /// the rules: a capture's settings and the command line's flags are checked by them too,
    /// their messages naming the key or the flag instead. ``validated()`` gives the
    /// ``ValidatedSettings`` a session takes.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first field out of range and the
    ///   range, e.g. `ScanSettings.maxFrames must be at least 1, found 0`.
    public func validate() throws(FaceScanError) {
        _ = try validated()
    }

    /// ``validate()`` with the narrow error, each field named by `names` (by default the API
    /// property, `ScanSettings.scale`).
    func check(_ names: SettingNames = .api) throws(UsageError) {
        func bad(_ path: String, _ range: String, _ value: Any) -> UsageError {
            UsageError("\(names.name(path)) must be \(range), found \(value)", field: names.fieldName(path))
        }
        let n = names.checks
        guard !n("maxFrames") || maxFrames >= 1 else { throw bad("maxFrames", "at least 1", maxFrames) }
        guard !n("targetVertices") || (4...Decimation.maximumTargetVertices).contains(targetVertices) else {
            throw bad("targetVertices", "from 4 to \(Decimation.maximumTargetVertices)", targetVertices)
        }
        if n("smoothing"), case .passes(let passes) = smoothing,
            !(0...Self.maximumSmoothingIterations).contains(passes)
        {
            throw bad("smoothing", "auto or from 0 to \(Self.maximumSmoothingIterations) passes", passes)
        }
        guard !n("scale") || (scale > 0 && scale <= Self.maximumScale) else {
            throw bad("scale", "positive and at most 1e6", scale)
        }
        guard !n("noiseLimit") || (noiseLimit >= 0 && noiseLimit.isFinite) else {
            throw bad("noiseLimit", "0 or more, finite", noiseLimit)
        }
        guard !n("featureScale") || (featureScale >= 0 && featureScale.isFinite) else {
            throw bad("featureScale", "0 or more, finite", featureScale)
        }
        guard !n("formats") || !formats.isEmpty else { throw bad("formats", "at least one format", "none") }
        try gate.check(names.within("gate"))
        if let solid { try solid.check(names.within("solid")) }
    }
}

extension ScanSettings {
    /// Flags (`options`) over the capture's `settings` over the defaults.
    public init(options o: PipelineOptions, settings s: CaptureSettings) {
        self.init()
        // Unknown names are left out here; ScanSettings.validated(options:capture:file:) refuses the
        // options' by name (PipelineOptions.outputFormats), and a capture's are refused where its
        // settings are read.
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
        skipBadImages = o.skipBadImages
    }
}

extension ScanSettings {
    /// The key a capture's settings give a field by (FORMAT.md), by its path in ``ScanSettings``.
    static func captureKey(_ path: String) -> String {
        switch path {
        case "targetVertices": "targetVertexCount"
        case "formats": "exportFormats"
        case "smoothing": "smoothingIterations"
        default: path.hasPrefix("gate.") ? String(path.dropFirst(5)) : path
        }
    }

    /// Whether `s` gives the field at `path`.
    static func captureGives(_ s: CaptureSettings, _ path: String) -> Bool {
        switch path {
        case "targetVertices": s.targetVertexCount != nil || s.quality != nil
        case "smoothing": s.smoothing != nil
        case "scale": s.scale != nil
        case "maxFrames": s.maxFrames != nil
        case "formats": s.exportFormats != nil
        default:
            path.hasPrefix("solid.")
                ? s.solid != nil
                : GateOverrides.fields.contains { "gate." + $0.key == path && s.gate[keyPath: $0.given] != nil }
        }
    }

    /// Whether `o` gives the field at `path`: the tuning it always gives (``noiseLimit``,
    /// ``featureScale``), the rest as a capture's settings holding the same values would.
    static func optionsGive(_ o: PipelineOptions, _ path: String) -> Bool {
        let same = CaptureSettings(
            quality: o.quality, targetVertexCount: o.targetVertices, smoothing: o.smoothing,
            scale: o.scale, exportFormats: o.formats, maxFrames: o.maxFrames, gate: o.gate, solid: o.solid)
        return path == "noiseLimit" || path == "featureScale" || captureGives(same, path)
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
    /// USDZ for AR Quick Look, in metres, y up; a `--solid` part turned from printing position
    /// to y up (``Mesh/usdzBytes(metresPerUnit:printingPosition:texturePNG:)``).
    case usdz

    /// The format a name stands for (`"STL"`, `" 3mf "`: case and surrounding spaces ignored), or nil.
    /// Read by `FileFormat.named(_:)`, the one parser of format names (aliases included:
    /// `collada`, `glb2`); formats `process` does not write (OFF, glTF) are nil.
    public init?(name: String) {
        guard let format = FileFormat.named(name), format.isProcessOutput else { return nil }
        self.init(format)
    }

    /// The output format of a mesh format, or nil for OFF (read, not written by `process`).
    public init?(_ format: MeshFormat) {
        self.init(rawValue: format.rawValue)
    }

    /// The mesh format, or nil for formats ``MeshFormat`` does not cover (PNG, DAE, FBX, …).
    public var meshFormat: MeshFormat? { MeshFormat(rawValue: rawValue) }

    /// The case of the one format enum this output is.
    package var fileFormat: FileFormat {
        switch self {
        case .stl: .stl
        case .obj: .obj
        case .png: .png
        case .uncertaintyPNG: .uncertaintyPNG
        case .glb: .glb
        case .threeMF: .threeMF
        case .ply: .ply
        case .dae: .dae
        case .fbx: .fbx
        case .x3d: .x3d
        case .x: .x
        case .threeDS: .threeDS
        case .usdz: .usdz
        }
    }

    /// The output format of a file format `process` writes (``FileFormat/isProcessOutput``), else nil.
    package init?(_ format: FileFormat) {
        self.init(rawValue: format.rawValue)
    }
}
