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
        let (out, failure) = readAll(fd, upTo: limit)
        if failure != 0 { throw IOFailure(path: path, "read failed: \(systemErrorText(failure))") }
        return out
    }
}
