import FaceScanCapture
import FaceScanCore
import FaceScanDecimate
import FaceScanRender
import FaceScanSmooth
import FaceScanSolid

/// The road every scan takes: three stages, functions over values, called in this order, once,
/// by all three ways in — `facescan process` and `batch` (`Pipeline.encode`), ``FaceScan`` (a
/// capture in memory) and ``FaceScanSession/finish()`` (frames an app added):
///
/// 1. ``read(_:)`` — the frames a session took in (added live, or read from a capture: the
///    session's settings validated once, from the capture's header) → their ``Average``;
/// 2. ``shape(_:control:)`` — the average → the output mesh or solid part (``Shaped``);
/// 3. ``write(_:formats:name:thumbnailSize:renderThreads:output:)`` — the shaped mesh → the bytes of each
///    output file (`process` and `batch` only; the library's callers keep the mesh).
///
/// Nothing here reads a file, writes one or goes back to a caller's type.
package enum Stages {
    /// 1. Read: the frames `session` took in, averaged — the mean face (metres), each vertex's
    /// standard error, the colour fused from their images — with the report so far (frame
    /// counts, input mesh, colour). Throws `.noAcceptedFrames` when no frame passed the gate.
    static func read(_ session: FaceScanSession) throws(FaceScanError) -> Average {
        var average = try session.mean()
        average.texture = session.fusedTexture(report: &average.report)?.image
        return average
    }

    /// 1. Read, from a capture: its header (the session's settings made by `settings` from the
    /// capture's, validated there once, before any frame), then every frame gated into a session
    /// (``FaceScanSession/read(_:threads:progress:isCancelled:)``), then ``read(_:)``.
    package static func read(
        _ reader: CaptureReader, settings: (CaptureSettings) throws(FaceScanError) -> ValidatedSettings,
        threads: Int, progress: ((Pipeline.Progress) -> Void)?, isCancelled: (() -> Bool)? = nil
    ) throws(FaceScanError) -> Average {
        var session = try FaceScanSession(reading: reader, settings: settings)
        try session.read(reader, threads: threads, progress: progress, isCancelled: isCancelled)
        return try read(session)
    }

    // MARK: 2. Shape

    /// 2. Shape: the average smoothed, then decimated or refined to the exact vertex count and
    /// scaled to the output unit, or closed into a solid part. Fills the report's smoothing,
    /// noise, accuracy, output counts, solid scale and depth, smooth and decimate timings;
    /// reports to and stops for `control` (``FaceScanSession/finish(progress:)``).
    static func shape(_ average: Average, control: FinishControl = .none) throws(FaceScanError) -> Shaped {
        var clock = Stopwatch()
        var report = average.report
        let settings = average.settings
        report.expression = average.expression
        let solid = settings.solid != nil
        try control.enter(.smoothing, solid: solid)
        // 1. Smooth: the passes asked for, or those with the least estimated error (`AutoSmoothing`).
        let smoothed = smooth(average, report: &report)
        report.timingsMs.smooth = clock.lap()
        try control.enter(solid ? .solidifying : .decimating, solid: solid)

        // 2. Decimate / refine to the exact target (for a solid: the target of the whole part).
        let refines = settings.solid == nil && settings.targetVertices > smoothed.vertexCount
        let mesh = try sized(smoothed, settings.settings, report: &report, name: average.name, control: control)
        report.mesh.outputVertices = mesh.vertexCount
        report.mesh.outputTriangles = mesh.triangleCount
        report.timingsMs.decimate = clock.lap()
        if refines { report.timingsMs.refine = report.timingsMs.decimate }
        return Shaped(mesh: mesh, average: average, report: report)
    }

    /// Step 1 of ``shape(_:control:)``: the mean face smoothed by the passes asked
    /// for, or by those with the least estimated error (`AutoSmoothing`); the unsmoothed mean for
    /// none. Fills the report's smoothing, noise and accuracy.
    static func smooth(_ average: Average, report: inout Report) -> Mesh {
        let settings = average.settings
        let mesh = average.mesh
        var taubin = TaubinOptions(iterations: 0, weights: settings.smoothingWeights)
        if settings.noiseLimit > 0, let se = average.standardErrors {
            taubin.displacementLimit = se.map { Float($0 * settings.noiseLimit) }
        }
        if settings.featureScale > 0, let se = average.standardErrors {
            taubin.featureScale = se.map { Float($0 * settings.featureScale) }
        }
        // The accuracy estimate's noise-only perturbation rides through the passes beside the face
        // (drawn only when passes run).
        let standardErrors = average.standardErrors
        func perturbation() -> [Double]? { standardErrors.map { NoiseEstimate.perturbation(standardErrors: $0) } }
        var smoothed: Mesh?  // nil: not smoothed
        var residual: Double?  // what the passes left of the perturbation (metres, RMS along the normal)
        switch settings.smoothing {
        case .auto:
            let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
            let choice = AutoSmoothing.choose(
                mesh: mesh, adjacency: adjacency, options: taubin, noise: average.noiseSamples,
                perturbation: perturbation())
            smoothed = choice.smoothed
            residual = choice.residualNoise
            report.smoothing = Report.Smoothing(passes: choice.passes, automatic: true, reason: choice.reason)
        case .passes(let n):
            taubin.iterations = n
            if n > 0 {
                let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
                (smoothed, residual) = Taubin.smooth(
                    mesh, adjacency: adjacency, options: taubin, perturbation: perturbation())
            }
            report.smoothing = Report.Smoothing(
                passes: n, automatic: false, reason: "smoothing: \(n) \(n == 1 ? "pass" : "passes"), as asked")
        }
        if let se = average.standardErrors {
            report.noise = Report.Noise(standardErrors: se)
            let before = NoiseEstimate.rms(se) * 1e6
            let after = smoothed == nil ? before : residual.map { $0 * 1e6 } ?? before
            report.accuracy = Report.Accuracy(noiseBeforeUm: before, noiseAfterUm: after)
        }
        return smoothed ?? mesh
    }

    /// Step 2 of ``shape(_:control:)``: the smoothed face decimated or refined to the
    /// exact target and scaled to the output unit, or closed into a solid part (its scale, depth
    /// and turn in `report`). An unreachable target is a property of this capture: the error
    /// names it; a cancellation wins over the failure it caused.
    static func sized(
        _ smoothed: Mesh, _ settings: ScanSettings, report: inout Report, name: String, control: FinishControl
    ) throws(FaceScanError) -> Mesh {
        var mesh = smoothed
        let solid = settings.solid != nil
        if let solid = settings.solid {
            let part: Solidify.Part
            do throws(SolidError) { part = try solidPart(mesh, solid, settings) } catch {
                // Cancellation is its own error; any other failure belongs to this capture.
                if error == .cancelled || control.cancelled { throw .cancelled }
                throw .badInput(InputError(file: name, error.message))
            }
            mesh = part.mesh
            report.scale = part.scale
            report.depthMm = part.depth
            report.rotationDeg = SIMD3(part.turn.yaw, part.turn.pitch, part.turn.roll)
            if !part.cutAsAsked {
                report.depthAskedMm = part.askedDepth
                report.warnings.append(Solidify.movedCutWarning(part))
            }
        } else {
            do throws(UsageError) {
                mesh = try Decimation.simplify(mesh, exactly: settings.targetVertices)
                try? control.enter(.scaling, solid: solid)
                mesh = mesh.scaledUnchecked(by: Float(settings.outputFactor))
            } catch {
                // A step stopped by a cancellation fails in its own words: the cancellation wins.
                if control.cancelled { throw .cancelled }
                throw .badInput(InputError(file: name, error.message))
            }
        }
        if control.cancelled { throw .cancelled }
        // Float32 output coordinates: a face far from the origin, or a large scale, can overflow.
        if mesh.positions.contains(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw .badInput(
                InputError(
                    file: name, field: "vertices",
                    "coordinates do not fit 32-bit floats once in \(settings.units.rawValue) and scaled by \(settings.scale)"
                ))
        }
        return mesh
    }

    /// A closed, printable part with exactly `settings.targetVertices` vertices, in printing
    /// position, scaled to the output unit (``Solidify/part(_:options:unitInMillimetres:vertexCount:)``).
    static func solidPart(_ smoothed: Mesh, _ solid: SolidOptions, _ settings: ScanSettings) throws(SolidError)
        -> Solidify.Part
    {
        try Solidify.makePart(
            smoothed.scaledUnchecked(by: Float(settings.outputFactor)), options: solid,
            unitInMillimetres: settings.units.millimetres, vertexCount: settings.targetVertices)
    }
}

/// What stage 1 (``Stages/read(_:)``) gives: the mean face of the accepted frames and what the
/// next stages need of them.
package struct Average: Sendable {
    /// The mean face of the accepted frames, metres, before smoothing.
    var mesh: Mesh
    /// The settings in force, validated.
    var settings: ValidatedSettings
    /// Estimated standard error of each vertex of the mean (metres), from the frame-to-frame
    /// variance; nil with fewer than two accepted frames.
    var standardErrors: [Double]?
    /// Samples of the mean's noise (`Accumulator/noiseSamples()`), for the automatic smoothing.
    var noiseSamples: [[Double]]?
    /// What the expression model removed from the average (nil: it did nothing).
    var expression: Report.Expression?
    /// The colour fused from the frames' images (in the mesh's UVs); nil: clay.
    var texture: RGBAImage? = nil
    /// The report so far: frame counts, input mesh, colour.
    var report: Report
    /// How messages name the frames' source (a capture's file name, `<session>`).
    var name: String
}

/// What stage 2 (``Stages/shape(_:control:)``) gives: the output mesh (in the settings' unit,
/// scaled; decimated or refined, or a solid part), the average it was made from, the report.
package struct Shaped: Sendable {
    /// The output mesh.
    var mesh: Mesh
    /// The average it was made from (the uncertainty picture and the colour need it).
    var average: Average
    /// The report: frames, mesh sizes, noise, smoothing, solid; the stages' timings so far.
    var report: Report
}

extension ScanResult {
    /// The library's result of a shaped scan, `totalMs` its total time.
    init(_ shaped: Shaped, totalMs: Double) {
        var report = shaped.report
        report.timingsMs.total = totalMs
        self.init(
            mesh: shaped.mesh, report: report, averagedFace: shaped.average.mesh,
            standardErrors: shaped.average.standardErrors, texture: shaped.average.texture)
    }
}
