import FaceScanAccumulate
import FaceScanCapture
import FaceScanCore

/// The accumulation side of ingest: accepted frames folded, in capture order, into the
/// `RobustAccumulator` (created by the first frame, which fixes the vertex count).
struct FrameFold: Sendable {
    let rejectOutliers: Bool
    let weighting: FrameWeighting
    var accumulator: RobustAccumulator?

    init(rejectOutliers: Bool, weighting: FrameWeighting = .residual) {
        self.rejectOutliers = rejectOutliers
        self.weighting = weighting
    }

    mutating func add(_ frame: Frame) {
        if accumulator == nil {
            accumulator = RobustAccumulator(
                vertexCount: frame.xyz.count / 3, rejectOutliers: rejectOutliers, weighting: weighting)
        }
        accumulator!.add(frame.xyz, blendShapes: frame.metadata.blendShapes)
    }
}

/// Runs a ``FrameFold`` on a second thread while the calling thread reads and gates the next
/// frames: accepted frames go to the folding thread through a ``HandOff``, and their buffers come
/// back for reuse through another.
///
/// The folding thread takes frames strictly in the order they were submitted, so the fold does
/// exactly the floating-point operations, in exactly the order, of a single-threaded run: the
/// output does not depend on the thread count. Memory: the buffers in flight (at most `buffers`
/// frames plus the one being read), independent of the frame count.
final class ThreadedFold: Sendable {
    /// Accepted frames, in capture order, to the folding thread.
    private let frames: HandOff<Frame>
    /// Folded frames' buffers, back to the reader.
    private let spares: HandOff<Frame>
    /// The fold, from the folding thread when it ends.
    private let folded: HandOff<FrameFold>
    private let thread: Parallel.Thread

    /// Starts the folding thread (a ``Parallel/Thread`` of its own, joined by ``finish()`` or
    /// ``cancel()``) with `buffers` spare frame buffers; nil when the system cannot start a
    /// thread (the caller folds on its own thread: same order, same result).
    init?(_ fold: FrameFold, buffers: Int = 2) {
        precondition(buffers >= 1)
        let frames = HandOff<Frame>(capacity: buffers)
        // Room for every buffer: the reader's own comes back too while it waits for a spare.
        let spares = HandOff<Frame>(capacity: buffers + 1)
        let folded = HandOff<FrameFold>(capacity: 1)
        for _ in 0..<buffers { spares.push(Frame()) }
        let started = Parallel.Thread {
            var fold = fold
            while let frame = frames.pop() {
                fold.add(frame)
                spares.push(consume frame)  // no copy kept: the reader writes into it next
            }
            folded.push(fold)
        }
        guard let started else { return nil }
        (self.frames, self.spares, self.folded, thread) = (frames, spares, folded, started)
    }

    /// Queues `frame` for folding and hands back a spare buffer in its place (waiting for one
    /// when all are in flight).
    func submit(_ frame: inout Frame) {
        frames.push(frame)
        frame = spares.pop()!  // the folding thread gives every frame back and ends only when told
    }

    /// After the last frame: waits until every submitted frame is folded and returns the fold.
    func finish() -> FrameFold {
        frames.finish()
        thread.join()
        return folded.pop()!
    }

    /// On an error: stops the folding thread without folding what is still queued.
    func cancel() {
        frames.cancel()
        thread.join()
    }
}
