import FaceScanCapture
import FaceScanCore

/// A session fed from a capture: its header makes the session, its frames are read into it.
extension FaceScanSession {
    /// Reads `reader`'s header and makes the session for it: `settings` turns the capture's
    /// type-checked settings into the validated settings of the run (before any frame).
    init(
        reading reader: CaptureReader, settings: (CaptureSettings) throws(FaceScanError) -> ValidatedSettings
    ) throws(FaceScanError) {
        let captureSettings: CaptureSettings
        let topology: Topology
        do throws(InputError) {
            try reader.readHeader()
            captureSettings = try CaptureSettings(checking: reader.settings)
            topology = reader.topology!  // readHeader refuses a capture without one
        } catch {
            throw .badInput(error)
        }
        let validated = try settings(captureSettings)
        try self.init(topology: topology, name: reader.name) { validated }
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
