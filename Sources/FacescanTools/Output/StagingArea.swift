import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where a process stages its outputs for one output directory: a hidden directory
/// `.facescan-XXXXXX` inside it (`mkdtemp`), locked with `flock` for as long as the process lives.
/// Every temporary the command line writes there lives inside it, so a directory whose lock is
/// free holds nothing anyone is still writing: the next run removes it (after finishing the sets
/// it had committed, ``recover(_:)``). No age, no guess.
///
/// Made, listed and removed only with ``Interrupts/state`` locked (see there).
final class StagingArea: Sendable {
    /// The output directory.
    let directory: String
    /// `directory/.facescan-XXXXXX`.
    let path: String
    /// The staging directory, open and locked (`flock`, exclusive).
    let fd: Int32

    static let prefix = ".facescan-"
    /// A staging directory's name: the prefix and six characters from `mkdtemp`.
    static func isStagingName(_ name: String) -> Bool {
        name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 && !name.contains(".", after: prefix)
    }

    private init(directory: String, path: String, fd: Int32) {
        self.directory = directory
        self.path = path
        self.fd = fd
    }

    /// This process's staging directory for `directory`, made on first use (after
    /// ``recover(_:)`` has finished what dead processes left there).
    static func forDirectory(_ directory: String) throws(IOFailure) -> StagingArea {
        try Interrupts.creating(directory) { (s) throws(IOFailure) -> StagingArea in
            if let a = s.areas[directory] { return a }
            if !s.exitHookInstalled {
                // A normal exit removes the (by then empty) staging directories.
                atexit { Interrupts.state.withLock { Interrupts.removeEverything(&$0) } }
                s.exitHookInstalled = true
            }
            recover(directory)
            let a = try make(directory)
            s.areas[directory] = a
            return a
        }
    }

    /// `mkdtemp`, open, lock, and check that the name still holds the directory locked (another
    /// process's ``recover(_:)`` may have removed it between `mkdtemp` and `flock`).
    private static func make(_ directory: String) throws(IOFailure) -> StagingArea {
        while true {
            var template = Array("\(directory)/\(prefix)XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                throw IOFailure(path: directory, "cannot create a file in '\(directory)': \(systemErrorText())")
            }
            let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            flock(fd, LOCK_EX)
            if sameFile(fd, path) { return StagingArea(directory: directory, path: path, fd: fd) }
            close(fd)
        }
    }

    /// Whether `path` names the file open as `fd` (a lock taken on a name another process removed is no lock).
    static func sameFile(_ fd: Int32, _ path: String) -> Bool {
        var a = stat(), b = stat()
        return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Removes every entry and the directory itself, and drops the lock.
    func removeAll() {
        Self.empty(fd, path)
        rmdir(path)
        close(fd)
    }

    /// Unlinks every entry of the staging directory open as `fd`.
    static func empty(_ fd: Int32, _ path: String) {
        for name in directoryEntries(path) ?? [] { unlinkat(fd, name, 0) }
    }

    /// Finishes what dead processes left in `directory`: each staging directory whose lock is
    /// free has its committed sets rolled forward (``OutputSet/rollForward(record:area:directory:)``),
    /// everything else in it removed, and is removed. A locked one belongs to a live process and
    /// is left alone.
    static func recover(_ directory: String) {
        for name in directoryEntries(directory) ?? [] where isStagingName(name) {
            let path = directory + "/" + name
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, sameFile(fd, path) else { continue }
            var rolled = false
            for entry in directoryEntries(path) ?? [] where entry.hasSuffix(OutputSet.recordSuffix) {
                rolled = OutputSet.rollForward(record: entry, area: fd, directory: directory) || rolled
            }
            if rolled { _ = AtomicFile.syncDirectory(directory) }
            empty(fd, path)
            rmdir(path)
        }
    }
}

extension String {
    /// Whether `character` occurs after the prefix `prefix`.
    fileprivate func contains(_ character: Character, after prefix: String) -> Bool {
        dropFirst(prefix.count).contains(character)
    }
}
