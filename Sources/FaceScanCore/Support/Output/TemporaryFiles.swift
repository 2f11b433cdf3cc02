import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide table of temporary files staged and not yet committed or aborted: a fixed
/// number of slots, each an atomic pointer to a `malloc`'d C string (nil when free). Staging,
/// commit and abort update it under ``lock``; the signal handler never takes the lock (it may
/// have interrupted the thread holding it): it takes each path out of its slot with an atomic
/// exchange, so a path is freed by ``release(_:)`` or used by the handler, never both.
enum TemporaryFiles {
    /// The number of temporary files listed at once; one staged past it still works but is not
    /// removed on a signal.
    static let capacity = 1024

    nonisolated(unsafe) static let slots: UnsafeMutablePointer<Atomic<UnsafeMutablePointer<CChar>?>> = {
        let p = UnsafeMutablePointer<Atomic<UnsafeMutablePointer<CChar>?>>.allocate(capacity: capacity)
        for i in 0..<capacity { (p + i).initialize(to: Atomic(nil)) }
        return p
    }()

    /// Serialises the finding of a free slot; ``release(_:)`` takes it too so a slot is reused
    /// only after its string is freed.
    static let lock = Mutex(())

    /// A `malloc`'d, NUL-terminated copy of `text`.
    static func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
        guard let p = strdup(text) else { fatalError("out of memory") }
        return p
    }

    /// Lists `path` (a `malloc`'d C string the table then owns) and returns its slot; nil, and
    /// the caller keeps `path`, when every slot is taken.
    static func register(_ path: UnsafeMutablePointer<CChar>) -> Int? {
        lock.withLock { _ in
            for i in 0..<capacity where slots[i].load(ordering: .acquiring) == nil {
                slots[i].store(path, ordering: .releasing)
                return i
            }
            return nil
        }
    }

    /// Takes the path out of `slot` and frees it (unless a signal handler took it first).
    static func release(_ slot: Int) {
        lock.withLock { _ in
            if let p = slots[slot].exchange(nil, ordering: .acquiringAndReleasing) { free(p) }
        }
    }

    /// The listed paths, in slot order.
    static func paths() -> [String] {
        lock.withLock { _ in
            (0..<capacity).compactMap { i in slots[i].load(ordering: .acquiring).map { String(cString: $0) } }
        }
    }

    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs ``removeAllAndDie(_:)`` for SIGINT, SIGTERM and SIGHUP, except where the signal
    /// is ignored. The three are blocked while the handler runs.
    static func installHandlers() {
        _ = slots  // initialise the table here, never in the handler
        var action = sigaction()
        action.handler = removeAllAndDie
        sigemptyset(&action.sa_mask)
        for sig in signals { sigaddset(&action.sa_mask, sig) }
        action.sa_flags = 0
        for sig in signals {
            var old = sigaction()
            guard sigaction(sig, nil, &old) == 0 else { continue }
            if let h = old.handler, unsafeBitCast(h, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                continue
            }
            sigaction(sig, &action, nil)
        }
    }
}

/// The signal handler: removes every listed temporary file, then dies from `sig` with its
/// default action. Async-signal-safe: atomic loads and exchanges on the preallocated table,
/// `unlink`, `signal`, `pthread_sigmask`, `raise` and `_exit` only; no allocation, no lock. The
/// strings are not freed (another thread may be about to free or use them; the process ends).
private func removeAllAndDie(_ sig: Int32) {
    let slots = TemporaryFiles.slots
    var i = 0
    while i < TemporaryFiles.capacity {
        if let p = slots[i].exchange(nil, ordering: .acquiringAndReleasing) { unlink(p) }
        i += 1
    }
    signal(sig, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, sig)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(sig)
    _exit(128 + sig)
}
