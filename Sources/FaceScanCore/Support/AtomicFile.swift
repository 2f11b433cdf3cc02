#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How the library writes a file, when an app asks it to (``Pipeline``'s `process`, a mesh's or
/// an image's `write`): whole or not at all, with the least machinery that keeps that promise.
///
/// Each file is written to a temporary `.facescan-XXXXXX.tmp` in its own directory (`mkstemps`),
/// synced (`fdatasync`), renamed over the file's name, and then the directory is synced
/// (`fsync`), so that once the call returns the new bytes survive a power cut, and a reader
/// never sees half a file. On an error the temporary is removed and nothing is replaced. The
/// library installs no signal handler and keeps no table of its temporaries: an app killed in
/// the middle of a write may leave one `.facescan-XXXXXX.tmp` behind (the command line's own
/// machinery, which does more, lives in FacescanTools).
///
/// Only a regular file (or nothing) at an output path is replaced: a symbolic link, directory,
/// device, FIFO or socket is refused.
package enum AtomicFile {
    /// Writes one file; `-` writes to standard output.
    package static func write(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        if path == "-" {
            if let e = writeAll(bytes, to: 1) { throw IOFailure(path: "-", "write to standard output failed: \(e)") }
            return
        }
        try writeSet([(path, bytes)])
    }

    /// Writes a set of files: every temporary written and synced first, then each renamed into
    /// place in order, then each directory synced once. An error before the renames leaves no
    /// file created or replaced.
    package static func writeSet(_ files: [(path: String, bytes: [UInt8])]) throws(IOFailure) {
        var temporaries: [String] = []
        do throws(IOFailure) {
            for f in files {
                try checkTarget(f.path)
                temporaries.append(try writeTemporary(f.bytes, besides: f.path))
            }
        } catch {
            for t in temporaries { unlink(t) }
            throw error
        }
        var directories: [String] = []
        for (i, f) in files.enumerated() {
            if rename(temporaries[i], f.path) != 0 {
                let e = systemErrorText()
                for t in temporaries[i...] { unlink(t) }
                throw IOFailure(path: f.path, "cannot rename into place: \(e)")
            }
            let dir = directory(of: f.path)
            if !directories.contains(dir) { directories.append(dir) }
        }
        for d in directories {
            if let e = syncDirectory(d) { throw IOFailure(path: d, "cannot sync the directory: \(e)") }
        }
    }

    /// Writes `bytes` to a new temporary file in `path`'s directory, synced; returns its path.
    static func writeTemporary(_ bytes: [UInt8], besides path: String) throws(IOFailure) -> String {
        let dir = directory(of: path)
        let (fd, temp) = makeTemporaryFile("\(dir)/.facescan-XXXXXX.tmp", suffixLength: 4)
        guard fd >= 0 else { throw IOFailure(path: path, "cannot create a file in '\(dir)': \(systemErrorText())") }
        var err = writeAll(bytes, to: fd)
        if err == nil && fchmod(fd, 0o644) != 0 { err = systemErrorText() }
        if err == nil && syncData(fd) != 0 { err = systemErrorText() }
        if close(fd) != 0 && err == nil { err = systemErrorText() }
        if let err {
            unlink(temp)
            throw IOFailure(path: path, "write failed: \(err)")
        }
        return temp
    }

    /// `fdatasync` (Linux) or `fsync`: the file's bytes and size on disk.
    package static func syncData(_ fd: Int32) -> Int32 {
        #if os(Linux)
        fdatasync(fd)
        #else
        fsync(fd)
        #endif
    }

    /// `fsync` of the directory `path` (its entries on disk); the error text when it fails.
    package static func syncDirectory(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return systemErrorText() }
        defer { close(fd) }
        return fsync(fd) == 0 ? nil : systemErrorText()
    }

    /// Writes all of `bytes` to file descriptor `fd`; the error text when a write fails.
    /// (Platform's `writeAll(_:to:)`.)
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        FaceScanCore.writeAll(bytes, to: fd)
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

    /// Whether `path` is a directory or a symbolic link to one.
    package static func isDirectoryFollowingLinks(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Refuses an output path that holds anything but a regular file, or whose directory is missing.
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

    /// The directory part of `path` (`.` when it has none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// The last component of `path`.
    package static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
