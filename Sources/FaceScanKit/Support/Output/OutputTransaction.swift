import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader never sees a half-written one and a set of outputs is all new or
/// all old, even when the process is killed (SIGKILL, power cut aside: nothing is fsync'd).
///
/// How (per output directory, see ``OutputJournal``): the first file staged into a directory
/// creates a journal `.facescan-XXXXXX.journal` there, locked (`flock`) for as long as the process
/// lives; each file goes to a temporary `.facescan-XXXXXX-<name>` beside it. ``commit()`` writes
/// the list of temporaries and final names into the journal (one `write`, ending in an end mark),
/// then renames every file into place and removes the journal. The next transaction into that
/// directory (any process) first finishes what a dead one left: a complete journal is rolled
/// forward (its remaining temporaries renamed into place), anything else rolled back (its
/// temporaries removed); a journal still locked belongs to a live process and is left alone.
///
/// Only regular files (or nothing) are replaced: a symbolic link, directory, device, FIFO or
/// socket at an output path is refused.
///
/// Every temporary file and journal is also listed in a process-wide table until committed or
/// removed, so that ``removeTemporaryFilesOnSignal()`` can delete the ones still pending when the
/// process is interrupted (before the commit; during it they are left for the next run).
///
/// Not `Sendable`: one transaction belongs to one task.
package final class OutputTransaction {
    /// Each staged file: its temporary and final path, and its slot in ``TemporaryFiles``
    /// (nil when the table was full).
    private var staged: [(temp: String, final: String, slot: Int?)] = []
    /// One journal per directory written into, in order of first use.
    private var journals: [OutputJournal] = []

    package init() {}

    deinit { abort() }

    /// Writes `bytes` to a temporary file beside `path`; the file appears at `path` on ``commit()``.
    /// Refuses to replace anything but a regular file.
    package func stage(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        try Self.checkTarget(path)
        let dir = Self.directory(of: path)
        let journal: OutputJournal
        if let j = journals.first(where: { $0.directory == dir }) {
            journal = j
        } else {
            journal = try OutputJournal(directory: dir, forOutput: path)
            journals.append(journal)
        }
        let name = Self.baseName(of: path)
        // ".facescan-XXXXXX-" is 17 bytes: a name near the 255-byte limit gets a numbered temporary.
        let tempName = journal.prefix + (name.utf8.count > 200 ? ".\(staged.count)" : "-" + name)
        let temp = dir + "/" + tempName
        // Listed before the file exists: a signal handler that runs once it exists finds it.
        let slot = TemporaryFiles.register(TemporaryFiles.copy(temp))
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = systemErrorText()
            if let slot { TemporaryFiles.release(slot) }
            throw IOFailure(path: path, "cannot create a file in '\(dir)': \(e)")
        }
        if let i = staged.firstIndex(where: { $0.temp == temp }) {
            // The same name staged twice: the later bytes win, as a second rename would.
            if let s = staged[i].slot { TemporaryFiles.release(s) }
            staged.remove(at: i)
        }
        staged.append((temp, path, slot))
        journal.entries.removeAll { $0.temp == tempName }
        journal.entries.append((tempName, name))
        var err = Self.writeAll(bytes, to: fd)
        if err == nil && fchmod(fd, 0o644) != 0 { err = systemErrorText() }
        if close(fd) != 0 && err == nil { err = systemErrorText() }
        if let err { throw IOFailure(path: path, "write failed: \(err)") }
    }

    /// Renames every staged file into place, in staging order. Once the journals are written the
    /// set is committed: a process killed from then on leaves it to the next run to finish.
    package func commit() throws(IOFailure) {
        for j in journals { try j.markCommitted() }
        // Committed: a signal from here on must not remove the temporaries.
        for s in staged { if let slot = s.slot { TemporaryFiles.release(slot) } }
        for j in journals { j.unlist() }
        var failure: IOFailure?
        for s in staged where rename(s.temp, s.final) != 0 {
            let e = systemErrorText()
            unlink(s.temp)
            if failure == nil { failure = IOFailure(path: s.final, "cannot rename into place: \(e)") }
        }
        staged.removeAll()
        for j in journals { j.finish() }
        journals.removeAll()
        if let failure { throw failure }
    }

    /// Removes every staged temporary file and the journals.
    package func abort() {
        for s in staged {
            unlink(s.temp)
            if let slot = s.slot { TemporaryFiles.release(slot) }
        }
        staged.removeAll()
        for j in journals { j.finish() }
        journals.removeAll()
    }

    /// Makes SIGINT, SIGTERM and SIGHUP remove every temporary file not yet committed, of every
    /// transaction in the process, then end the process by the same signal (default action), so
    /// the exit status is the usual one for that signal. A signal ignored at the time of the call
    /// stays ignored. Call once, early, from the main program.
    package static func removeTemporaryFilesOnSignal() {
        TemporaryFiles.installHandlers()
    }

    /// The temporary paths listed in the process-wide table right now (all transactions).
    static func pendingTemporaryFiles() -> [String] { TemporaryFiles.paths() }

    /// Writes all of `bytes` to file descriptor `fd`; the error text when a write fails.
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var off = 0
            while off < raw.count {
                let n = posixWrite(fd, raw.baseAddress! + off, raw.count - off)
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
    package static func write(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        if path == "-" {
            if let e = writeAll(bytes, to: 1) { throw IOFailure(path: "-", "write to standard output failed: \(e)") }
            return
        }
        let t = OutputTransaction()
        try t.stage(bytes, to: path)
        try t.commit()
    }

    /// Creates `dir` when it is missing and its parent exists; fails when it is not a writable directory.
    /// Any number of processes may create the same directory at once (shards of one batch
    /// starting together): `EEXIST` from a sibling that won the race is success when `dir` is
    /// now a directory.
    package static func prepareDirectory(_ dir: String) throws(IOFailure) {
        var st = stat()
        if lstat(dir, &st) != 0 {
            if mkdir(dir, 0o755) == 0 { return }
            let lost = errno == EEXIST
            let why = systemErrorText()
            guard lost, lstat(dir, &st) == 0 else {
                throw IOFailure(path: dir, "cannot create the output directory: \(why)")
            }
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
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: throw IOFailure(path: path, "refusing to replace a symbolic link")
            case S_IFDIR: throw IOFailure(path: path, "is a directory")
            case S_IFCHR, S_IFBLK:
                throw IOFailure(path: path, "refusing to replace a device (outputs are regular files)")
            case S_IFIFO: throw IOFailure(path: path, "refusing to replace a FIFO (outputs are regular files)")
            default: throw IOFailure(path: path, "refusing to replace something that is not a regular file")
            }
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

/// The journal of one ``OutputTransaction`` in one directory: `.facescan-XXXXXX.journal`, locked
/// with `flock` while its process lives. Empty until commit; then the temporary and final names
/// of every staged file (NUL-separated) and an end mark. Its temporaries are
/// `.facescan-XXXXXX-<name>` (or `.facescan-XXXXXX.<n>` for a long name).
final class OutputJournal {
    let directory: String
    /// `.facescan-XXXXXX`, shared by the journal and its temporaries.
    let prefix: String
    let path: String
    private var fd: Int32
    private var slot: Int?
    private var removed = false
    /// Staged files: temporary and final base names, in staging order.
    var entries: [(temp: String, final: String)] = []

    static let namePrefix = ".facescan-"
    static let suffix = ".journal"
    static let header = Array("facescan-journal 1\0".utf8)
    static let endMark = Array("end\0".utf8)

    /// Creates and locks a new journal in `directory`, after finishing what dead processes left
    /// there (once per directory per process). The journal is created as `….new`, locked, then
    /// renamed: a `.journal` file is never seen unlocked while its process lives.
    init(directory: String, forOutput output: String) throws(IOFailure) {
        Self.recoverOnce(directory)
        let template = TemporaryFiles.copy("\(directory)/\(Self.namePrefix)XXXXXX.new")
        var newSlot = TemporaryFiles.register(template)
        let fd = mkstemps(template, 4)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let newPath = String(cString: template)
        if newSlot == nil { free(template) }
        guard fd >= 0 else {
            let e = systemErrorText()
            if let s = newSlot { TemporaryFiles.release(s) }
            newSlot = nil
            throw IOFailure(path: output, "cannot create a file in '\(directory)': \(e)")
        }
        flock(fd, LOCK_EX)
        let base = String(newPath.dropLast(4))
        path = base + Self.suffix
        prefix = OutputTransaction.baseName(of: base)
        self.directory = directory
        self.fd = fd
        slot = TemporaryFiles.register(TemporaryFiles.copy(path))
        if rename(newPath, path) != 0 {
            let e = systemErrorText()
            unlink(newPath)
            if let s = newSlot { TemporaryFiles.release(s) }
            close(fd)
            removed = true
            if let s = slot { TemporaryFiles.release(s) }
            slot = nil
            throw IOFailure(path: output, "cannot create a file in '\(directory)': \(e)")
        }
        if let s = newSlot { TemporaryFiles.release(s) }
    }

    deinit { finish() }

    /// Writes the entries and the end mark: from here on the set is committed.
    func markCommitted() throws(IOFailure) {
        var bytes = Self.header
        for e in entries { bytes += Array(e.temp.utf8) + [0] + Array(e.final.utf8) + [0] }
        bytes += Self.endMark
        if let e = OutputTransaction.writeAll(bytes, to: fd) {
            throw IOFailure(path: path, "cannot write the output journal: \(e)")
        }
    }

    /// Takes the journal off the signal handler's table (it is kept on a signal from now on).
    func unlist() {
        if let s = slot { TemporaryFiles.release(s) }
        slot = nil
    }

    /// Removes the journal and releases its lock.
    func finish() {
        guard !removed else { return }
        removed = true
        unlink(path)
        unlist()
        close(fd)
    }

    /// The `(temporary, final)` names of a complete journal, nil for an empty or partial one.
    static func parse(_ bytes: [UInt8]) -> [(temp: String, final: String)]? {
        guard bytes.starts(with: header), bytes.count >= header.count + endMark.count,
            Array(bytes.suffix(endMark.count)) == endMark
        else { return nil }
        let fields = bytes[header.count..<(bytes.count - endMark.count)].split(
            separator: 0, omittingEmptySubsequences: false)
        // Each entry is two NUL-terminated names: fields end with one empty piece.
        guard fields.count % 2 == 1, fields.last?.isEmpty == true else { return nil }
        var out: [(String, String)] = []
        var i = 0
        while i + 1 < fields.count {
            let t = String(decoding: fields[i], as: UTF8.self), f = String(decoding: fields[i + 1], as: UTF8.self)
            guard !t.isEmpty, !f.isEmpty, !t.contains("/"), !f.contains("/"), f != ".", f != ".." else { return nil }
            out.append((t, f))
            i += 2
        }
        return out
    }

    static let recovered = Mutex<Set<String>>([])

    /// Runs ``recover(_:staleAfter:)`` on `directory` the first time this process writes there.
    static func recoverOnce(_ directory: String) {
        guard recovered.withLock({ $0.insert(directory).inserted }) else { return }
        recover(directory)
    }

    /// Finishes the transactions dead processes left in `directory`: each unlocked journal is
    /// rolled forward when complete, back otherwise, then removed with its temporaries.
    /// Temporaries and `….new` files without a journal older than `staleAfter` seconds (a process
    /// killed while its signal handler was removing them) are removed too.
    static func recover(_ directory: String, staleAfter: Int = 10) {
        let names = entryNames(directory).filter { $0.hasPrefix(namePrefix) }
        let prefixLength = namePrefix.utf8.count + 6
        var live: Set<String> = []
        for name in names where name.hasSuffix(suffix) && name.utf8.count == prefixLength + suffix.utf8.count {
            let prefix = String(name.dropLast(suffix.count))
            let jpath = directory + "/" + name
            let fd = open(jpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                live.insert(prefix)
                continue
            }
            let bytes = (try? FileBytes.read("\(fileDescriptorDirectory)/\(fd)", upTo: 1 << 24)) ?? []
            if let entries = parse(bytes) {
                for e in entries {
                    let temp = directory + "/" + e.temp, final = directory + "/" + e.final
                    guard e.temp.hasPrefix(prefix), access(temp, F_OK) == 0 else { continue }
                    if (try? OutputTransaction.checkTarget(final)) == nil || rename(temp, final) != 0 { unlink(temp) }
                }
            }
            for other in names where other != name && belongs(other, to: prefix) { unlink(directory + "/" + other) }
            unlink(jpath)
            live.insert(prefix)  // handled
        }
        let now = time(nil)
        for name in names where !name.hasSuffix(suffix) && name.utf8.count > prefixLength {
            let prefix = String(name.utf8.prefix(prefixLength))!
            guard !live.contains(prefix), access(directory + "/" + prefix + suffix, F_OK) != 0 else { continue }
            var st = stat()
            guard lstat(directory + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
                Int(now - st.modificationTime.tv_sec) >= staleAfter
            else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Whether `name` is a temporary (or the `.new` journal) of the journal with `prefix`.
    static func belongs(_ name: String, to prefix: String) -> Bool {
        guard name.hasPrefix(prefix), name.utf8.count > prefix.utf8.count else { return false }
        let next = name.utf8[name.utf8.index(name.utf8.startIndex, offsetBy: prefix.utf8.count)]
        return next == UInt8(ascii: "-") || next == UInt8(ascii: ".")
    }

    /// The names in `directory`, without `.` and `..`.
    static func entryNames(_ directory: String) -> [String] {
        guard let d = opendir(directory) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            // In place: glibc's dirent records are d_reclen long, often shorter than the
            // 256-byte d_name a copy of the field would read (ASan: heap-buffer-overflow).
            let name = withUnsafeMutablePointer(to: &e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
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
