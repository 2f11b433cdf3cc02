import Dispatch
import Synchronization

/// A bounded first-in, first-out hand-off of values from one producing thread to one consuming
/// thread: the one way facescan's threads pass work to each other (decimation's and the
/// renderer's two sides, ingest's frame parsing and its fold).
///
/// Values come out in the order they went in, so a pipeline built on it does the same work in
/// the same order whatever the timing: nothing here measures time or decides by it. At most
/// `capacity` values wait in it: ``push(_:)`` blocks while it is full, ``pop()`` while it is
/// empty; blocking waits on a semaphore (the thread sleeps, it does not spin).
///
/// The producer ends the stream with ``finish()`` (the consumer gets what is queued, then nil)
/// or ``cancel()`` (on an error or when the work is abandoned: the consumer's next ``pop()``
/// returns nil, the values still queued are dropped); the consumer stops taking with ``stop()``
/// (the producer's pushes return false from then on, a blocked one wakes). Roles are fixed: one
/// thread at a time calls the producer's methods, one the consumer's. It starts no thread and
/// holds no process-wide state: it lives as long as the call or object that made it.
package final class HandOff<Element: Sendable>: Sendable {
    private struct State: Sendable {
        /// A ring of `capacity` slots; a slot is nil once its value was taken, so that the
        /// queue holds no reference to a value the consumer has.
        var ring: [Element?]
        var head = 0
        var count = 0
        var finished = false
        var cancelled = false
        var stopped = false
    }

    /// The most values that wait in the hand-off at once.
    package let capacity: Int
    private let state: Mutex<State>
    /// One signal per value pushed, plus one for ``finish()`` or ``cancel()``.
    private let items = DispatchSemaphore(value: 0)
    /// One signal per free slot, plus one for ``stop()``.
    private let spaces = DispatchSemaphore(value: 0)

    /// An empty hand-off holding at most `capacity` (at least 1) values.
    package init(capacity: Int) {
        precondition(capacity >= 1, "a hand-off holds at least one value")
        self.capacity = capacity
        state = Mutex(State(ring: [Element?](repeating: nil, count: capacity)))
        // Created at 0 and raised: libdispatch traps when a semaphore is freed below the value
        // it was created with (as `spaces` is while values wait).
        for _ in 0..<capacity { spaces.signal() }
    }

    // MARK: the producer's side

    /// Appends `value`, waiting while the hand-off is full. Returns false, dropping `value`,
    /// when the consumer has stopped (``stop()``), also while waiting.
    @discardableResult
    package func push(_ value: Element) -> Bool {
        if state.withLock({ $0.stopped }) { return false }
        spaces.wait()
        let taken = state.withLock { s -> Bool in
            if s.stopped { return false }
            precondition(!s.finished && !s.cancelled, "push after finish() or cancel()")
            s.ring[(s.head + s.count) % capacity] = value
            s.count += 1
            return true
        }
        if taken { items.signal() }
        return taken
    }

    /// No more values: the consumer gets the ones queued, then nil.
    package func finish() {
        state.withLock { $0.finished = true }
        items.signal()
    }

    /// Abandons the stream: the consumer's next ``pop()`` (or the one it is blocked in) returns
    /// nil without the values still queued, which are dropped.
    package func cancel() {
        state.withLock { s in
            s.cancelled = true
            for i in 0..<s.count { s.ring[(s.head + i) % capacity] = nil }
            s.count = 0
        }
        items.signal()
    }

    // MARK: the consumer's side

    /// The oldest value, waiting while the hand-off is empty; nil once the producer finished and
    /// every value was taken, or cancelled.
    package func pop() -> Element? {
        if state.withLock({ $0.cancelled || ($0.finished && $0.count == 0) }) { return nil }
        items.wait()
        let value = state.withLock { s -> Element? in
            if s.cancelled || s.count == 0 { return nil }  // empty after a wake-up: finished
            let v = s.ring[s.head].take()
            s.head = (s.head + 1) % capacity
            s.count -= 1
            return v
        }
        if value != nil { spaces.signal() }
        return value
    }

    /// Takes no more values: the producer's pushes return false from now on (one blocked in
    /// ``push(_:)`` wakes); values still queued are dropped when the hand-off goes.
    package func stop() {
        state.withLock { $0.stopped = true }
        spaces.signal()
    }
}
