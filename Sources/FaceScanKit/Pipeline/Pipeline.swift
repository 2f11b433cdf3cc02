#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `facescan process`: capture → gate → mean → smooth → decimate/refine → unit/scale → outputs.
public enum Pipeline {
    /// Progress of the ingest stage, reported after every frame.
    public struct Progress: Sendable {
        public var framesRead: Int
        public var accepted: Int
    }

    /// Runs the whole job on the capture at `input` (`-` for standard input) and writes the
    /// outputs atomically into `options.outputDirectory`.
    ///
    /// Throws ``InputError`` or ``UsageError`` (exit 2), ``NoAcceptedFrames`` (exit 3, carrying the
    /// report), ``IOFailure`` (exit 1). On any error no output file is created or replaced.
    public static func process(input: String, options: PipelineOptions,
                               progress: ((Progress) -> Void)? = nil) throws -> Report {
        var report = Report(input: input)
        var clock = Stopwatch()
        let total = Stopwatch()

        // 1. Ingest: stream frames through the gate into the accumulator.
        let ingest: Ingested
        do {
            ingest = try Self.ingest(input: input, options: options, report: &report, progress: progress)
        } catch var failure as NoAcceptedFrames {
            failure.report.timingsMs.ingest = clock.lap()
            failure.report.timingsMs.total = total.elapsed
            throw failure
        }
        var settings = ingest.settings
        var mesh = ingest.mesh
        report.mesh.inputVertices = mesh.vertexCount
        report.mesh.inputTriangles = mesh.triangleCount
        report.timingsMs.ingest = clock.lap()

        // 2. Smooth.
        if settings.smoothingIterations == ResolvedSettings.autoSmoothing {
            settings.smoothingIterations = NoiseEstimate.autoIterations(standardErrors: ingest.standardErrors)
        }
        if settings.smoothingIterations > 0 {
            let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
            var taubin = TaubinOptions(iterations: settings.smoothingIterations, weights: options.smoothingWeights)
            taubin.normalOnly = true
            if options.noiseLimit > 0, let se = ingest.standardErrors {
                taubin.displacementLimit = se.map { Float($0 * options.noiseLimit) }
            }
            if options.featureScale > 0, let se = ingest.standardErrors {
                taubin.featureScale = se.map { Float($0 * options.featureScale) }
            }
            let smoothed = Taubin.smooth(mesh, adjacency: adjacency, options: taubin)
            if let se = ingest.standardErrors {
                report.accuracy = NoiseEstimate.measure(mesh: mesh, smoothed: smoothed, standardErrors: se,
                                                        adjacency: adjacency, options: taubin)
            }
            mesh = smoothed
        } else if let se = ingest.standardErrors {
            let rms = NoiseEstimate.rms(se) * 1e6
            report.accuracy = Report.Accuracy(noiseBeforeUm: rms, noiseAfterUm: rms)
        }
        report.timingsMs.smooth = clock.lap()

        // 3. Decimate / refine to the exact target (for a solid: the target of the whole part).
        //    An unreachable target is a property of this capture: the error names it.
        do {
            if let solid = settings.solid {
                let part = try solidPart(mesh, solid, settings)
                mesh = part.mesh
                report.scale = part.scale
                report.depthMm = part.depth
            } else {
                mesh = try Decimation.simplify(mesh, targetVertices: settings.targetVertices)
                mesh = mesh.scaled(by: Float(settings.outputFactor))
            }
        } catch let e as UsageError {
            throw e.naming(input: input)
        }
        // Float32 output coordinates: a face far from the origin, or a large scale, can overflow.
        if mesh.positions.contains(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw InputError(file: CaptureReader.displayName(input), field: "vertices",
                             "coordinates do not fit 32-bit floats once in \(settings.units.rawValue) and scaled by \(settings.scale)")
        }
        report.timingsMs.decimate = clock.lap()

        // 4. Encode and write every output atomically.
        report.mesh.outputVertices = mesh.vertexCount
        report.mesh.outputTriangles = mesh.triangleCount
        let formats = try Exporter.parseList(settings.formats)
        let name = options.name ?? defaultName(for: input)
        try OutputTransaction.prepareDirectory(options.outputDirectory)
        let transaction = OutputTransaction()
        var renderMs = 0.0
        var thumbnail: [UInt8]?  // rendered once, for the PNG and the 3MF package thumbnail
        for format in formats {
            var formatClock = Stopwatch()
            if format == "png" || format == "3mf", thumbnail == nil {
                thumbnail = try Exporter.bytes(mesh, format: "png", render: RenderOptions(size: options.thumbnailSize))
                renderMs = formatClock.lap()
            }
            // Formats with a stated unit are written at the true size whatever --units says.
            let bytes = try format == "png" ? thumbnail ?? [] : Exporter.bytes(mesh, format: format, unit: settings.units, thumbnail: thumbnail)
            let path = options.outputDirectory + "/" + name + "." + format
            try transaction.stage(bytes, to: path)
            report.outputs.append(.init(format: format, path: path, bytes: bytes.count))
        }
        try transaction.commit()
        report.timingsMs.render = renderMs
        report.timingsMs.export = clock.lap() - renderMs
        report.timingsMs.total = total.elapsed
        return report
    }

    /// A closed, printable part with exactly `settings.targetVertices` vertices, in printing
    /// position: interior holes filled on the smoothed surface, scaled to the output unit, then
    /// the surface decimated (or refined) to the count whose solid
    /// (``Solidify/part(_:options:unitInMillimetres:vertexCount:)``) comes closest below the
    /// target, and that solid's longest edges split at their middles up to the target. The count
    /// is found from the full surface's solid, then corrected by what each try gives (a few tries).
    static func solidPart(_ smoothed: Mesh, _ solid: SolidOptions, _ settings: ResolvedSettings) throws -> Solidify.Part {
        let target = settings.targetVertices
        let unit = settings.units.millimetres
        let full = Solidify.fillHoles(smoothed).scaled(by: Float(settings.outputFactor))
        let probe = try Solidify.part(full, options: solid, unitInMillimetres: unit)
        var want = Int(Double(full.vertexCount) * Double(target) / Double(probe.mesh.vertexCount))
        var smallest = probe.mesh.vertexCount
        for _ in 0..<8 {
            want = min(want, Decimation.maximumTargetVertices)
            guard want >= Decimation.minimumVertices else { break }
            let surface = try Decimation.simplify(full, targetVertices: want)
            var part = try Solidify.part(surface, options: solid, unitInMillimetres: unit)
            smallest = min(smallest, part.mesh.vertexCount)
            if part.mesh.vertexCount <= target {
                part.mesh = try Solidify.padded(part.mesh, to: target)
                return part
            }
            want = min(want - 1, Int(Double(want) * Double(target) / Double(part.mesh.vertexCount) * 0.98))
        }
        throw UsageError("cannot reach \(target) vertices for a solid part: the fewest found is \(smallest)")
    }

    /// The result of reading a capture: the mean face (metres) and the settings in force.
    public struct Ingested: Sendable {
        public var mesh: Mesh
        public var settings: ResolvedSettings
        /// Estimated standard error of each vertex of the mean (metres), from the frame-to-frame
        /// variance; nil with fewer than two accepted frames.
        public var standardErrors: [Double]?
    }

    /// Reads the capture, gating and averaging its frames. Fills `report.frames`.
    public static func ingest(input: String, options: PipelineOptions, report: inout Report,
                              progress: ((Progress) -> Void)? = nil) throws -> Ingested {
        let reader = try CaptureReader(path: input)
        try reader.readHeader()
        let settings = ResolvedSettings(options: options, settings: reader.settings)
        // Reject bad options before reading any frame; the capture's own list must be valid even
        // when --formats overrides it.
        if let listed = reader.settings.exportFormats {
            do throws(UsageError) {
                _ = try Exporter.parseList(listed)
            } catch {
                throw InputError(file: reader.name, field: "settings.exportFormats", error.message)
            }
        }
        _ = try Exporter.parseList(settings.formats)
        let gate = QualityGate(thresholds: settings.gate)
        var frame = Frame()
        // This thread reads, decodes and gates; accepted frames are folded into the average in
        // capture order, on a second thread when there is one (see ``ThreadedFold``).
        var fold = FrameFold(rejectOutliers: options.rejectOutliers, weighting: options.frameWeighting)
        let threaded = (options.ingestThreads ?? defaultIngestThreads) > 1 ? ThreadedFold(fold) : nil
        do {
            while report.frames.accepted < settings.maxFrames, try reader.nextFrame(&frame) {
                report.frames.read += 1
                if let reason = gate.judge(frame.metadata) {
                    switch reason {
                    case .distance: report.frames.rejected.distance += 1
                    case .tracking: report.frames.rejected.tracking += 1
                    case .lighting: report.frames.rejected.lighting += 1
                    case .expression: report.frames.rejected.expression += 1
                    }
                } else {
                    if let threaded { threaded.submit(&frame) } else { fold.add(frame) }
                    report.frames.accepted += 1
                }
                progress?(Progress(framesRead: report.frames.read, accepted: report.frames.accepted))
            }
            _ = try reader.skipRemainingFrames()
            try reader.finish()
        } catch {
            threaded?.cancel()
            throw error
        }
        if let threaded { fold = threaded.finish() }
        var accumulator = fold.accumulator
        accumulator?.finish()
        report.frames.rejected.outlier = accumulator?.outliers ?? 0
        guard let acc = accumulator?.accumulator, let positions = acc.mean(), let topology = reader.topology else {
            report.mesh.inputVertices = reader.vertexCount ?? 0
            report.mesh.inputTriangles = (reader.topology?.triangles.count ?? 0) / 3
            throw NoAcceptedFrames(file: reader.name, report: report)
        }
        var uvs: [SIMD2<Float>]?
        if let t = topology.textureCoordinates {
            uvs = (0..<positions.count).map { SIMD2(t[2 * $0], t[2 * $0 + 1]) }
        }
        return Ingested(mesh: Mesh(positions: positions, triangles: topology.triangles, uvs: uvs), settings: settings,
                        standardErrors: acc.standardErrors())
    }

    /// Threads of the ingest stage when ``PipelineOptions/ingestThreads`` is nil: the environment
    /// variable `FACESCAN_INGEST_THREADS` (1 or 2) if set, else 2 on a machine with two or more
    /// cores. The output is the same for every thread count.
    public static var defaultIngestThreads: Int {
        if let v = getenv("FACESCAN_INGEST_THREADS"), let n = Int(String(cString: v)), n >= 1 { return min(n, 2) }
        return sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 ? 2 : 1
    }

    /// Output base name for an input path: its file name without the extension.
    public static func defaultName(for input: String) -> String {
        if input == "-" { return "face" }
        var base = Substring(input)
        if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        // Outputs never start with '.' (hidden, and the temporary files' prefix).
        base = base.drop { $0 == "." }
        return base.isEmpty ? "face" : String(base)
    }
}

