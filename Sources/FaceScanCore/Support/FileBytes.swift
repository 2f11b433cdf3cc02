#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading whole files (meshes, captures spooled from stdin).
package enum FileBytes {
    /// The UTF-8 byte-order mark some editors put at the start of a text file.
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `bytes` without a leading UTF-8 byte-order mark.
    package static func withoutByteOrderMark(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.starts(with: byteOrderMark) ? bytes.dropFirst(byteOrderMark.count) : bytes[...]
    }

    /// Reads a whole file (or standard input for `-`) into memory; with `limit`, at most its
    /// first `limit` bytes.
    package static func read(_ path: String, upTo limit: Int = .max) throws(IOFailure) -> [UInt8] {
        let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw IOFailure(path: path, "cannot open: \(systemErrorText())") }
        defer { if fd != 0 { close(fd) } }
        var out = [UInt8]()
        // A regular file is read straight into an array of its size; anything else (a pipe,
        // a file that grows meanwhile) continues in chunks.
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 {
            let size = min(Int(st.st_size), limit)
            var failure: Int32 = 0
            out = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
                while count < size {
                    let n = posixRead(fd, buf.baseAddress! + count, size - count)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if n == 0 { return }
                    count += n
                }
            }
            if failure != 0 { throw IOFailure(path: path, "read failed: \(systemErrorText(failure))") }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, "read failed: \(systemErrorText())")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<min(n, limit - out.count)])
        }
        return out
    }
}
