import FaceScanCapture
import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `facescan process`: a capture file → its outputs, by the three stages (`Stages`): read
/// (gate, mean), shape (smooth, decimate/refine or solid, unit and scale), write (each format).
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
    ///
    /// The three stages (`Stages`), in order, once: read the capture into its average (the
    /// settings — these options over the capture's `settings` — validated once, from its header),
    /// shape the average into the output mesh, write each format's bytes.
    package static func encode(
        input: String, options: PipelineOptions,
        progress: ((Progress) -> Void)? = nil,
        output: (EncodedOutput) throws(FaceScanError) -> Void
    ) throws(FaceScanError) -> Report {
        var clock = Stopwatch()
        let total = Stopwatch()

        // 1. Read: stream the frames through the gate into the average.
        var average: Average
        do throws(FaceScanError) {
            let reader = try open(input)
            average = try Stages.read(
                reader,
                settings: { (captureSettings) throws(FaceScanError) in
                    try ScanSettings.validated(options: options, capture: captureSettings, file: reader.name)
                }, threads: options.ingestThreads ?? defaultIngestThreads, progress: progress)
        } catch .noAcceptedFrames(var failure) {
            failure.report.input = input
            failure.report.timingsMs.ingest = clock.lap()
            failure.report.timingsMs.total = total.elapsed
            throw .noAcceptedFrames(failure)
        } catch .badInput(let e) where CaptureSniff.isJSONButNotCapture(atPath: input) {
            // package.json is not a broken capture: say what it is instead of its first odd field.
            throw .badInput(InputError(file: e.file, CaptureSniff.notACaptureReason))
        }
        average.report.input = input
        average.report.timingsMs.ingest = clock.lap()

        // 2. Shape: smooth, decimate / refine (or solid), unit and scale.
        let shaped = try Stages.shape(average)
        _ = clock.lap()

        // 3. Write: every output encoded and handed to the caller, NAME.FORMAT in the directory.
        var report = shaped.report
        try lift { () throws(IOFailure) in try AtomicFile.prepareDirectory(options.outputDirectory) }
        let renderMs = try Stages.write(
            shaped, formats: shaped.average.settings.formats, name: options.name ?? defaultName(for: input),
            thumbnailSize: options.thumbnailSize, renderThreads: options.renderThreads ?? defaultRenderThreads
        ) { (file) throws(FaceScanError) in
            let path = options.outputDirectory + "/" + file.name
            try lift { () throws(IOFailure) in try AtomicFile.checkTarget(path) }
            try output(EncodedOutput(path: path, bytes: file.bytes))
            report.outputs.append(.init(format: file.format, path: path, bytes: file.bytes.count))
        }
        report.timingsMs.render = renderMs
        report.timingsMs.export = clock.lap() - renderMs
        report.timingsMs.total = total.elapsed
        return report
    }

    /// The capture reader for `input` (`-`: standard input).
    package static func open(_ input: String) throws(FaceScanError) -> CaptureReader {
        do throws(IOFailure) {
            return try CaptureReader(path: input)
        } catch {
            throw .io(error)
        }
    }

    /// Threads of the ingest stage when ``PipelineOptions/ingestThreads`` is nil: 2 on a machine
    /// with two or more cores, else 1. The output is the same for every thread count.
    public static var defaultIngestThreads: Int {
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 ? 2 : 1
    }

    /// Threads of the thumbnail's render when ``PipelineOptions/renderThreads`` is nil: 2 on a
    /// machine with two or more cores, else 1 (the thumbnail of the ICT sample in `process`: a
    /// median 7.6 ms against 9.0 ms with one, 1 % more CPU). The output is the same for every
    /// thread count.
    public static var defaultRenderThreads: Int { defaultIngestThreads }

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
