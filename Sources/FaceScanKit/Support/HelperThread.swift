#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSIMD
import Synchronization

/// A second thread for computations split in two sides (``run(_:)``: side 0 on the calling
/// thread, side 1 here), held by one computation at a time (``acquire()`` / ``release()``).
///
/// Why not `DispatchQueue.concurrentPerform`: a decimation of a 9 409-vertex face joins its two
/// threads about 15 times in 4 ms, and through Dispatch each join wakes a pool thread from sleep.
/// This thread starts with the first lease and spins for a short while after each side it runs
/// (``spinNanoseconds``), so that a side posted soon after starts within microseconds; then it
/// sleeps until the next side is posted. It does not spin longer, nor from the start of a lease:
/// while the calling thread works alone (reading, preparing, writing), a spinning second thread
/// slowed it down (one call per process, W3: median 13.31 ms against 12.35 ms with the short spin).
///
/// A side that this thread has not started when the calling thread finishes its own is run by
/// the calling thread: a helper that is slow to wake costs a join nothing. A helper that took its
/// side and then stalls (its core taken by another process or by the host: the calling thread
/// waited longer than its own side took, plus ``stallSlackNanoseconds``) is not used again for
/// the rest of the lease, nor by leases within ``stallMemoryNanoseconds`` of the stall: the
/// calling thread then runs both sides. Callers make the two sides independent, so which thread
/// runs a side does not change the result.
final class HelperThread: @unchecked Sendable {
    /// The process's helper (its thread starts with the first lease and lives as long as the
    /// process).
    static let shared = HelperThread()

    /// How long the helper spins for the next side before it sleeps.
    static let spinNanoseconds: UInt64 = 50_000

    /// How much longer than the caller's own side a wait for the helper may take before the
    /// helper counts as stalled.
    static let stallSlackNanoseconds: UInt64 = 200_000
    /// How long after a stall new leases run both sides on the calling thread.
    static let stallMemoryNanoseconds: UInt64 = 50_000_000

    /// ``waitedNanoseconds``' sum.
    private let waited = Atomic<UInt64>(0)
    /// Nanoseconds the calling threads have spent, in total, waiting for the helper to finish a
    /// side it had taken.
    var waitedNanoseconds: UInt64 { waited.load(ordering: .relaxed) }
    /// When the helper last stalled (monotonic nanoseconds; 0: never).
    private let lastStall = Atomic<UInt64>(0)
    /// ``runsAlone``'s value (only the holder of the lease touches it).
    private var alone = false
    /// Whether the current lease runs both sides on the calling thread.
    var runsAlone: Bool { alone }
    /// Held by the computation that uses the helper.
    private let leased = Atomic<Bool>(false)
    /// Sequence number of the last side 1 posted.
    private let posted = Atomic<UInt64>(0)
    /// Sequence number of the last side 1 taken (by the helper or back by the caller).
    private let taken = Atomic<UInt64>(0)
    /// Sequence number of the last side 1 the helper finished.
    private let finished = Atomic<UInt64>(0)
    /// Whether the helper waits on `wake`.
    private let sleeping = Atomic<Bool>(false)
    /// Whether the thread runs (only the holder of the lease touches it).
    private var started = false
    /// Side 1 of the posted computation (set before, and cleared after, it is posted and done;
    /// read by the helper only once it took the side).
    private let job = UnsafeMutablePointer<(@Sendable (Int) -> Void)?>.allocate(capacity: 1)
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// A helper of its own (tests); its thread, once started, keeps it alive for the process.
    init() {
        job.initialize(to: nil)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
    }

    /// Takes the helper for one computation, starting its thread on first use; false when another
    /// computation holds it (or no thread can be started): the caller then runs both sides itself
    /// or finds another way.
    func acquire() -> Bool {
        guard leased.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
        if !started {
            guard start() else {
                leased.store(false, ordering: .releasing)
                return false
            }
        }
        let stalled = lastStall.load(ordering: .relaxed)
        alone = stalled != 0 && Self.now() &- stalled < Self.stallMemoryNanoseconds
        return true
    }

    /// Gives the helper back.
    func release() {
        leased.store(false, ordering: .releasing)
    }

    /// `body(0)` on the calling thread and `body(1)` on the helper (or on the calling thread too
    /// when the helper has not taken it by then); returns when both are done. Only the holder of
    /// the lease calls this.
    func run(_ body: @Sendable (Int) -> Void) {
        if alone {
            body(0)
            body(1)
            return
        }
        withoutActuallyEscaping(body) { side in
            job.pointee = side
            let sequence = posted.load(ordering: .relaxed) &+ 1
            posted.store(sequence, ordering: .sequentiallyConsistent)
            if sleeping.load(ordering: .sequentiallyConsistent) { poke() }
            let start = Self.now()
            side(0)
            if taken.compareExchange(expected: sequence &- 1, desired: sequence, ordering: .acquiringAndReleasing).exchanged {
                side(1)
            } else {
                let own = Self.now()
                var spins = 0
                while finished.load(ordering: .acquiring) != sequence {
                    spins += 1
                    if spins < 4096 { facescan_cpu_relax() } else { sched_yield() }
                }
                let end = Self.now()
                waited.add(end &- own, ordering: .relaxed)
                if end &- own > own &- start &+ Self.stallSlackNanoseconds {
                    alone = true
                    lastStall.store(end, ordering: .relaxed)
                }
            }
            job.pointee = nil
        }
    }

    /// Wakes the helper if it sleeps.
    private func poke() {
        pthread_mutex_lock(lock)
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    private func start() -> Bool {
        // The thread holds a reference for its whole life (it never ends).
        guard let tid = startPosixThread({ self.loop() }) else { return false }
        pthread_detach(tid)
        started = true
        return true
    }

    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The helper's loop: spin for the next side while leased and within the spin time, else
    /// sleep until poked; take a posted side unless the caller took it back.
    private func loop() {
        var seen: UInt64 = 0
        while true {
            var latest = posted.load(ordering: .acquiring)
            if latest == seen {
                let since = Self.now()
                var spins: UInt32 = 0
                while latest == seen {
                    spins &+= 1
                    if spins & 255 == 0 && (!leased.load(ordering: .relaxed) || Self.now() &- since > Self.spinNanoseconds) {
                        latest = sleep(seen: seen)
                        break
                    }
                    facescan_cpu_relax()
                    latest = posted.load(ordering: .acquiring)
                }
                if latest == seen { continue }
            }
            seen = latest
            if taken.compareExchange(expected: latest &- 1, desired: latest, ordering: .acquiringAndReleasing).exchanged {
                job.pointee!(1)
                finished.store(latest, ordering: .releasing)
            }
        }
    }

    /// Sleeps until a side after `seen` is posted or the helper is poked; returns the last posted.
    private func sleep(seen: UInt64) -> UInt64 {
        pthread_mutex_lock(lock)
        sleeping.store(true, ordering: .sequentiallyConsistent)
        var latest = posted.load(ordering: .sequentiallyConsistent)
        if latest == seen { pthread_cond_wait(wake, lock) }
        sleeping.store(false, ordering: .relaxed)
        latest = posted.load(ordering: .acquiring)
        pthread_mutex_unlock(lock)
        return latest
    }
}
