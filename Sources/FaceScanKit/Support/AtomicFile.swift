#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader never sees a half-written one and an existing file is replaced
/// only by a complete new one: each file goes to a temporary name in its own directory, and all of
/// them are renamed into place by ``commit()``. Anything not committed is removed.
///
/// Not `Sendable`: one transaction belongs to one task.
public final class OutputTransaction {
    private var staged: [(temp: String, final: String)] = []

    public init() {}

    deinit { abort() }

    /// Writes `bytes` to a temporary file beside `path`; the file appears at `path` on ``commit()``.
    /// Refuses to replace a symbolic link or a directory.
    public func stage(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        try Self.checkTarget(path)
        let dir = Self.directory(of: path)
        let base = Self.baseName(of: path)
        var template = Array("\(dir)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw IOFailure(path: path, "cannot create a file in '\(dir)': \(Self.errnoText())") }
        let temp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        staged.append((temp, path))
        var err = Self.writeAll(bytes, to: fd) ?? ""
        var ok = err.isEmpty
        if ok && fchmod(fd, 0o644) != 0 { ok = false; err = Self.errnoText() }
        if close(fd) != 0 && ok { ok = false; err = Self.errnoText() }
        if !ok { throw IOFailure(path: path, "write failed: \(err)") }
    }

    /// Renames every staged file into place, in staging order.
    public func commit() throws(IOFailure) {
        while !staged.isEmpty {
            let s = staged.removeFirst()
            if rename(s.temp, s.final) != 0 {
                let e = Self.errnoText()
                unlink(s.temp)
                throw IOFailure(path: s.final, "cannot rename into place: \(e)")
            }
        }
    }

    /// Removes every staged temporary file.
    public func abort() {
        for s in staged { unlink(s.temp) }
        staged.removeAll()
    }

    /// Writes all of `bytes` to file descriptor `fd`; the error text when a write fails.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errnoText()
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
                throw IOFailure(path: dir, "cannot create the output directory: \(errnoText())")
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

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
