/// What a run did, printed by `--json` as one object with a fixed key order. (In Support, below
/// every stage, because ``NoAcceptedFrames`` carries it.)
public struct Report: Sendable, Equatable {
    /// Frames the gate rejected, by reason, and frames left out of the average as outliers.
    public struct Rejections: Sendable, Equatable {
        /// Frames rejected for camera distance, for tracking, for too little light, for an expression.
        public var distance = 0, tracking = 0, lighting = 0, expression = 0
        /// Frames that passed the gate (and count in `accepted`) but were left out of the average
        /// as outliers.
        public var outlier = 0
        /// No rejections.
        public init() {}
        /// Frames the gate rejected, all reasons (outliers are not counted).
        public var total: Int { distance + tracking + lighting + expression }
    }
    /// How many frames were read, accepted and rejected.
    public struct Frames: Sendable, Equatable {
        /// Frames examined by the gate (reading stops after `maxFrames` accepted frames).
        public var read = 0
        /// Frames the gate accepted (outliers included).
        public var accepted = 0
        /// Frames rejected, by reason.
        public var rejected = Rejections()
        /// No frames.
        public init() {}
    }
    /// Vertex and triangle counts of the mean face (input) and of the output mesh.
    public struct MeshCounts: Sendable, Equatable {
        /// The mean face's vertices and triangles, then the output mesh's.
        public var inputVertices = 0, inputTriangles = 0, outputVertices = 0, outputTriangles = 0
        /// All counts zero.
        public init() {}
    }
    /// Wall-clock time of each stage and of the whole run, milliseconds.
    public struct Timings: Sendable, Equatable {
        /// `decimate` is the whole decimate-or-refine stage; `refine` repeats it when that stage
        /// refined (the target was above the face's vertex count), and is 0 when it decimated.
        public var ingest = 0.0, smooth = 0.0, decimate = 0.0, refine = 0.0, render = 0.0, export = 0.0, total = 0.0
        /// All stages 0 ms.
        public init() {}
    }
    /// One file written.
    public struct Output: Sendable, Equatable {
        /// Format name, e.g. `stl`.
        public var format: String
        /// Path the file was written to.
        public var path: String
        /// Size of the file, bytes.
        public var bytes: Int
        /// CRC-32 of the file's bytes, recorded by `facescan batch` when it commits the file
        /// (what `batch --resume` checks before it skips the capture); nil elsewhere.
        public var crc32: UInt32? = nil

        package init(format: String, path: String, bytes: Int) {
            self.format = format
            self.path = path
            self.bytes = bytes
        }
    }

    /// Estimated per-vertex noise of the averaged face before and after smoothing (µm, RMS over
    /// vertices; see `NoiseEstimate`).
    public struct Accuracy: Sendable, Equatable {
        /// Before smoothing, µm.
        public var noiseBeforeUm: Double
        /// After smoothing, µm.
        public var noiseAfterUm: Double

        package init(noiseBeforeUm: Double, noiseAfterUm: Double) {
            self.noiseBeforeUm = noiseBeforeUm
            self.noiseAfterUm = noiseAfterUm
        }
    }

    /// The noise left in the averaged face: the standard error of each vertex's mean (the
    /// frame-to-frame spread over √frames, isotropic), summarised over the vertices.
    public struct Noise: Sendable, Equatable {
        /// Median over vertices, µm.
        public var medianStandardErrorUm: Double
        /// 95th percentile over vertices (nearest rank), µm.
        public var p95StandardErrorUm: Double
        /// The summary of per-vertex standard errors in metres (none: both 0).
        public init(standardErrors: [Double]) {
            // The two order statistics by selection (what the sorted list holds at those ranks).
            var s = standardErrors
            let n = s.count
            guard n > 0 else {
                (medianStandardErrorUm, p95StandardErrorUm) = (0, 0)
                return
            }
            let p95 = min(n - 1, max(0, Int((0.95 * Double(n)).rounded(.up)) - 1)), h = n / 2
            Self.select(&s, rank: p95, below: n)
            Self.select(&s, rank: h, below: h <= p95 ? p95 + 1 : n)
            // s[0..<h] are the h least: the largest of them is rank h − 1.
            let median = n % 2 == 1 ? s[h] : (s[0..<h].max()! + s[h]) / 2
            medianStandardErrorUm = median * 1e6
            p95StandardErrorUm = s[p95] * 1e6
        }

        /// Reorders `a[0..<below]` so that `a[rank]` holds the value of that rank in ascending
        /// order, none after it less and none before it greater (Hoare's selection).
        private static func select(_ a: inout [Double], rank k: Int, below: Int) {
            var lo = 0, hi = below - 1
            while lo < hi {
                let x = a[lo], y = a[(lo + hi) / 2], z = a[hi]
                let pivot = max(min(x, y), min(max(x, y), z))
                var i = lo, j = hi
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while a[j] > pivot { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if k <= j {
                    hi = j
                } else if k >= i {
                    lo = i
                } else {
                    return
                }
            }
        }
    }

    /// The colour a run fused from the capture's camera images (nil: the capture had none).
    public struct Colour: Sendable, Equatable {
        /// Frames whose image was fused into the texture.
        public var framesFused: Int
        /// The texture's side, texels.
        public var textureSize: Int
        /// Texels a triangle of the topology covers.
        public var coveredTexels: Int
        /// Covered texels no frame saw, filled from their neighbours.
        public var filledTexels: Int
        /// Whether facescan made the UVs (the topology had none).
        public var madeUVs: Bool
        /// The scene's directional light the images showed and that was undone (world space,
        /// unit, towards the light); nil when they showed none (ambient light only).
        public var lightDirection: SIMD3<Double>?
        /// That light's share of the light on a point facing it (0…0.5); 0 when none.
        public var lightShare: Double

        package init(
            framesFused: Int, textureSize: Int, coveredTexels: Int, filledTexels: Int, madeUVs: Bool,
            lightDirection: SIMD3<Double>? = nil, lightShare: Double = 0
        ) {
            self.framesFused = framesFused
            self.textureSize = textureSize
            self.coveredTexels = coveredTexels
            self.filledTexels = filledTexels
            self.madeUVs = madeUVs
            self.lightDirection = lightDirection
            self.lightShare = lightShare
        }

        var json: JSONValue {
            .object(
                [
                    ("framesFused", .int(framesFused)), ("textureSize", .int(textureSize)),
                    ("coveredTexels", .int(coveredTexels)), ("filledTexels", .int(filledTexels)),
                    ("madeUVs", .bool(madeUVs)), ("lightShare", .ms(lightShare)),
                ]
                    + (lightDirection.map { d in
                        [("lightDirection", JSONValue.array([.ms(d.x), .ms(d.y), .ms(d.z)]))]
                    } ?? []))
        }
    }

    /// Frames whose camera image was skipped (`--skip-bad-images`, ``skippedImages``): used for
    /// their geometry only, counted by why (the reasons of `BadImageReason`).
    public struct SkippedImages: Sendable, Equatable {
        /// Images that could not be decoded: invalid base64, empty, neither JPEG nor PNG,
        /// truncated or corrupt.
        public var corrupt = 0
        /// Images whose size is not the camera's `imageResolution`.
        public var wrongSize = 0
        /// Images or resolutions declaring more pixels a side than facescan reads.
        public var oversized = 0
        /// Frames whose camera is missing or has no or invalid intrinsics (or transform).
        public var camera = 0
        /// All of them.
        public var total: Int { corrupt + wrongSize + oversized + camera }

        /// No image skipped.
        public init() {}
    }

    /// The smoothing a run applied.
    public struct Smoothing: Sendable, Equatable {
        /// Taubin passes applied.
        public var passes: Int
        /// Chosen from the measured noise (`--smoothing auto`) rather than asked for.
        public var automatic: Bool
        /// One line: what was chosen and why (the verbose output prints it).
        public var reason: String

        package init(passes: Int, automatic: Bool, reason: String) {
            self.passes = passes
            self.automatic = automatic
            self.reason = reason
        }
    }

    /// What the expression model removed from the average (docs/ALGORITHMS.md, "Expressions"):
    /// the blend-shape coefficients it modelled and the largest displacement it undid, per region.
    public struct Expression: Sendable, Equatable {
        /// The largest displacement undone at any vertex, µm, by the coefficients of each region:
        /// eyes (`eye…`), brows (`brow…`), mouth (`jaw…`, `mouth…`, `tongue…`), the rest; and by
        /// all together.
        public struct Regions: Sendable, Equatable {
            /// Per region and in all, µm.
            public var eyes: Double, brows: Double, mouth: Double, rest: Double, largest: Double

            package init(eyes: Double, brows: Double, mouth: Double, rest: Double, largest: Double) {
                (self.eyes, self.brows, self.mouth, self.rest, self.largest) = (eyes, brows, mouth, rest, largest)
            }
        }
        /// The coefficients that varied enough to be modelled, by name.
        public var coefficients: [String]
        /// Vertices whose average the model moved (a response was significant there).
        public var verticesModelled: Int
        /// The largest displacement undone, per region.
        public var removedUm: Regions

        package init(coefficients: [String], verticesModelled: Int, removedUm: Regions) {
            self.coefficients = coefficients
            self.verticesModelled = verticesModelled
            self.removedUm = removedUm
        }
    }

    /// The capture's path as given (`-` for standard input).
    public var input: String
    /// Per-vertex standard error of the averaged face; nil with fewer than two averaged frames.
    public var noise: Noise?
    /// What the expression model removed; nil when no blend-shape coefficient varied (the plain
    /// average).
    public var expression: Expression?
    /// The smoothing applied; nil before the smoothing stage ran.
    public var smoothing: Smoothing?
    /// The colour fused from the capture's camera images; nil when it had none.
    public var colour: Colour?
    /// Frames whose image was skipped (`--skip-bad-images`), by reason; nil when none was.
    public var skippedImages: SkippedImages?
    /// Estimated per-vertex noise before and after smoothing; nil with fewer than two accepted frames.
    public var accuracy: Accuracy?
    /// Frames read, accepted and rejected.
    public var frames = Frames()
    /// Vertex and triangle counts in and out.
    public var mesh = MeshCounts()
    /// Time per stage, milliseconds.
    public var timingsMs = Timings()
    /// Files written, in the order written.
    public var outputs: [Output] = []
    /// Solid parts only: the uniform scale `--fit` applied to the life-size part (1 when it fits).
    public var scale: Double?
    /// Solid parts only: millimetres from the frontmost point to the cut the part stands on.
    public var depthMm: Double?
    /// Solid parts only, when the cut could not be made where asked: the depth asked for, mm.
    public var depthAskedMm: Double?
    /// Solid parts only: how far the part was turned into the face's own frame, degrees
    /// (x: yaw toward +x, y: pitch toward +y, z: roll of the right axis toward +y).
    public var rotationDeg: SIMD3<Double>?
    /// What the user should know about the result (one line each), e.g. a cut moved forward.
    public var warnings: [String] = []

    /// An empty report of the run on `input`.
    public init(input: String) { self.input = input }

    /// The `mesh` object alone (used by stage subcommands such as `simplify`).
    public var meshJSON: JSONValue {
        .object([
            ("inputVertices", .int(mesh.inputVertices)), ("inputTriangles", .int(mesh.inputTriangles)),
            ("outputVertices", .int(mesh.outputVertices)), ("outputTriangles", .int(mesh.outputTriangles)),
        ])
    }

    /// The `timingsMs` object alone, milliseconds rounded to 0.001.
    public var timingsJSON: JSONValue {
        .object([
            ("ingest", .ms(timingsMs.ingest)), ("smooth", .ms(timingsMs.smooth)),
            ("decimate", .ms(timingsMs.decimate)), ("refine", .ms(timingsMs.refine)), ("render", .ms(timingsMs.render)),
            ("export", .ms(timingsMs.export)), ("total", .ms(timingsMs.total)),
        ])
    }

    /// The whole report as `--json` prints it, keys in a fixed order.
    public var json: JSONValue {
        guard case .object(var fields) = jsonWithoutColour, let colour else { return jsonWithoutColour }
        // After the expression model's figures, before the smoothing's.
        let at = fields.firstIndex { $0.0 == "smoothing" || $0.0 == "timingsMs" } ?? fields.endIndex
        fields.insert(("colour", colour.json), at: at)
        return .object(fields)
    }

    var jsonWithoutColour: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("frames", framesJSON), ("mesh", meshJSON),
            (
                "accuracy",
                accuracy.map { a in
                    .object([("noiseBeforeUm", .ms(a.noiseBeforeUm)), ("noiseAfterUm", .ms(a.noiseAfterUm))])
                } ?? .null
            ),
        ]
        if let n = noise {
            fields.append(
                (
                    "noise",
                    .object([
                        ("medianStandardErrorUm", .ms(n.medianStandardErrorUm)),
                        ("p95StandardErrorUm", .ms(n.p95StandardErrorUm)),
                    ])
                ))
        }
        if let e = expression { fields.append(("expression", Self.json(e))) }
        if let k = skippedImages {
            fields.append(
                (
                    "skippedImages",
                    .object([
                        ("corrupt", .int(k.corrupt)), ("wrongSize", .int(k.wrongSize)),
                        ("oversized", .int(k.oversized)), ("camera", .int(k.camera)), ("total", .int(k.total)),
                    ])
                ))
        }
        if let s = smoothing {
            fields.append(
                (
                    "smoothing",
                    .object([
                        ("passes", .int(s.passes)), ("mode", .string(s.automatic ? "auto" : "fixed")),
                        ("reason", .string(s.reason)),
                    ])
                ))
        }
        fields.append(("timingsMs", timingsJSON))
        fields.append(("outputs", outputsJSON))
        if let scale { fields.append(("scale", .ms(scale))) }
        if let depthMm { fields.append(("depthMm", .ms(depthMm))) }
        if let depthAskedMm { fields.append(("depthAskedMm", .ms(depthAskedMm))) }
        if let r = rotationDeg {
            fields.append(("rotationDeg", .object([("yaw", .ms(r.x)), ("pitch", .ms(r.y)), ("roll", .ms(r.z))])))
        }
        if !warnings.isEmpty { fields.append(("warnings", .array(warnings.map { .string($0) }))) }
        return .object(fields)
    }

    /// `frames`: read, accepted, rejected per reason, outliers and how many were averaged.
    private var framesJSON: JSONValue {
        let r = frames.rejected
        return .object([
            ("read", .int(frames.read)), ("accepted", .int(frames.accepted)),
            (
                "rejected",
                .object([
                    ("distance", .int(r.distance)), ("tracking", .int(r.tracking)),
                    ("lighting", .int(r.lighting)), ("expression", .int(r.expression)),
                ])
            ),
            ("outlier", .int(r.outlier)),
            ("averaged", .int(frames.accepted - r.outlier)),
        ])
    }

    /// `expression`: the coefficients modelled, the vertices, and what was removed per region.
    private static func json(_ e: Expression) -> JSONValue {
        .object([
            ("coefficients", .array(e.coefficients.map { .string($0) })),
            ("verticesModelled", .int(e.verticesModelled)),
            (
                "removedUm",
                .object([
                    ("eyes", .ms(e.removedUm.eyes)), ("brows", .ms(e.removedUm.brows)),
                    ("mouth", .ms(e.removedUm.mouth)), ("rest", .ms(e.removedUm.rest)),
                    ("largest", .ms(e.removedUm.largest)),
                ])
            ),
        ])
    }

    /// `outputs`: each file's format, path, size and (from `batch`) CRC-32.
    private var outputsJSON: JSONValue {
        .array(
            outputs.map {
                .object(
                    [("format", .string($0.format)), ("path", .string($0.path)), ("bytes", .int($0.bytes))]
                        + ($0.crc32.map { [("crc32", JSONValue.int(Int($0)))] } ?? []))
            })
    }
}
