import FaceScanKit

/// `facescan process` (and the sample regression) as the command line runs it: the library's
/// pipeline encodes each output in memory (`Pipeline.encode`), which is staged at once, and the
/// outputs are committed as one ``OutputSet`` (never the library's own, simpler writing).
package enum ProcessOutputs {
    /// `Pipeline.process`, its outputs written as one ``OutputSet``; the staging and the commit
    /// are counted in the report's `timingsMs.export` and `total`.
    package static func process(
        input: String, options: PipelineOptions, progress: ((Pipeline.Progress) -> Void)? = nil
    ) throws(FaceScanError) -> Report {
        let set = OutputSet()
        var report = try Pipeline.encode(input: input, options: options, progress: progress) {
            (f) throws(FaceScanError) in
            do throws(IOFailure) { try set.stage(f.bytes, to: f.path) } catch { throw .io(error) }
        }
        var clock = Stopwatch()
        do throws(IOFailure) { try set.commit() } catch { throw .io(error) }
        let written = clock.lap()
        report.timingsMs.export += written
        report.timingsMs.total += written
        return report
    }
}
