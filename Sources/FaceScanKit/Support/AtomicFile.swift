#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Writes files so that a reader never sees a half-written one and an existing file is replaced
/// only by a complete new one: each file goes to a temporary name in its own directory, and all of
/// them are renamed into place by ``commit()``. Anything not committed is removed.
///
/// Every temporary file is also listed in a process-wide table until it is renamed or removed,
/// so that ``removeTemporaryFilesOnSignal()`` can delete the ones still pending when the process
/// is interrupted.
///
/// Not `Sendable`: one transaction belongs to one task.
public final class OutputTransaction {
    /// Each staged file: its temporary and final path, and its slot in ``TemporaryFiles``
    /// (nil when the table was full).
    private var staged: [(temp: String, final: String, slot: Int?)] = []

    public init() {}

    deinit { abort() }

    /// Writes `bytes` to a temporary file beside `path`; the file appears at `path` on ``commit()``.
    /// Refuses to replace a symbolic link or a directory.
    public func stage(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        try Self.checkTarget(path)
        let dir = Self.directory(of: path)
        // ".<name>.XXXXXX" is 8 bytes longer than the name: a name near the 255-byte limit gets a
        // shorter temporary one.
        let name = Self.baseName(of: path)
        let base = name.utf8.count > 200 ? "facescan" : name
        // The template is listed before mkstemp fills it in: a signal handler that runs once the
        // file exists finds it listed.
        let template = TemporaryFiles.copy("\(dir)/.\(base).XXXXXX")
        let slot = TemporaryFiles.register(template)
        let fd = mkstemp(template)
        guard fd >= 0 else {
            let e = systemErrorText()
            if let slot { TemporaryFiles.release(slot) } else { free(template) }
            throw IOFailure(path: path, "cannot create a file in '\(dir)': \(e)")
        }
        let temp = String(cString: template)
        if slot == nil { free(template) }
        staged.append((temp, path, slot))
        var err = Self.writeAll(bytes, to: fd)
        if err == nil && fchmod(fd, 0o644) != 0 { err = systemErrorText() }
        if close(fd) != 0 && err == nil { err = systemErrorText() }
        if let err { throw IOFailure(path: path, "write failed: \(err)") }
    }

    /// Renames every staged file into place, in staging order.
    public func commit() throws(IOFailure) {
        while !staged.isEmpty {
            let s = staged.removeFirst()
            if rename(s.temp, s.final) != 0 {
                let e = systemErrorText()
                unlink(s.temp)
                if let slot = s.slot { TemporaryFiles.release(slot) }
                throw IOFailure(path: s.final, "cannot rename into place: \(e)")
            }
            if let slot = s.slot { TemporaryFiles.release(slot) }
        }
    }

    /// Removes every staged temporary file.
    public func abort() {
        for s in staged {
            unlink(s.temp)
            if let slot = s.slot { TemporaryFiles.release(slot) }
        }
        staged.removeAll()
    }

    /// Makes SIGINT, SIGTERM and SIGHUP remove every temporary file not yet committed, of every
    /// transaction in the process, then end the process by the same signal (default action), so
    /// the exit status is the usual one for that signal. A signal ignored at the time of the call
    /// stays ignored. Call once, early, from the main program.
    public static func removeTemporaryFilesOnSignal() {
        TemporaryFiles.installHandlers()
    }

    /// The temporary paths listed in the process-wide table right now (all transactions).
    static func pendingTemporaryFiles() -> [String] { TemporaryFiles.paths() }

    /// Writes all of `bytes` to file descriptor `fd`; the error text when a write fails.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return systemErrorText()
                }
                off += n
            }
            return nil
        }
    }

    /// Writes one file atomically; `-` writes to standard output.
    public static func write(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        if path == "-" {
            if let e = writeAll(bytes, to: 1) { throw IOFailure(path: "-", "write to standard output failed: \(e)") }
            return
        }
        let t = OutputTransaction()
        try t.stage(bytes, to: path)
        try t.commit()
    }

    /// Creates `dir` when it is missing and its parent exists; fails when it is not a writable directory.
    public static func prepareDirectory(_ dir: String) throws(IOFailure) {
        var st = stat()
        if lstat(dir, &st) != 0 {
            if mkdir(dir, 0o755) != 0 {
                throw IOFailure(path: dir, "cannot create the output directory: \(systemErrorText())")
            }
            return
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR || isDirectoryFollowingLinks(dir) else {
            throw IOFailure(path: dir, "the output directory is not a directory")
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw IOFailure(path: dir, "the output directory is not writable")
        }
    }

    static func isDirectoryFollowingLinks(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    static func checkTarget(_ path: String) throws(IOFailure) {
        var st = stat()
        if lstat(path, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK { throw IOFailure(path: path, "refusing to replace a symbolic link") }
            if kind == S_IFDIR { throw IOFailure(path: path, "is a directory") }
        }
        let dir = directory(of: path)
        guard isDirectoryFollowingLinks(dir) else {
            throw IOFailure(path: path, "the directory '\(dir)' does not exist")
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

}

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
        action.__sigaction_handler.sa_handler = removeAllAndDie
        sigemptyset(&action.sa_mask)
        for sig in signals { sigaddset(&action.sa_mask, sig) }
        action.sa_flags = 0
        for sig in signals {
            var old = sigaction()
            guard sigaction(sig, nil, &old) == 0 else { continue }
            if let h = old.__sigaction_handler.sa_handler, unsafeBitCast(h, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
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
