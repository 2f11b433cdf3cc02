import ArgumentParser
import FaceScanKit

/// The options `process` and `batch` share: where outputs go and how the mesh is made.
struct PipelineFlags: ParsableArguments {
    @Option(
        name: [.customShort("o"), .customLong("output-dir")],
        help: "Directory for the outputs (created if its parent exists).", completion: Completions.directory)
    var outputDir = "out"

    @Option(
        help: ArgumentHelp(
            "Comma-separated output formats: \(Self.formatsHelp). (default: the capture's settings, else stl,obj,png)",
            valueName: "formats"),
        completion: Completions.formatList, transform: Self.parseFormats)
    var formats: [String]?

    /// The `--formats` list, parsed once (spaces and repeats dropped, names read by
    /// `OutputFormat(name:)`, the library's one parser of format names); an unknown name is
    /// refused here, with the nearest known one.
    static func parseFormats(_ text: String) throws -> [String] {
        let known = FileFormat.processOutputNames
        var list: [String] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            let name = String(raw.lowercased().filter { !$0.isWhitespace })
            guard let f = OutputFormat(name: name)?.rawValue else {
                let hint = Suggestions.nearest(name, in: known).map { "; did you mean '\($0)'?" } ?? ""
                throw ValidationError(
                    "unknown output format '\(raw)'\(hint) (supported: \(known.joined(separator: ", ")))")
            }
            if !list.contains(f) { list.append(f) }
        }
        return list
    }

    /// The formats `process` writes, each with who writes it (from the format table).
    static var formatsHelp: String {
        FileFormat.processOutputs.map { f in
            switch f.writer {
            case .assimp: "\(f.name) (assimp)"
            case .lib3mf: "\(f.name) (lib3mf)"
            default: f.name
            }
        }.joined(separator: ", ")
    }

    @Option(
        help:
            "Output size preset: low (5000), medium (10000) or high (20000 vertices). (default: the capture's settings, else medium)"
    )
    var quality: Quality?

    // Numeric options take the next word even when it starts with '-', so that a negative value
    // gets its range message rather than "missing value".
    @Option(
        name: [.customShort("n"), .customLong("target-vertices")], parsing: .unconditional,
        help:
            "Exact output vertex count (overrides --quality). (default: the capture's targetVertexCount, else from --quality)"
    )
    var targetVertices: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Taubin smoothing passes (0 disables), or auto: the passes with the least estimated error, from the noise measured in the frames. (default: the capture's settings, else auto)"
    )
    var smoothing: String?

    @Option(help: "Smoothing weights: uniform or cotangent.")
    var weights: SmoothingWeights = .cotangent

    @Option(help: "Output length unit: mm or m (input is metres). (default: the capture's settings, else mm)")
    var units: LengthUnit?

    @Option(
        parsing: .unconditional,
        help: "Uniform scale factor applied after the unit conversion. (default: the capture's settings, else 1)")
    var scale: Double?

    @Option(
        name: .customLong("max-frames"), parsing: .unconditional,
        help: "Stop after this many accepted frames. (default: the capture's settings, else 90)")
    var maxFrames: Int?

    @Option(
        name: .customLong("thumbnail-size"), parsing: .unconditional,
        help: "Thumbnail width and height in pixels (16 to 8192).")
    var thumbnailSize = 512

    @Flag(
        name: .customLong("skip-bad-images"),
        help: ArgumentHelp(
            "Use a frame whose camera image is unusable for its geometry only, counting it in the report.",
            discussion:
                "A truncated or corrupt image, one whose size is not its camera's imageResolution, one declaring more than 16384 pixels a side, or a camera without intrinsics: without this flag a one-line error naming the file, frame and field (exit 2)."
        ))
    var skipBadImages = false

    @Flag(help: "Close the face into a watertight, printable solid (see --thickness, --base, --depth, --fit).")
    var solid = false

    @OptionGroup var solidFlags: SolidFlags

    @Option(
        name: .customLong("min-distance"), parsing: .unconditional,
        help: "Gate: nearest accepted face distance, metres. (default: the capture's settings, else 0.3)")
    var minDistance: Double?

    @Option(
        name: .customLong("max-distance"), parsing: .unconditional,
        help: "Gate: farthest accepted face distance, metres. (default: the capture's settings, else 0.5)")
    var maxDistance: Double?

    @Option(
        name: .customLong("min-light"), parsing: .unconditional,
        help: "Gate: least ambient light, lumens. (default: the capture's settings, else 500)")
    var minLight: Double?

    @Option(
        name: .customLong("max-jaw-open"), parsing: .unconditional,
        help: "Gate: largest jawOpen blend shape, 0 to 1. (default: the capture's settings, else 0.4)")
    var maxJawOpen: Double?

    @Option(
        name: .customLong("max-smile"), parsing: .unconditional,
        help: "Gate: largest mouthSmile blend shape, 0 to 1. (default: the capture's settings, else 0.5)")
    var maxSmile: Double?

    @Option(
        name: .customLong("max-brow-up"), parsing: .unconditional,
        help: "Gate: largest browInnerUp blend shape, 0 to 1. (default: the capture's settings, else 0.5)")
    var maxBrowUp: Double?

    /// The flag for each setting, by its path in ScanSettings: library messages about options
    /// name the flag (``PipelineOptions/optionName(_:)``).
    static let flagNames: [String: String] = [
        "gate.minDistance": "--min-distance", "gate.maxDistance": "--max-distance",
        "gate.minAmbientIntensity": "--min-light", "gate.maxJawOpen": "--max-jaw-open",
        "gate.maxSmile": "--max-smile", "gate.maxBrowInnerUp": "--max-brow-up",
        "targetVertices": "--target-vertices", "smoothing": "--smoothing", "scale": "--scale",
        "maxFrames": "--max-frames", "formats": "--formats", "solid.thickness": "--thickness",
        "solid.depth": "--depth", "solid.fit": "--fit", "solid.fitMargin": "--fit-margin",
    ]

    /// The flags' values by the library's rules (ScanSettings), in the flags' words; what only
    /// the command line has (the smoothing's `auto`, the thumbnail size, format names) here.
    func validate() throws {
        if let s = smoothing, s != "auto", Int(s) == nil {
            throw ValidationError("--smoothing must be a number of passes, or auto (found '\(s)')")
        }
        do {
            try ScanSettings.check(options())
        } catch {
            throw ValidationError(error.message)
        }
        if !(16...8192).contains(thumbnailSize) { throw ValidationError("--thumbnail-size must be from 16 to 8192") }
    }

    /// The library's options for these flags (unset flags leave the capture's settings in force).
    func options() -> PipelineOptions {
        var options = PipelineOptions()
        options.outputDirectory = outputDir
        options.formats = formats
        options.quality = quality
        options.targetVertices = targetVertices
        options.smoothing = smoothing.map { $0 == "auto" ? .auto : .passes(Int($0) ?? 0) }
        options.smoothingWeights = weights
        options.units = units
        options.scale = scale
        options.maxFrames = maxFrames
        options.thumbnailSize = thumbnailSize
        options.skipBadImages = skipBadImages
        options.ingestThreads = ingestThreadsFromEnvironment()
        options.gate = GateOverrides(
            minDistance: minDistance, maxDistance: maxDistance, minAmbientIntensity: minLight,
            maxJawOpen: maxJawOpen, maxSmile: maxSmile, maxBrowInnerUp: maxBrowUp)
        if solid || solidFlags.isSet { options.solid = solidFlags.options }
        options.optionNames = Self.flagNames
        return options
    }
}
