// The C library. Each file that calls it imports it itself (the same `#if` as here); nothing
// re-exports it, so an app that imports FaceScanKit does not get the C library's names. What
// differs between the C libraries is wrapped below; anything Linux-only sits behind `#if os(Linux)`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("FaceScanKit needs a POSIX C library (Glibc, Musl or Darwin)")
#endif

// The system calls that take pointers live here (CONTRIBUTING.md, "Unsafe code and threads"):
// reading and writing file descriptors, temporary files, directory listing, and ``ByteSource``
// (a reader's bytes from a file, a pipe or memory). Their callers pass and get arrays.

// At file scope no method hides the C library's free functions: the import above picks the
// library once, and the wrappers below call its `read`, `write` and `exit` by their own names.

/// `read(2)`, under a name a type's own `read` method cannot hide.
@inline(__always)
package func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// `exit(3)`, under a name a type's own `exit` cannot hide.
package func posixExit(_ code: Int32) -> Never {
    exit(code)
}

extension sigaction {
    /// The plain handler (`sa_handler`), wherever the C library keeps it (glibc: in the union
    /// `__sigaction_handler`; musl: `__sa_handler`; Darwin: `__sigaction_u`).
    package var handler: (@convention(c) (Int32) -> Void)? {
        get {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler
            #elseif canImport(Musl)
            __sa_handler.sa_handler
            #else
            __sigaction_u.__sa_handler
            #endif
        }
        set {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler = newValue
            #elseif canImport(Musl)
            __sa_handler.sa_handler = newValue
            #else
            __sigaction_u.__sa_handler = newValue
            #endif
        }
    }
}

extension stat {
    /// The last modification time (Linux: `st_mtim`; Darwin: `st_mtimespec`).
    package var modificationTime: timespec {
        #if os(Linux)
        st_mtim
        #else
        st_mtimespec
        #endif
    }
}

/// The directory whose entry `N` opens the process's file descriptor `N` again.
package let fileDescriptorDirectory: String = {
    #if os(Linux)
    "/proc/self/fd"
    #else
    "/dev/fd"
    #endif
}()

/// The names in `directory` (`.` and `..` left out, in the order the system lists them); nil when
/// it cannot be listed (`errno` says why).
package func directoryEntries(_ directory: String) -> [String]? {
    guard let d = opendir(directory) else { return nil }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        // In place: glibc's dirent records are d_reclen long, often shorter than the 256-byte
        // d_name a copy of the field would read (ASan: heap-buffer-overflow).
        let name = withUnsafeMutablePointer(to: &e.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
        }
        if name != "." && name != ".." { out.append(name) }
    }
    return out
}

/// Reads `fd` to its end (or its first `limit` bytes): a regular file straight into an array of
/// its size, anything else (a pipe, a file that grows meanwhile) in chunks. On a failed read,
/// the bytes so far and the `errno`; else the bytes and 0.
package func readAll(_ fd: Int32, upTo limit: Int) -> (bytes: [UInt8], errno: Int32) {
    var out = [UInt8]()
    var st = stat()
    if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 {
        let size = min(Int(st.st_size), limit)
        var failure: Int32 = 0
        out = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            while count < size {
                let n = read(fd, buf.baseAddress! + count, size - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                count += n
            }
        }
        if failure != 0 { return (out, failure) }
    }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while out.count < limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return (out, errno)
        }
        if n == 0 { break }
        out.append(contentsOf: chunk[0..<min(n, limit - out.count)])
    }
    return (out, 0)
}

/// Writes all of `bytes` to file descriptor `fd`; the error text when a write fails.
package func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
    bytes.withUnsafeBytes { writeAll($0, to: fd) }
}

/// ``writeAll(_:to:)`` of the bytes of `raw`.
package func writeAll(_ raw: UnsafeRawBufferPointer, to fd: Int32) -> String? {
    var off = 0
    while off < raw.count {
        let n = write(fd, raw.baseAddress! + off, raw.count - off)
        if n < 0 {
            if errno == EINTR { continue }
            return systemErrorText()
        }
        off += n
    }
    return nil
}

/// `mkstemps(3)`: creates and opens a new file from `template` (its `XXXXXX`, followed by
/// `suffixLength` bytes, replaced); the descriptor (-1 on failure, `errno` says why) and the path.
package func makeTemporaryFile(_ template: String, suffixLength: Int32) -> (fd: Int32, path: String) {
    var chars = Array(template.utf8CString)
    let fd = chars.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, suffixLength) }
    let failure = errno
    let path = chars.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    errno = failure  // for the caller's message, whatever making the path did to it
    return (fd, path)
}

/// Where a reader's bytes come from: a file descriptor (a file, or a pipe such as standard input)
/// or bytes already in memory. Hands out chunks into the caller's buffer; seeks when the source
/// allows it (a regular file, memory), and can turn a pipe into a seekable source by copying what
/// is left of it into an unlinked temporary file.
///
/// The tokenizer (FaceScanCapture's `JSONReader`) owns the buffer and the position; this type only fills the
/// buffer, so a capture reads the same from a file, a pipe or memory, error offsets included.
/// Not `Sendable`: a source belongs to the one reader that pulls from it.
package final class ByteSource {
    /// Why a read, seek or spool failed, as the end of a message (`read failed at byte N: TEXT`).
    package struct Failure: Error {
        package var message: String
    }

    private var fd: Int32
    private var ownsFD: Bool
    /// In-memory bytes (fd is -1) and the offset of the next one to hand out.
    private let memory: [UInt8]
    private var memoryOffset = 0
    /// True when ``seek(to:)`` works: a regular file or memory.
    package private(set) var seekable: Bool

    /// Reads from `fd`; closes it when done if `ownsFD`.
    package init(fd: Int32, ownsFD: Bool) {
        self.fd = fd
        self.ownsFD = ownsFD
        memory = []
        var st = stat()
        seekable = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads `bytes` (no copy: the array's storage is shared).
    package init(bytes: [UInt8]) {
        fd = -1
        ownsFD = false
        memory = bytes
        seekable = true
    }

    deinit {
        if ownsFD { close(fd) }
    }

    /// Copies up to `count` bytes into `dst`. Returns how many; 0 at the end of the source.
    package func read(into dst: UnsafeMutablePointer<UInt8>, count: Int) throws(Failure) -> Int {
        if fd < 0 {
            let n = min(count, memory.count - memoryOffset)
            if n > 0 {
                memory.withUnsafeBufferPointer { src in
                    dst.update(from: src.baseAddress! + memoryOffset, count: n)
                }
                memoryOffset += n
            }
            return n
        }
        while true {
            let r = posixRead(fd, dst, count)
            if r >= 0 { return r }
            if errno == EINTR { continue }
            throw Failure(message: systemErrorText())
        }
    }

    /// Moves to byte `offset` (seekable sources only). Returns false when the system refuses.
    package func seek(to offset: Int64) -> Bool {
        precondition(seekable)
        if fd < 0 {
            guard offset >= 0 && offset <= Int64(memory.count) else { return false }
            memoryOffset = Int(offset)
            return true
        }
        return lseek(fd, off_t(offset), SEEK_SET) == offset
    }

    /// Copies `pending` (bytes the reader buffered but has not consumed) and the rest of the
    /// source into an unlinked temporary file and continues from it: afterwards the source is
    /// seekable and its offset 0 is the first pending byte. `scratch` is used to copy;
    /// `sourceEnded`: the source already reported its end (a terminal is not read again).
    package func spoolToTemporaryFile(
        pending: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<UInt8>, sourceEnded: Bool
    ) throws(Failure) {
        let tmpdir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let (tfd, path) = makeTemporaryFile("\(tmpdir)/facescan-spool.XXXXXX", suffixLength: 0)
        guard tfd >= 0 else { throw Failure(message: "cannot create a temporary file to buffer standard input") }
        _ = unlink(path)
        func put(_ p: UnsafePointer<UInt8>, _ n: Int) throws(Failure) {
            if let text = writeAll(UnsafeRawBufferPointer(start: p, count: n), to: tfd) {
                close(tfd)
                throw Failure(message: "cannot buffer standard input: \(text)")
            }
        }
        if let p = pending.baseAddress { try put(p, pending.count) }
        while !sourceEnded {
            let r: Int
            do {
                r = try read(into: scratch.baseAddress!, count: scratch.count)
            } catch {
                close(tfd)
                throw Failure(message: "read failed: \(error.message)")
            }
            if r == 0 { break }
            try put(scratch.baseAddress!, r)
        }
        if ownsFD { close(fd) }
        fd = tfd
        ownsFD = true
        seekable = true
        guard lseek(tfd, 0, SEEK_SET) == 0 else { throw Failure(message: "cannot rewind the buffered input") }
    }
}
