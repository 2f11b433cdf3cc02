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
    package static func pendingTemporaryFiles() -> [String] { TemporaryFiles.paths() }

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

    package static func isDirectoryFollowingLinks(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    package static func checkTarget(_ path: String) throws(IOFailure) {
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

    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    package static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

}
