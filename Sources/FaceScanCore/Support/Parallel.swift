#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The threads of the decimation, the renderer and ingest's fold (the surface distances and batch's
// workers use `DispatchQueue.concurrentPerform`): a computation splits its work into two sides, each writing
// only its own memory, and joins them in a fixed order, so that the result is the same bytes on
// one thread or two. Nothing here outlives the call or the object that made it: a thread is
// started by its owner and joined before the owner returns (``Parallel/both(_:)``) or when it is
// released (``Parallel/Pair``'s `deinit`, ``Parallel/Thread/join()``). No pool, no cache, no
// process-wide state.

/// An output buffer the sides or tasks of one parallel computation write, each only its own
/// slots, read only after all of them have returned, and not outliving the call that made it:
/// the one `@unchecked Sendable` wrapper of such a buffer (decimation's two counts, the surface
/// and per-vertex distances).
package struct DisjointSlots<Element>: @unchecked Sendable {
    package let base: UnsafeMutableBufferPointer<Element>

    package init(base: UnsafeMutableBufferPointer<Element>) { self.base = base }
}

package enum Parallel {
    /// The name every thread started here carries (`/proc/self/task/*/comm` on Linux), so that a
    /// test can tell that none is left.
    static let threadName = "facescan-side"
    /// `body(0)` on the calling thread and `body(1)` on a thread started for this call (or on the
    /// calling thread too, after side 0, when the system cannot start one); returns when both are
    /// done, with the thread joined. Callers make the sides independent and combine their results
    /// in the order 0, 1.
    package static func both(_ body: @Sendable (Int) -> Void) {
        let pair = Pair()
        pair.run(body)
    }

    /// Names the calling thread ``threadName`` (best effort; Glibc does not export
    /// `pthread_setname_np` to Swift, so on Linux through /proc).
    static func nameThisThread() {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        _ = threadName.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(threadName)
        #endif
    }

    /// A thread of its own (not one of a pool, so it never waits for a busy pool) running one
    /// body until it returns; its owner calls ``join()`` exactly once.
    package struct Thread: @unchecked Sendable {
        private let id: pthread_t

        /// Starts `body` on a new thread; nil when the system cannot start one.
        package init?(_ body: @escaping @Sendable () -> Void) {
            let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
            #if canImport(Darwin)
            var tid: pthread_t?
            #else
            var tid = pthread_t()
            #endif
            let rc = pthread_create(
                &tid, nil,
                { context in
                    #if canImport(Darwin)
                    let box = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
                    #else
                    let box = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
                    #endif
                    Parallel.nameThisThread()
                    box.body()
                    return nil
                }, context)
            guard rc == 0 else {
                Unmanaged<ThreadBody>.fromOpaque(context).release()
                return nil
            }
            #if canImport(Darwin)
            guard let tid else { return nil }
            #endif
            id = tid
        }

        /// Waits until the body has returned; the thread is gone afterwards.
        package func join() {
            pthread_join(id, nil)
        }
    }

    /// A second thread that one computation holds while it runs many two-sided steps
    /// (``run(_:)``): started on the first step, joined in `deinit`. Between steps it sleeps.
    ///
    /// A side the second thread has not taken when the calling thread finishes its own is run by
    /// the calling thread (a thread slow to wake costs a step nothing), so which thread runs a
    /// side varies; callers make the sides independent, so the result does not. When the second
    /// thread took a side and then stalled (its core taken by other work: the calling thread
    /// waited longer than its own side took, plus ``stallSlackNanoseconds``), the pair runs both
    /// sides on the calling thread from then on.
    package final class Pair: @unchecked Sendable {
        /// What the two threads share (the second thread holds it, not the pair, so that the
        /// pair's `deinit` runs when its owner lets go).
        private let shared = Handoff()
        /// Only the owner touches these.
        private var thread: Thread?
        private var startFailed = false
        private var alone = false

        /// How much longer than the caller's own side a wait for the second thread may take
        /// before the pair stops using it.
        static let stallSlackNanoseconds: UInt64 = 200_000

        package init() {}

        private static func now() -> UInt64 { Parallel.monotonicNanoseconds() }

        deinit {
            guard let thread else { return }
            shared.stop()
            thread.join()
        }

        /// `body(0)` on the calling thread and `body(1)` on the pair's thread (or on the calling
        /// thread when that has not taken it by then); returns when both are done.
        package func run(_ body: @Sendable (Int) -> Void) {
            if thread == nil && !startFailed {
                let shared = self.shared
                thread = Thread { shared.serve() }
                startFailed = thread == nil
            }
            guard thread != nil && !alone else {
                body(0)
                body(1)
                return
            }
            withoutActuallyEscaping(body) { side in
                shared.post(side)
                let start = Self.now()
                side(0)
                let own = Self.now()
                if shared.takeBack() {
                    side(1)
                } else if Self.now() &- own > own &- start &+ Self.stallSlackNanoseconds {
                    alone = true
                }
            }
        }
    }

    /// Monotonic nanoseconds.
    fileprivate static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// One side at a time handed from the owner of a ``Pair`` to its thread.
    private final class Handoff: @unchecked Sendable {
        private enum State { case idle, posted, taken, finished }

        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        /// Signalled when a side is posted or the pair stops.
        private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        /// Signalled when the thread finished the side it took.
        private let finished = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        // Guarded by `lock`.
        private var state = State.idle
        private var stopping = false
        private var job: (@Sendable (Int) -> Void)?

        init() {
            pthread_mutex_init(lock, nil)
            pthread_cond_init(wake, nil)
            pthread_cond_init(finished, nil)
        }

        deinit {
            pthread_cond_destroy(finished)
            pthread_cond_destroy(wake)
            pthread_mutex_destroy(lock)
            finished.deallocate()
            wake.deallocate()
            lock.deallocate()
        }

        /// Offers side 1 of `body` to the thread.
        func post(_ body: @escaping @Sendable (Int) -> Void) {
            pthread_mutex_lock(lock)
            job = body
            state = .posted
            pthread_cond_signal(wake)
            pthread_mutex_unlock(lock)
        }

        /// After the owner's side: true when the thread has not taken the posted side (the owner
        /// runs it), else waits until the thread has finished it.
        func takeBack() -> Bool {
            pthread_mutex_lock(lock)
            defer {
                state = .idle
                job = nil
                pthread_mutex_unlock(lock)
            }
            if state == .posted { return true }
            while state != .finished { pthread_cond_wait(finished, lock) }
            return false
        }

        /// Ends ``serve()``.
        package func stop() {
            pthread_mutex_lock(lock)
            stopping = true
            pthread_cond_signal(wake)
            pthread_mutex_unlock(lock)
        }

        /// The thread's loop: runs each posted side it takes, until ``stop()``.
        func serve() {
            pthread_mutex_lock(lock)
            while true {
                while state != .posted && !stopping { pthread_cond_wait(wake, lock) }
                if stopping { break }
                state = .taken
                let side = job!
                pthread_mutex_unlock(lock)
                side(1)
                pthread_mutex_lock(lock)
                state = .finished
                pthread_cond_signal(finished)
            }
            pthread_mutex_unlock(lock)
        }
    }
}

/// The body of a ``Parallel/Thread``, passed through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
