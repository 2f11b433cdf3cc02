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

    /// The stages (``Stages``) over a capture in memory: read it (its settings — `settings` as
    /// given, else the capture's own — validated once, from its header), shape the average.
    static func run(
        _ bytes: [UInt8], _ settings: ScanSettings?, _ name: String,
        isCancelled: (() -> Bool)?
    ) throws(FaceScanError) -> ScanResult {
        let total = Stopwatch()
        if isCancelled?() == true { throw .cancelled }
        let average = try Stages.read(
            CaptureReader(bytes: bytes, name: name),
            settings: { (captureSettings) throws(FaceScanError) in
                // An app's settings as given, named as the API names them; else the capture's own,
                // named by their keys.
                if let settings { return try settings.validated() }
                return try ScanSettings.validated(options: PipelineOptions(), capture: captureSettings, file: name)
            }, threads: 1, progress: nil, isCancelled: isCancelled)
        if isCancelled?() == true { throw .cancelled }
        return ScanResult(try Stages.shape(average), totalMs: total.elapsed)
    }
}
