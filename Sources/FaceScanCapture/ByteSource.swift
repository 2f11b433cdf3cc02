import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a reader's bytes come from: a file descriptor (a file, or a pipe such as standard input)
/// or bytes already in memory. Hands out chunks into the caller's buffer; seeks when the source
/// allows it (a regular file, memory), and can turn a pipe into a seekable source by copying what
/// is left of it into an unlinked temporary file.
///
/// The tokenizer (``JSONReader``) owns the buffer and the position; this type only fills the
/// buffer, so a capture reads the same from a file, a pipe or memory, error offsets included.
/// Not `Sendable`: a source belongs to the one reader that pulls from it.
final class ByteSource {
    /// Why a read, seek or spool failed, as the end of a message (`read failed at byte N: TEXT`).
    struct Failure: Error {
        var message: String
    }

    private var fd: Int32
    private var ownsFD: Bool
    /// In-memory bytes (fd is -1) and the offset of the next one to hand out.
    private let memory: [UInt8]
    private var memoryOffset = 0
    /// True when ``seek(to:)`` works: a regular file or memory.
    private(set) var seekable: Bool

    /// Reads from `fd`; closes it when done if `ownsFD`.
    init(fd: Int32, ownsFD: Bool) {
        self.fd = fd
        self.ownsFD = ownsFD
        memory = []
        var st = stat()
        seekable = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads `bytes` (no copy: the array's storage is shared).
    init(bytes: [UInt8]) {
        fd = -1
        ownsFD = false
        memory = bytes
        seekable = true
    }

    deinit {
        if ownsFD { close(fd) }
    }

    /// Copies up to `count` bytes into `dst`. Returns how many; 0 at the end of the source.
    func read(into dst: UnsafeMutablePointer<UInt8>, count: Int) throws(Failure) -> Int {
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
    func seek(to offset: Int64) -> Bool {
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
    func spoolToTemporaryFile(
        pending: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<UInt8>, sourceEnded: Bool
    ) throws(Failure) {
        let tmpdir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(tmpdir)/facescan-spool.XXXXXX".utf8CString)
        let tfd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard tfd >= 0 else { throw Failure(message: "cannot create a temporary file to buffer standard input") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        func put(_ p: UnsafePointer<UInt8>, _ n: Int) throws(Failure) {
            var o = 0
            while o < n {
                let w = posixWrite(tfd, p + o, n - o)
                if w < 0 {
                    if errno == EINTR { continue }
                    let text = systemErrorText()
                    close(tfd)
                    throw Failure(message: "cannot buffer standard input: \(text)")
                }
                o += w
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
