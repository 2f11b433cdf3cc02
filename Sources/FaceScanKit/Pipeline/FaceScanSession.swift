import FaceScanCapture
import FaceScanCore
import FaceScanDecimate
import FaceScanInterop
import FaceScanSmooth
import FaceScanSolid
import FaceScanTexture

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What ``FaceScanSession/add(_:)`` decided about one frame, at once.
public struct FrameVerdict: Sendable, Hashable, Codable {
    /// The frame's position among the frames added to the session, from 0 (for a capture: its
    /// index in the capture). ``newOutliers`` uses the same numbering.
    public var frameIndex: Int
    /// Why the quality gate rejected the frame; nil when it was accepted (or came after the scan
    /// was complete).
    public var rejection: Rejection?
    /// What to tell the user about a rejected frame (too close, too far, …), for an app's own
    /// text; for an accepted frame whose expression strays from the capture's typical one (a
    /// blink, a smile: ``Guidance/holdStill(_:typical:)``), the hold-still notice; nil otherwise.
    public var guidance: Guidance?
    /// The short instruction the FaceScanner app shows (``Guidance/defaultText``): for a rejected
    /// frame "Move back — too close", "Move closer", "Keep face steady", "Need better lighting"
    /// or "Relax your face"; for an accepted one that blinked or moved, "Hold still: you
    /// blinked" (smiled, moved your mouth, moved your brows).
    public var instruction: String? { guidance?.defaultText }
    /// The frame passed the gate and counts toward ``maxFrames``.
    public var isAccepted: Bool
    /// Frames accepted so far, this one included.
    public var acceptedFrames: Int
    /// Accepted frames that complete the scan (``ScanSettings/maxFrames``).
    public var maxFrames: Int
    /// Frames (by ``frameIndex``) found just now to disagree with the others: they stay counted
    /// as accepted but are left out of the average. Usually empty; the first frames are judged
    /// together once `RobustAccumulator/warmUp` have been accepted.
    public var newOutliers: [Int] = []

    /// `acceptedFrames / maxFrames`, from 0 to 1.
    public var progress: Double { min(1, Double(acceptedFrames) / Double(max(1, maxFrames))) }
    /// `maxFrames` frames were accepted: ``FaceScanSession/finish()`` can run; later frames are ignored.
    public var isComplete: Bool { acceptedFrames >= maxFrames }
}

/// The outcome of a scan: the mesh (in ``ScanSettings/units``, scaled) and what was done.
public struct ScanResult: Sendable {
    /// The output mesh: in ``ScanSettings/units``, scaled, decimated or refined, solid when asked.
    public var mesh: Mesh
    /// Frame counts, mesh sizes, noise estimate and timings (`outputs` stays empty: nothing was written).
    public var report: Report
    /// The average of the accepted frames before smoothing, metres, numbered as the frames'
    /// vertices (ARKit's numbering for an ARKit capture); nil when the result was made otherwise.
    public var averagedFace: Mesh?
    /// The standard error of each vertex of ``averagedFace`` (metres): how far the average may
    /// still be from the true face there, from the frame-to-frame spread of the accepted frames
    /// (isotropic, one standard deviation of the mean). Largest where tracking is least sure —
    /// the rim, the eyes. Nil with fewer than two averaged frames.
    public var standardErrors: [Double]?
    /// The face's colour, fused from the frames' camera images: an sRGB texture in the mesh's
    /// ``Mesh/uvs`` (row 0 is v = 1). Nil when no accepted frame had an image: the mesh is clay.
    /// `PNGEncoder.encode(texture)` gives the PNG bytes a USDZ, OBJ or glTF writer embeds.
    public var texture: RGBAImage? = nil
}

/// A live scan: frames go in one at a time, as an app receives them from ARKit, each judged at
/// once; ``finish()`` averages the accepted ones and turns the mean face into the output mesh
/// (smooth → decimate or refine to the exact vertex count → optional solid → unit and scale),
/// exactly as `facescan process` does for a capture with the same frames and settings.
///
/// ```swift
/// var session = try FaceScanSession(topology: topology, settings: ScanSettings())
/// for frame in frames {
///     let verdict = try session.add(frame)
///     if let text = verdict.instruction { show(text) }
///     if verdict.isComplete { break }
/// }
/// let result = try session.finish()
/// ```
///
/// A value type: copying a session copies the scan so far. Memory is O(vertices), whatever the
/// number of frames.
public struct FaceScanSession: Sendable {
    /// The triangles (and texture coordinates) every frame shares.
    public let topology: Topology
    /// The validated settings the session scans with (gate, frame limit, output size, unit,
    /// scale, solid): checked once, when the session was made.
    public let validatedSettings: ValidatedSettings
    /// The settings the session scans with (``validatedSettings``' values).
    public var settings: ScanSettings { validatedSettings.settings }
    /// Counts so far (frames read, accepted, rejected by reason, outliers); the mesh counts,
    /// noise estimate and timings are filled by ``finish()``.
    public internal(set) var report: Report
    /// Fixed by the first frame.
    public private(set) var vertexCount: Int?

    private let gate: QualityGate
    /// The average of the accepted frames, created by the first one.
    var accumulator: RobustAccumulator?
    /// The colour fused from the accepted frames' images, created by the first one.
    var fusion: TextureFusion?
    var fusionScratch = TextureFusion.Scratch()
    /// The texture side a session starts with (`FACESCAN_TEXTURE_SIZE` overrides it, for measuring).
    static let defaultTextureSize: Int = {
        if let s = getenv("FACESCAN_TEXTURE_SIZE"), let n = Int(String(cString: s)), (16...4096).contains(n) {
            return n
        }
        return 512
    }()
    /// The texture's side, texels (16 to 4096; 512 by default: on a face in ARKit's UVs a texel
    /// is about 0.6 mm, a 640 × 480 camera's pixel at 0.4 m).
    public var textureSize = defaultTextureSize
    /// How messages name the frames' source (a capture's file name).
    let name: String

    /// A session for frames of `topology`, run with `settings` (validated here:
    /// ``ScanSettings/validated()``). Throws `.badInput` for a topology without triangles,
    /// `.badSetting` for settings no scan can run with (no frame limit, a vertex target outside
    /// 4…``Decimation/maximumTargetVertices``, …).
    public init(topology: Topology, settings: ScanSettings = ScanSettings()) throws(FaceScanError) {
        try self.init(topology: topology, name: "<session>") { () throws(FaceScanError) in try settings.validated() }
    }

    /// A session for frames of `topology` named `name` in messages, run with the settings
    /// `validated` gives once the topology passed. Throws `.badInput` for a topology without
    /// triangles, then as `validated` does.
    init(topology: Topology, name: String, settings validated: () throws(FaceScanError) -> ValidatedSettings)
        throws(FaceScanError)
    {
        guard !topology.triangles.isEmpty, topology.triangles.count % 3 == 0 else {
            throw .badInput(
                InputError(
                    file: name, field: "topology.triangleIndices",
                    "has \(topology.triangles.count) indices, expected a positive multiple of 3"))
        }
        guard topology.triangles.count <= CaptureReader.maxTriangleIndices else {
            throw .badInput(InputError(file: name, field: "topology.triangleIndices", CaptureReader.tooManyTriangles))
        }
        let settings = try validated()
        self.topology = topology
        self.validatedSettings = settings
        self.name = name
        gate = QualityGate(thresholds: settings.gate)
        report = Report(input: name)
        report.mesh.inputTriangles = topology.triangles.count / 3
    }

    /// Frames accepted so far.
    public var acceptedFrames: Int { report.frames.accepted }
    /// `maxFrames` frames were accepted: frames added now are ignored.
    public var isComplete: Bool { report.frames.accepted >= settings.maxFrames }

    /// The median over vertices of the standard error of the average so far (metres): how far,
    /// typically, the averaged face may still be from the true one. Nil before two frames were
    /// averaged (outliers and the first frames still being judged are not averaged yet).
    /// O(vertices · log vertices) per call.
    public var medianStandardError: Double? {
        guard let acc = accumulator else { return nil }
        // With varying blend shapes, what the expression model leaves unexplained counts too.
        guard let se = acc.resting(triangles: topology.triangles)?.standardErrors else { return nil }
        return Report.Noise(standardErrors: se).medianStandardErrorUm * 1e-6
    }

    /// How many more averaged frames bring ``medianStandardError`` down to `target` metres, at
    /// the noise seen so far (the standard error of a mean falls as 1/√frames): 0 when it is
    /// there already; nil before two frames were averaged or for a target that is not positive.
    /// With ``acceptedFrames`` beside it an app can say "hold still — 12 more frames for 50 µm".
    public func framesNeeded(forMedianStandardError target: Double) -> Int? {
        guard target > 0, target.isFinite, let se = medianStandardError,
            let n = accumulator?.accumulator.count, n > 1
        else { return nil }
        let needed = Double(n) * (se / target) * (se / target)
        return max(0, Int(needed.rounded(.up)) - n)
    }

    /// Judges `frame` with the quality gate and, when it passes, adds it to the average.
    /// Returns at once: accepted, or why not and what to tell the user; progress; frames found
    /// to be outliers now. After the scan is complete a frame is ignored (not accepted, no
    /// rejection). Throws `.badInput` for a frame whose coordinates are not `3 × n` finite
    /// numbers, or whose `n` differs from the first frame's or does not fit the topology.
    public mutating func add(_ frame: Frame) throws(FaceScanError) -> FrameVerdict {
        do throws(InputError) {
            try check(frame)
        } catch {
            throw .badInput(error)
        }
        var verdict = judge(frame)
        if verdict.isAccepted {
            if accumulator == nil {
                accumulator = RobustAccumulator(
                    vertexCount: frame.xyz.count / 3, rejectOutliers: settings.rejectOutliers,
                    weighting: settings.frameWeighting)
            }
            let shapes = frame.metadata.blendShapes
            if !shapes.isEmpty, let a = accumulator {
                verdict.guidance = Guidance.holdStill(shapes, typical: a.expression.typical(of: shapes.keys))
            }
            let found = accumulator!.add(frame.xyz, index: verdict.frameIndex, blendShapes: shapes)
            fusion?.observe(frame.xyz)
            if found > 0 { verdict.newOutliers = Array(accumulator!.outlierIndices.suffix(found)) }
            report.frames.rejected.outlier = accumulator!.outliers
        }
        return verdict
    }

    /// Judges and adds `frame` as ``add(_:)`` does and, when it is accepted, fuses `image` — the
    /// camera's colour picture of this frame, as ARKit gives it (``CameraImage``: YCbCr 4:2:0
    /// planes or RGB) — taken by `camera` into the scan's texture (``ScanResult/texture``). The
    /// frame's ``Frame/anchorTransform`` places the face for that camera, and its metadata's
    /// `ambientIntensity`, `ambientColorTemperature` and `eyeBlinkLeft`/`Right` say how the light
    /// and a blink changed the picture. The image is not kept.
    ///
    /// Throws as ``add(_:)`` does, and `.badInput` when the image's size is not the camera's;
    /// with ``ScanSettings/skipBadImages`` such a frame is added without its image (counted in
    /// ``Report/skippedImages``).
    public mutating func add(_ frame: Frame, image: CameraImage, camera: FrameCamera) throws(FaceScanError)
        -> FrameVerdict
    {
        guard image.width == camera.width, image.height == camera.height else {
            if settings.skipBadImages {
                count(.wrongSize)
                return try add(frame)  // its geometry only
            }
            throw .badInput(
                InputError(
                    file: name, frame: report.frames.read, field: "image",
                    "is \(image.width) × \(image.height) pixels, but the camera's resolution is \(camera.width) × \(camera.height)"
                ))
        }
        let verdict = try add(frame)
        if verdict.isAccepted {
            let fresh = fusion == nil
            try startFusion(frame)
            if fresh { fusion!.observe(frame.xyz) }  // else add(_:) did
            try fuse(frame, image: image, camera: camera)
        }
        return verdict
    }

    /// Fuses the image of an accepted frame (creating the fusion with the first one).
    mutating func fuse(_ frame: Frame, image: CameraImage, camera: FrameCamera) throws(FaceScanError) {
        try startFusion(frame)
        let m = frame.metadata
        fusion!.add(
            xyz: frame.xyz, anchorTransform: frame.anchorTransform, camera: camera, image: image,
            ambientIntensity: m.ambientIntensity, colorTemperature: m.ambientColorTemperature,
            blink: max(m.eyeBlinkLeft ?? 0, m.eyeBlinkRight ?? 0), scratch: &fusionScratch)
    }

    /// A frame's unusable image: counted and skipped with ``ScanSettings/skipBadImages``, else its error.
    mutating func skipOrThrow(_ problem: ImageProblem) throws(FaceScanError) {
        guard settings.skipBadImages else { throw .badInput(problem.error) }
        count(problem.reason)
    }

    /// Counts a skipped image in the report.
    mutating func count(_ reason: BadImageReason) {
        var k = report.skippedImages ?? Report.SkippedImages()
        switch reason {
        case .corrupt: k.corrupt += 1
        case .wrongSize: k.wrongSize += 1
        case .oversized: k.oversized += 1
        case .camera: k.camera += 1
        }
        report.skippedImages = k
    }

    /// Creates the fusion with the first frame that needs it.
    mutating func startFusion(_ frame: Frame) throws(FaceScanError) {
        if fusion == nil {
            fusion = try TextureFusion(
                topology: topology, vertexCount: frame.xyz.count / 3, size: textureSize, rest: frame.xyz)
        }
    }

    /// Decodes a capture frame's own `image` (every frame that has one: a broken image is an
    /// error wherever it is) and fuses it when the frame was accepted.
    mutating func fuseEncodedImage(of frame: Frame, accepted: Bool) throws(FaceScanError) {
        guard let bytes = frame.encodedImage, let camera = frame.camera else { return }
        let image: CameraImage
        switch try ImageDecoder.decodeChecked(bytes, camera: camera, file: name, frame: frame.index) {
        case .success(let decoded): image = decoded
        case .failure(let problem):
            try skipOrThrow(problem)
            if accepted, fusion != nil { fusion!.observe(frame.xyz) }  // its geometry only
            return
        }
        if accepted {
            try startFusion(frame)
            fusion!.observe(frame.xyz)
            try fuse(frame, image: image, camera: camera)
        }
    }

    /// The gate's verdict on `frame`, counted in the report; the frame is not averaged (the
    /// caller folds accepted frames: ``add(_:)``, or `Pipeline` on its second thread).
    mutating func judge(_ frame: Frame) -> FrameVerdict {
        let index = report.frames.read
        guard !isComplete else {
            return FrameVerdict(
                frameIndex: index, rejection: nil, guidance: nil, isAccepted: false,
                acceptedFrames: report.frames.accepted, maxFrames: settings.maxFrames)
        }
        if vertexCount == nil { vertexCount = frame.xyz.count / 3 }
        report.frames.read += 1
        if let reason = gate.judge(frame.metadata) {
            switch reason {
            case .distance: report.frames.rejected.distance += 1
            case .tracking: report.frames.rejected.tracking += 1
            case .lighting: report.frames.rejected.lighting += 1
            case .expression: report.frames.rejected.expression += 1
            }
            return FrameVerdict(
                frameIndex: index, rejection: reason, guidance: gate.guidance(for: reason, frame.metadata),
                isAccepted: false, acceptedFrames: report.frames.accepted, maxFrames: settings.maxFrames)
        }
        report.frames.accepted += 1
        return FrameVerdict(
            frameIndex: index, rejection: nil, guidance: nil, isAccepted: true,
            acceptedFrames: report.frames.accepted, maxFrames: settings.maxFrames)
    }

    /// What the capture reader checks of a frame, for frames a caller builds.
    private func check(_ frame: Frame) throws(InputError) {
        let count = frame.xyz.count, index = report.frames.read
        guard count > 0, count % 3 == 0 else {
            throw InputError(
                file: name, frame: index, field: "vertices", "has \(count) coordinates, not a positive multiple of 3")
        }
        let n = count / 3
        guard n <= CaptureReader.maxVertices else {
            throw InputError(file: name, frame: index, field: "vertices", CaptureReader.tooManyVertices)
        }
        do throws(InputError) {
            try CaptureReader.check(vertexCount: n, fixed: vertexCount, file: name)
        } catch {
            throw error.at(frame: index, field: "vertices")
        }
        if vertexCount == nil { try topology.check(vertexCount: n, file: name) }
        if let bad = frame.xyz.firstIndex(where: { !$0.isFinite }) {
            throw InputError(
                file: name, frame: index, field: "vertices", "value \(bad) is not finite (\(frame.xyz[bad]))")
        }
    }

    /// The mean of the accepted frames (metres, float32) and each vertex's standard error; the
    /// warm-up frames still buffered are judged first. Throws `.noAcceptedFrames` when the
    /// average is empty.
    func mean() throws(FaceScanError) -> Average {
        var report = self.report
        var accumulator = self.accumulator
        accumulator?.finish()
        report.frames.rejected.outlier = accumulator?.outliers ?? 0
        guard let resting = accumulator?.resting(triangles: topology.triangles) else {
            report.mesh.inputVertices = vertexCount ?? 0
            throw .noAcceptedFrames(NoAcceptedFrames(file: name, report: report))
        }
        let positions = resting.mean
        report.expression = resting.expression
        var uvs: [SIMD2<Float>]?
        if let fused = fusion, fused.madeUVs {
            uvs = fused.uvs
        } else if let t = topology.textureCoordinates {
            uvs = [SIMD2<Float>](unsafeUninitializedCapacity: positions.count) { out, initialized in
                for v in 0..<positions.count { out[v] = SIMD2(t[2 * v], t[2 * v + 1]) }
                initialized = positions.count
            }
        }
        let mesh = Mesh(uncheckedPositions: positions, triangles: topology.triangles, uvs: uvs)
        report.mesh.inputVertices = mesh.vertexCount
        report.mesh.inputTriangles = mesh.triangleCount
        return Average(
            mesh: mesh, settings: validatedSettings, standardErrors: resting.standardErrors,
            noiseSamples: resting.noiseSamples, expression: resting.expression, report: report, name: name)
    }

    /// Averages the accepted frames and makes the output mesh: smooth (the passes
    /// ``ScanSettings/smoothing`` says, bounded by the estimated noise), then decimate
    /// or refine to exactly ``ScanSettings/targetVertices`` (or build the solid part), then
    /// convert to ``ScanSettings/units`` and scale. The session is unchanged (more frames can
    /// follow, and `finish` run again).
    ///
    /// Throws `.noAcceptedFrames` (carrying the report) when no frame passed, `.badInput` when
    /// the target cannot be reached from this face or the coordinates overflow float32 once
    /// scaled.
    ///
    /// Runs on the calling thread to the end, unless that thread runs a task that is cancelled:
    /// then the step under way stops at its next check (``finish(progress:)`` documents how
    /// often) and this throws ``FaceScanError/cancelled``. ``finish(progress:)`` is the `async`
    /// form that can be cancelled and watched.
    public func finish() throws(FaceScanError) -> ScanResult {
        try finish(control: .none)
    }

    /// ``finish()`` reporting to, and stopping for, `control`.
    func finish(control: FinishControl) throws(FaceScanError) -> ScanResult {
        let total = Stopwatch()
        try control.enter(.averaging, solid: settings.solid != nil)
        let average = try Stages.read(self)
        let shaped = try Stages.shape(average, control: control)
        try control.enter(.done, solid: settings.solid != nil)
        return ScanResult(shaped, totalMs: total.elapsed)
    }

    /// The texture fused so far (nil when no accepted frame had an image), its figures in `report`.
    func fusedTexture(report: inout Report) -> FusedTexture? {
        if let k = report.skippedImages {
            let reasons = [
                (k.corrupt, "corrupt"), (k.wrongSize, "wrong size"), (k.oversized, "oversized"), (k.camera, "camera"),
            ]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            report.warnings.append(
                "\(k.total) frame\(k.total == 1 ? "'s image" : "s' images") skipped (--skip-bad-images), their geometry used: \(reasons)"
            )
        }
        guard let fused = fusion?.finish() else { return nil }
        report.colour = Report.Colour(
            framesFused: fused.framesFused, textureSize: fused.image.width, coveredTexels: fused.coveredTexels,
            filledTexels: fused.filledTexels, madeUVs: fused.madeUVs,
            lightDirection: fused.lightDirection, lightShare: fused.lightShare)
        return fused
    }
}
