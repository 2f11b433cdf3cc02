import FaceScanCapture
import FaceScanCore
import FaceScanInterop
import FaceScanRender
import FaceScanSolid

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `facescan process`: capture → gate → mean → smooth → decimate/refine → unit/scale → outputs.
public enum Pipeline {
    /// Progress of the ingest stage, reported after every frame.
    public struct Progress: Sendable {
        /// Frames read so far (accepted or not).
        public var framesRead: Int
        /// Frames the gate accepted so far.
        public var accepted: Int
    }

    /// Runs the whole job on the capture at `input` (`-` for standard input) and writes the
    /// outputs into `options.outputDirectory`: a ``FaceScanSession`` fed from the file, then
    /// every format encoded in memory, then the files written (each to a temporary beside it,
    /// synced, renamed into place, then the directory synced: see the notes of `AtomicFile`).
    ///
    /// Throws `.badInput` or `.badSetting`, `.noAcceptedFrames` (carrying the report), `.io`.
    /// On any error before the files are renamed into place no output file is created or
    /// replaced; the library installs no signal handler (the command line does).
    public static func process(
        input: String, options: PipelineOptions,
        progress: ((Progress) -> Void)? = nil
    ) throws(FaceScanError) -> Report {
        var files: [(path: String, bytes: [UInt8])] = []
        var report = try encode(input: input, options: options, progress: progress) {
            files.append(($0.path, $0.bytes))
        }
        var clock = Stopwatch()
        try lift { () throws(IOFailure) in try AtomicFile.writeSet(files) }
        files.removeAll()
        let written = clock.lap()
        report.timingsMs.export += written
        report.timingsMs.total += written
        return report
    }

    /// One output of ``encode(input:options:progress:)``: where it goes and its bytes.
    package struct EncodedOutput: Sendable {
        /// `options.outputDirectory/NAME.FORMAT`.
        package var path: String
        /// The file's bytes.
        package var bytes: [UInt8]
    }

    /// ``process(input:options:progress:)`` without the writing: each output's bytes are handed
    /// to `output` as soon as they are encoded, in the report's order, and the report (its
    /// `outputs` listing those files) is returned. The output directory is created (or checked)
    /// where `process` does it, before encoding.
    package static func encode(
        input: String, options: PipelineOptions,
        progress: ((Progress) -> Void)? = nil,
        output: (EncodedOutput) throws(FaceScanError) -> Void
    ) throws(FaceScanError) -> Report {
        var clock = Stopwatch()
        let total = Stopwatch()

        // 1. Ingest: stream frames through the gate into the accumulator.
        let ingested: Ingested
        var report: Report
        let name: String
        var texture: RGBAImage?
        do throws(FaceScanError) {
            let session = try Self.read(input: input, options: options, progress: progress)
            name = session.name
            (ingested, report) = try session.mean()
            texture = session.fusedTexture(report: &report)?.image
        } catch .noAcceptedFrames(var failure) {
            failure.report.input = input
            failure.report.timingsMs.ingest = clock.lap()
            failure.report.timingsMs.total = total.elapsed
            throw .noAcceptedFrames(failure)
        } catch .badInput(let e) where CaptureSniff.isJSONButNotCapture(atPath: input) {
            // package.json is not a broken capture: say what it is instead of its first odd field.
            throw .badInput(InputError(file: e.file, CaptureSniff.notACaptureReason))
        }
        report.input = input
        report.timingsMs.ingest = clock.lap()

        // 2. Smooth, 3. decimate / refine (or solid), unit and scale.
        let mesh = try FaceScanSession.shape(ingested, report: &report, name: name)
        _ = clock.lap()

        // 4. Encode every output (the caller writes them).
        let renderMs = try encodeOutputs(
            mesh, ingested, texture: texture, name: options.name ?? defaultName(for: input), options: options,
            report: &report, output: output)
        report.timingsMs.render = renderMs
        report.timingsMs.export = clock.lap() - renderMs
        report.timingsMs.total = total.elapsed
        return report
    }

    /// Step 4 of ``encode(input:options:progress:output:)``: every format of the settings (each
    /// once, in their order) encoded and handed to `output` as `NAME.FORMAT` in the output
    /// directory (created or checked first), an OBJ's material and texture beside it when the mesh
    /// is coloured; each listed in `report.outputs`. Returns the milliseconds spent rendering (the
    /// thumbnail, once, and the uncertainty picture).
    static func encodeOutputs(
        _ mesh: Mesh, _ ingested: Ingested, texture: RGBAImage?, name outputName: String, options: PipelineOptions,
        report: inout Report, output: (EncodedOutput) throws(FaceScanError) -> Void
    ) throws(FaceScanError) -> Double {
        let settings = ingested.settings
        var formats: [FileFormat] = []
        for f in settings.formats.map(\.fileFormat) where !formats.contains(f) { formats.append(f) }
        try lift { () throws(IOFailure) in try AtomicFile.prepareDirectory(options.outputDirectory) }
        var renderMs = 0.0
        var thumbnail: [UInt8]?  // rendered once, for the PNG and the 3MF package thumbnail
        // The texture's PNG (encoded once) when the capture had colour and the mesh kept its UVs.
        let colour = try texture.flatMap { (t) throws(FaceScanError) -> Exporter.Colour? in
            mesh.uvs == nil ? nil : Exporter.Colour(texture: t, png: try PNGEncoder.encode(t, name: "texture"))
        }
        func emit(_ path: String, _ bytes: [UInt8], format: String) throws(FaceScanError) {
            try lift { () throws(IOFailure) in try AtomicFile.checkTarget(path) }
            try output(EncodedOutput(path: path, bytes: bytes))
            report.outputs.append(.init(format: format, path: path, bytes: bytes.count))
        }
        for format in formats {
            var formatClock = Stopwatch()
            let bytes: [UInt8]
            switch format {
            case .png, .threeMF:
                if thumbnail == nil {
                    thumbnail = try Exporter.bytes(
                        mesh, format: .png, render: RenderOptions(size: options.thumbnailSize), colour: colour)
                    renderMs = formatClock.lap()
                }
                bytes =
                    format == .png
                    ? thumbnail ?? []
                    : try Exporter.bytes(
                        mesh, format: format, unit: settings.units, thumbnail: thumbnail, colour: colour,
                        materialLibrary: outputName + ".mtl", printingPosition: settings.solid != nil)
            case .uncertaintyPNG:
                bytes = try uncertaintyPicture(ingested, size: options.thumbnailSize)
                renderMs += formatClock.lap()
            default:
                // Formats with a stated unit are written at the true size whatever --units says.
                bytes = try Exporter.bytes(
                    mesh, format: format, unit: settings.units, thumbnail: thumbnail, colour: colour,
                    materialLibrary: outputName + ".mtl", printingPosition: settings.solid != nil)
            }
            try emit(options.outputDirectory + "/" + outputName + "." + format.name, bytes, format: format.name)
            if format == .obj, let colour {
                // The OBJ's material and its texture beside it, in the same transaction.
                let base = options.outputDirectory + "/" + outputName
                try emit(base + ".mtl", Mesh.mtlBytes(texture: outputName + Exporter.textureSuffix), format: "mtl")
                try emit(base + Exporter.textureSuffix, colour.png, format: "texture.png")
            }
        }
        return renderMs
    }

    /// The averaged face (before smoothing) coloured by each vertex's standard error in µm, with
    /// a legend, as PNG bytes (front view, at least `Heatmap.minimumSize` pixels); all zero and
    /// said so under the picture when one frame was averaged (no estimate).
    static func uncertaintyPicture(_ ingested: Ingested, size: Int) throws(FaceScanError) -> [UInt8] {
        let se = ingested.standardErrors
        let um = se?.map { $0 * 1e6 } ?? [Double](repeating: 0, count: ingested.mesh.vertexCount)
        let noise = Report.Noise(standardErrors: se ?? [])
        let caption =
            se == nil
            ? ["standard error: one frame averaged, no estimate"]
            : [
                "standard error of the average",
                "median \(Heatmap.label(noise.medianStandardErrorUm)) µm, 95%: \(Heatmap.label(noise.p95StandardErrorUm)) µm",
            ]
        let rendered = try Heatmap.render(
            ingested.mesh, valuesUm: um, caption: caption,
            options: RenderOptions(size: max(size, Heatmap.minimumSize)))
        return try PNGEncoder.encode(rendered.image, name: "uncertainty")
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

    /// The result of reading a capture: the mean face (metres) and the settings in force.
    public struct Ingested: Sendable {
        /// The mean face of the accepted frames, metres, before smoothing.
        public var mesh: Mesh
        /// The settings in force: flags over the capture's settings over defaults.
        public var settings: ScanSettings
        /// Estimated standard error of each vertex of the mean (metres), from the frame-to-frame
        /// variance; nil with fewer than two accepted frames.
        public var standardErrors: [Double]?
        /// Samples of the mean's noise (`Accumulator/noiseSamples()`), for the automatic smoothing.
        package var noiseSamples: [[Double]]? = nil
        /// What the expression model removed from the average (nil: it did nothing).
        package var expression: Report.Expression? = nil
    }

    /// Reads the capture, gating and averaging its frames. Fills `report.frames`.
    public static func ingest(
        input: String, options: PipelineOptions, report: inout Report,
        progress: ((Progress) -> Void)? = nil
    ) throws(FaceScanError) -> Ingested {
        do throws(FaceScanError) {
            var (reader, session) = try Self.open(input: input, options: options)
            defer { report.frames = session.report.frames }  // also when reading fails
            try session.read(reader, threads: options.ingestThreads ?? defaultIngestThreads, progress: progress)
            return try session.mean().ingested
        } catch .noAcceptedFrames(let failure) {
            report.frames = failure.report.frames
            report.mesh = failure.report.mesh
            throw .noAcceptedFrames(failure)
        }
    }

    /// Opens the capture at `input`, resolves its settings under `options` and reads every frame
    /// into a session. Bad options are refused before any frame is read.
    static func read(input: String, options: PipelineOptions, progress: ((Progress) -> Void)?) throws(FaceScanError)
        -> FaceScanSession
    {
        var (reader, session) = try open(input: input, options: options)
        try session.read(reader, threads: options.ingestThreads ?? defaultIngestThreads, progress: progress)
        return session
    }

    /// Opens the capture at `input`, reads its header and makes the session for it, its settings
    /// resolved under `options`.
    static func open(input: String, options: PipelineOptions) throws(FaceScanError) -> (CaptureReader, FaceScanSession)
    {
        let reader: CaptureReader
        do throws(IOFailure) {
            reader = try CaptureReader(path: input)
        } catch {
            throw .io(error)
        }
        var settings = ScanSettings()
        // The capture's format names are parsed (and checked) with its settings, the options' by
        // ScanSettings.resolved: nothing here parses a name again.
        let session = try FaceScanSession.open(reader) { (captureSettings) throws(FaceScanError) in
            settings = try ScanSettings.resolved(options: options, settings: captureSettings, file: reader.name)
            return settings
        }
        return (reader, session)
    }

    /// Threads of the ingest stage when ``PipelineOptions/ingestThreads`` is nil: 2 on a machine
    /// with two or more cores, else 1. The output is the same for every thread count.
    public static var defaultIngestThreads: Int {
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 ? 2 : 1
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
