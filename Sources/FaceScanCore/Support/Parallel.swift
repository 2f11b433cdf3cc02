#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The threads of the decimation, the renderer, the solid's distance field and ingest (the surface
// distances and batch's workers use `DispatchQueue.concurrentPerform`): a computation splits its work
// into two sides, each writing only its own memory, and joins them in a fixed order, so that the
// result is the same bytes on one thread or two. Nothing here outlives the call or the object that
// made it: a thread is started by its owner and joined when it is released (``Parallel/Pair``'s
// `deinit`) or before the owner returns (``Parallel/Thread/join()``). Work passes between threads
// only through a ``HandOff`` (bounded, in order, one producer and one consumer). No pool, no
// cache, no process-wide state.

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
    /// `body(0)` and `body(1)`: on `pair`'s two threads (``Pair/run(_:)``), or in order on the
    /// calling thread without one — what a step that splits its work in two calls, whether or
    /// not its caller started a pair. Callers make the sides independent and combine their
    /// results in the order 0, 1.
    package static func both(on pair: Pair?, _ body: @Sendable (Int) -> Void) {
        if let pair {
            pair.run(body)
        } else {
            body(0)
            body(1)
        }
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
    /// (``run(_:)``): started with the pair, joined in `deinit`. Between steps it sleeps.
    ///
    /// Each step hands side 1 to the thread through a ``HandOff`` and the thread hands back
    /// that it is done through another: side 0 always runs on the calling thread and side 1 on
    /// the pair's, whatever the timing. Whether a computation is worth two threads is the
    /// caller's decision, made by the size of its input (decimation: ``Parallel/Pair`` only from
    /// 32 768 triangles, a step split only from 4 096), never by a measured time.
    package final class Pair: Sendable {
        /// Side 1 of the current step, to the thread.
        private let jobs = HandOff<@Sendable (Int) -> Void>(capacity: 1)
        /// One value per finished side 1, from the thread.
        private let done = HandOff<Void>(capacity: 1)
        /// Nil when the system could not start one: both sides run on the calling thread.
        private let thread: Thread?

        /// Starts the pair's thread.
        package init() {
            let (jobs, done) = (self.jobs, self.done)
            thread = Thread {
                while Self.runSide(jobs) { done.push(()) }
            }
        }

        deinit {
            jobs.finish()
            thread?.join()
        }

        /// Runs the next side 1 from `jobs`; false when the pair ends. The side is released
        /// before it returns, so the owner's step ends with its closure back in its hands.
        private static func runSide(_ jobs: HandOff<@Sendable (Int) -> Void>) -> Bool {
            guard let side = jobs.pop() else { return false }
            side(1)
            return true
        }

        /// `body(0)` on the calling thread and `body(1)` on the pair's thread; returns when
        /// both are done.
        package func run(_ body: @Sendable (Int) -> Void) {
            guard thread != nil else {
                body(0)
                body(1)
                return
            }
            withoutActuallyEscaping(body) { side in
                jobs.push(side)
                side(0)
                _ = done.pop()
            }
        }
    }
}

/// The body of a ``Parallel/Thread``, passed through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
