import Dispatch
import Synchronization

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
/// frames: a bounded FIFO hand-off over a fixed set of reusable frame buffers.
///
/// The folding thread takes frames strictly in the order they were submitted, so the fold does
/// exactly the floating-point operations, in exactly the order, of a single-threaded run: the
/// output does not depend on the thread count. Memory: the buffers in flight (at most `buffers`
/// frames plus the one being read), independent of the frame count.
final class ThreadedFold: Sendable {
    private struct State: Sendable {
        /// Submitted, not yet folded (oldest first).
        var queue: [Frame] = []
        /// Folded buffers, ready for reuse by the reader.
        var free: [Frame]
        var closed = false
        var cancelled = false
        /// The fold: handed to the folding thread at its start and back when it ends.
        var fold: FrameFold?
    }

    private let state: Mutex<State>
    /// Counts frames in `queue` (plus one wake-up for close / cancel).
    private let queued = DispatchSemaphore(value: 0)
    /// Counts buffers in `free`.
    private let spare: DispatchSemaphore
    private let thread: Mutex<Parallel.Thread?> = Mutex(nil)

    /// Starts the folding thread (a ``Parallel/Thread`` of its own, joined by ``finish()`` or
    /// ``cancel()``) with `buffers` spare frame buffers.
    init(_ fold: FrameFold, buffers: Int = 2) {
        precondition(buffers >= 1)
        state = Mutex(State(free: (0..<buffers).map { _ in Frame() }, fold: fold))
        // Created at 0 and raised: libdispatch traps when a semaphore is freed below its
        // initial value (as `spare` is after a cancel).
        spare = DispatchSemaphore(value: 0)
        for _ in 0..<buffers { spare.signal() }
        // The thread holds a reference until it ends.
        if let started = Parallel.Thread({ self.run() }) {
            thread.withLock { $0 = started }
        }
        // Else no thread: `submit` folds on the calling thread instead (same order, same result).
    }

    /// Queues `frame` for folding and hands back a spare buffer in its place (waiting for one
    /// when all are in flight).
    func submit(_ frame: inout Frame) {
        guard thread.withLock({ $0 != nil }) else {
            state.withLock { $0.fold!.add(frame) }
            return
        }
        spare.wait()
        var next = Frame()
        state.withLock { s in
            next = s.free.removeLast()
            s.queue.append(frame)
        }
        frame = next
        queued.signal()
    }

    /// After the last frame: waits until every submitted frame is folded and returns the fold.
    func finish() -> FrameFold {
        stop { $0.closed = true }
        return state.withLock { $0.fold! }
    }

    /// On an error: stops the folding thread without folding what is still queued.
    func cancel() {
        stop { $0.cancelled = true }
    }

    private func stop(_ mark: (inout State) -> Void) {
        state.withLock { mark(&$0) }
        guard
            let running = thread.withLock({ t in
                defer { t = nil }; return t
            })
        else { return }
        queued.signal()
        running.join()
    }

    /// The folding thread's loop.
    private func run() {
        var fold = state.withLock { s in
            defer { s.fold = nil }; return s.fold!
        }
        while true {
            queued.wait()
            let next: Frame? = state.withLock { s in
                if s.cancelled || s.queue.isEmpty { return nil }  // empty after a wake-up: closed
                return s.queue.removeFirst()
            }
            guard let frame = next else { break }
            fold.add(frame)
            state.withLock { $0.free.append(frame) }
            spare.signal()
        }
        state.withLock { $0.fold = fold }
    }
}
