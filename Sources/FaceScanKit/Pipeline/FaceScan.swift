import FaceScanCapture
import FaceScanCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// In-memory entry points: a whole capture (JSON document or NDJSON, FORMAT.md) in bytes → the
/// mesh and the report. Nothing is read from or written to files.
///
/// ```swift
/// let result = try FaceScan.process(capture: bytes)
/// let stl = try result.mesh.encoded(as: .stl)
/// ```
public enum FaceScan {
    /// Processes the capture in `capture`. `settings`: nil uses the capture's own `settings`
    /// over the defaults (as `facescan process` does without flags); given, exactly these are
    /// used (the capture's settings are still checked). `name` names the capture in messages.
    ///
    /// Throws `.badInput` (the capture breaks its format, or a setting in it is invalid),
    /// `.badSetting`, `.noAcceptedFrames` (carrying the report).
    public static func process(capture: [UInt8], settings: ScanSettings? = nil, name: String = "<capture>")
        throws(FaceScanError) -> ScanResult
    {
        try run(capture, settings, name, isCancelled: nil)
    }

    /// ``process(capture:settings:name:)`` for any bytes (a slice, `Data`, …).
    public static func process(capture: some Sequence<UInt8>, settings: ScanSettings? = nil, name: String = "<capture>")
        throws(FaceScanError) -> ScanResult
    {
        try run(Array(capture), settings, name, isCancelled: nil)
    }

    #if canImport(FoundationEssentials) || canImport(Foundation)
    /// ``process(capture:settings:name:)`` for `Data`.
    public static func process(capture: Data, settings: ScanSettings? = nil, name: String = "<capture>")
        throws(FaceScanError) -> ScanResult
    {
        try run([UInt8](capture), settings, name, isCancelled: nil)
    }
    #endif

    /// The same, checking between frames whether the task was cancelled (then throws `.cancelled`).
    /// Runs on the caller's executor: a long capture keeps it busy (hundreds of milliseconds).
    public static func process(capture: [UInt8], settings: ScanSettings? = nil, name: String = "<capture>")
        async throws(FaceScanError) -> ScanResult
    {
        try run(capture, settings, name, isCancelled: { Task.isCancelled })
    }

    #if canImport(FoundationEssentials) || canImport(Foundation)
    /// The `async` form for `Data`.
    public static func process(capture: Data, settings: ScanSettings? = nil, name: String = "<capture>")
        async throws(FaceScanError) -> ScanResult
    {
        try run([UInt8](capture), settings, name, isCancelled: { Task.isCancelled })
    }
    #endif

    static func run(
        _ bytes: [UInt8], _ settings: ScanSettings?, _ name: String,
        isCancelled: (() -> Bool)?
    ) throws(FaceScanError) -> ScanResult {
        if isCancelled?() == true { throw .cancelled }
        let reader = CaptureReader(bytes: bytes, name: name)
        var session = try FaceScanSession.open(reader) { (s) throws(FaceScanError) in
            // The capture's own settings, checked and named by their keys; an app's settings as given.
            if let settings { return settings }
            return try ScanSettings.resolved(options: PipelineOptions(), settings: s, file: name)
        }
        try session.read(reader, threads: 1, progress: nil, isCancelled: isCancelled)
        if isCancelled?() == true { throw .cancelled }
        return try session.finish()
    }
}

extension FaceScanSession {
    /// Reads `reader`'s header and makes the session for it: `resolve` turns the capture's
    /// checked settings into the settings of the run; `check` may refuse them (before any frame).
    static func open(
        _ reader: CaptureReader, resolve: (CaptureSettings) throws(FaceScanError) -> ScanSettings,
        check: () throws(UsageError) -> Void = {}
    ) throws(FaceScanError) -> FaceScanSession {
        let captureSettings: CaptureSettings
        let topology: Topology
        do throws(InputError) {
            try reader.readHeader()
            captureSettings = try CaptureSettings(checking: reader.settings)
            topology = reader.topology!  // readHeader refuses a capture without one
        } catch {
            throw .badInput(error)
        }
        let settings = try resolve(captureSettings)
        do throws(UsageError) {
            try check()
        } catch {
            throw .badSetting(error)
        }
        return try FaceScanSession(topology: topology, settings: settings, name: reader.name)
    }

    /// Reads every remaining frame of `reader` into the session until it is complete, then
    /// checks the rest of the capture. The reader's frames are checked by the reader; this
    /// thread gates; with `threads` 1 it also reads and decodes. With `threads` 2 frames are parsed
    /// on this thread and a second one (`ParallelFrames`, which thread parses a frame fixed by its
    /// index) and accepted frames are folded into the average on a third (`ThreadedFold`), each
    /// handed on through a `HandOff` in capture order: the same result.
    mutating func read(
        _ reader: CaptureReader, threads: Int, progress: ((Pipeline.Progress) -> Void)?,
        isCancelled: (() -> Bool)? = nil
    ) throws(FaceScanError) {
        var frame = Frame()
        reader.deferImageProblems = true  // thrown or skipped below, as the settings say
        var fold = FrameFold(rejectOutliers: settings.rejectOutliers, weighting: settings.frameWeighting)
        fold.accumulator = accumulator
        let threaded = threads > 1 ? ThreadedFold(fold) : nil
        let parallel = threads > 1 ? ParallelFrames(reader) : nil
        defer { parallel?.stop() }
        var cancelled = false
        var imageError: FaceScanError?
        do throws(InputError) {
            while !isComplete {
                let more = if let parallel { try parallel.next(&frame) } else { try reader.nextFrame(&frame) }
                guard more else { break }
                if let isCancelled, isCancelled() {
                    cancelled = true
                    break
                }
                let accepted = judge(frame).isAccepted
                if let problem = frame.imageProblem {
                    do throws(FaceScanError) {
                        try skipOrThrow(problem)
                    } catch {
                        imageError = error
                        break
                    }
                    if accepted, fusion != nil { fusion!.observe(frame.xyz) }  // its geometry only
                } else if frame.encodedImage != nil {
                    do throws(FaceScanError) {
                        try fuseEncodedImage(of: frame, accepted: accepted)
                    } catch {
                        imageError = error
                        break
                    }
                    frame.encodedImage = nil  // not kept beyond this frame
                } else if accepted, fusion != nil {
                    fusion!.observe(frame.xyz)  // the running mean the next images are laid on
                }
                if accepted {
                    if let threaded { threaded.submit(&frame) } else { fold.add(frame) }
                }
                progress?(Pipeline.Progress(framesRead: report.frames.read, accepted: report.frames.accepted))
            }
            if !cancelled && imageError == nil {
                try parallel?.skipInFlight()
                _ = try reader.skipRemainingFrames()
                try reader.finish()
            }
        } catch {
            threaded?.cancel()
            throw .badInput(error)
        }
        if cancelled {
            threaded?.cancel()
            throw .cancelled
        }
        if let imageError {
            threaded?.cancel()
            throw imageError
        }
        if let threaded { fold = threaded.finish() }
        accumulator = fold.accumulator
        report.frames.rejected.outlier = accumulator?.outliers ?? 0
    }
}
