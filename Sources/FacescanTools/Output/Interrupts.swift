import FaceScanKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What SIGINT, SIGTERM and SIGHUP do to the command line's outputs, and the one lock that makes
/// it exact.
///
/// Every file the command line's output machinery creates — a staging directory
/// (``StagingArea``), a temporary inside one, a batch's claim on a capture (``BatchClaim``) — is
/// created while ``state`` is locked and only when the process is not stopping, and every
/// staging directory and claim is listed in ``state`` in that same locked step. A signal only
/// writes its number to a pipe; a thread of its own then stops the process: it locks ``state``,
/// marks the process stopping (nothing is created from then on: a thread that would create a
/// file or start a commit waits for the end of the process instead), waits for the commits under
/// way to end (a commit is short: syncs and renames, see ``OutputSet``), removes every staging
/// directory with whatever it holds and every claim, and only then lets the command print its
/// summary and exit. So a signal at any instant leaves no temporary: what exists is listed, and
/// nothing new can appear. A SIGKILL runs no code at all: what it leaves is a staging directory
/// whose lock died with the process, which the next run writing there finishes
/// (``StagingArea/recover(_:)``).
package enum Interrupts {
    package struct State: ~Copyable {
        /// Set once by the stopping thread: no file is created, no commit starts.
        var stopping = false
        /// Commits under way (``OutputSet/commit(_:)``); the stop waits for them.
        var activeCommits = 0
        /// The staging directories of this process, one per output directory.
        var areas: [String: StagingArea] = [:]
        /// The claims this process holds: path → locked descriptor.
        var claims: [String: Int32] = [:]
        /// Whether the `atexit` hook that removes the staging directories is installed.
        var exitHookInstalled = false
        /// Runs after the clean-up, on the stopping thread (batch's summary); nil: die by the signal.
        var finish: (@Sendable (Int32) -> Never)?
    }

    package static let state = Mutex(State())

    /// Runs `body` (which creates a file and lists it) with ``state`` locked, unless the process
    /// is stopping: then the calling thread waits for the end of the process instead (it must
    /// neither create a file nor report a failure the signal caused).
    static func creating<T>(_ path: String, _ body: (inout State) throws(IOFailure) -> T) throws(IOFailure) -> T {
        let result = try state.withLock { (s) throws(IOFailure) -> T? in
            guard !s.stopping else { return nil }
            return try body(&s)
        }
        guard let result else { waitForTheEnd() }
        return result
    }

    /// Marks a commit as under way; when the process is stopping, waits for its end instead.
    static func beginCommit() {
        let started = state.withLock { s in
            guard !s.stopping else { return false }
            s.activeCommits += 1
            return true
        }
        if !started { waitForTheEnd() }
    }

    /// Parks the calling thread until the stopping thread ends the process.
    static func waitForTheEnd() -> Never {
        while true { pause() }
    }

    static func endCommit() { state.withLock { $0.activeCommits -= 1 } }

    /// Sets what runs after the clean-up when a signal stops the process (batch: its summary,
    /// then `_exit(128 + signal)`). Without it the process dies by the signal itself.
    package static func onStop(_ finish: @escaping @Sendable (Int32) -> Never) {
        state.withLock { $0.finish = finish }
    }

    nonisolated(unsafe) static var pipeFDs: [Int32] = [-1, -1]

    /// Installs the handlers for SIGINT, SIGTERM and SIGHUP (a signal ignored at the time stays
    /// ignored) and starts the thread that stops the process when one arrives. Call once, early,
    /// from the main program, before any output is staged. The handler only writes the signal's
    /// number to a pipe (async-signal-safe).
    package static func install() {
        guard pipe(&pipeFDs) == 0 else { return }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { _ in
                var byte: UInt8 = 0
                while true {
                    let n = read(Interrupts.pipeFDs[0], &byte, 1)
                    if n == 1 { break }
                    if n < 0 && errno == EINTR { continue }
                    return nil
                }
                Interrupts.stop(signal: Int32(byte))
            }, nil)
        guard started == 0 else { return }
        pthread_detach(thread)
        var action = sigaction()
        action.handler = { sig in
            var byte = UInt8(truncatingIfNeeded: sig)
            _ = write(Interrupts.pipeFDs[1], &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            var old = sigaction()
            guard sigaction(sig, nil, &old) == 0 else { continue }
            if let h = old.handler, unsafeBitCast(h, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                continue
            }
            sigaction(sig, &action, nil)
        }
    }

    /// Stops the process: nothing created from now on, the commits under way finished, every
    /// staging directory and claim removed; then the command's `finish`, or death by `signal`.
    package static func stop(signal sig: Int32) -> Never {
        state.withLock { $0.stopping = true }
        while state.withLock({ $0.activeCommits }) > 0 { usleep(1000) }
        let finish = state.withLock { s -> (@Sendable (Int32) -> Never)? in
            removeEverything(&s)
            return s.finish
        }
        if let finish { finish(sig) }
        signal(sig, SIG_DFL)
        raise(sig)
        _exit(128 + sig)
    }

    /// Removes every staging directory (and its contents) and every claim of this process.
    static func removeEverything(_ s: inout State) {
        for (_, area) in s.areas { area.removeAll() }
        s.areas.removeAll()
        for (path, fd) in s.claims {
            if StagingArea.sameFile(fd, path) { unlink(path) }
            close(fd)
        }
        s.claims.removeAll()
    }

    /// For tests: the staging directories and claims this process holds now.
    package static func listed() -> (areas: [String], claims: [String]) {
        state.withLock { s in (s.areas.values.map(\.path).sorted(), s.claims.keys.sorted()) }
    }
}
