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
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `bytes` without a leading UTF-8 byte-order mark.
    static func withoutByteOrderMark(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
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

extension FileBytes {
    /// The largest mesh file facescan reads (the README's limits): 256 MiB, which keeps the
    /// file, the mesh and the work on it under 1 GB.
    package static let maxMeshFileBytes = 256 << 20

    /// Reads a mesh file (or standard input for `-`) whole; refuses, naming the limit, a regular
    /// file larger than ``maxMeshFileBytes`` before reading it and a stream as soon as it passes it.
    package static func readMesh(_ path: String) throws -> [UInt8] {
        try checkMeshSize(path)
        let bytes = try read(path, upTo: maxMeshFileBytes + 1)
        guard bytes.count <= maxMeshFileBytes else { throw tooLarge(path) }
        return bytes
    }

    /// Refuses a regular file larger than ``maxMeshFileBytes`` from its size alone.
    package static func checkMeshSize(_ path: String) throws(InputError) {
        var st = stat()
        if path != "-", stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) > maxMeshFileBytes {
            throw tooLarge(path)
        }
    }

    static func tooLarge(_ path: String) -> InputError {
        InputError(
            file: path == "-" ? "<stdin>" : path,
            "larger than \(maxMeshFileBytes >> 20) MiB, facescan's limit for a mesh file")
    }
}
