/// Whether the work under way should stop: the task running it was cancelled (an `async`
/// ``FaceScanSession/finish(progress:)`` or ``FaceScan/process(capture:settings:name:)`` its
/// caller gave up). The long steps ask every few milliseconds of work — refinement every 1 024
/// splits, decimation every pass, the solid's face frame every round, its distance field every
/// 32nd of its columns, the back's extraction every layer, the crossing search every layer
/// of its cells, the solid's recipe between its steps — and stop where they are; the step that
/// called them throws `.cancelled`. A thread started by ``Parallel`` has no task and never asks:
/// its work is cut in rounds and the calling thread asks between them.
package enum Cancellation {
    /// The current task was cancelled (false outside a task).
    @inlinable @inline(__always) package static var requested: Bool { Task.isCancelled }

    /// Throws the narrow error a step fails with when asked to stop (the caller's catch turns it
    /// into ``FaceScanError/cancelled``).
    package static func check() throws(UsageError) {
        if requested { throw UsageError("cancelled") }
    }
}
