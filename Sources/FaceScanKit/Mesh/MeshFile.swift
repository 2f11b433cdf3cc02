#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Mesh file formats facescan reads and writes itself (assimp handles the rest, see ``AssimpIO``).
public enum MeshFormat: String, Sendable, CaseIterable {
    case stl, obj

    /// The format named by a path's extension, if facescan handles it natively.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}

/// Reading whole files (meshes, captures spooled from stdin).
public enum FileBytes {
    /// The UTF-8 byte-order mark some editors put at the start of a text file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `bytes` without a leading UTF-8 byte-order mark.
    static func withoutByteOrderMark(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.starts(with: byteOrderMark) ? bytes.dropFirst(byteOrderMark.count) : bytes[...]
    }

    /// Reads a whole file (or standard input for `-`) into memory; with `limit`, at most its
    /// first `limit` bytes.
    public static func read(_ path: String, upTo limit: Int = .max) throws(IOFailure) -> [UInt8] {
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
                    let n = Glibc.read(fd, buf.baseAddress! + count, size - count)
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
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
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
    public static let maxMeshFileBytes = 256 << 20

    /// Reads a mesh file (or standard input for `-`) whole; refuses, naming the limit, a regular
    /// file larger than ``maxMeshFileBytes`` before reading it and a stream as soon as it passes it.
    public static func readMesh(_ path: String) throws -> [UInt8] {
        try checkMeshSize(path)
        let bytes = try read(path, upTo: maxMeshFileBytes + 1)
        guard bytes.count <= maxMeshFileBytes else { throw tooLarge(path) }
        return bytes
    }

    /// Refuses a regular file larger than ``maxMeshFileBytes`` from its size alone.
    public static func checkMeshSize(_ path: String) throws(InputError) {
        var st = stat()
        if path != "-", stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) > maxMeshFileBytes {
            throw tooLarge(path)
        }
    }

    static func tooLarge(_ path: String) -> InputError {
        InputError(file: CaptureReader.displayName(path), "larger than \(maxMeshFileBytes >> 20) MiB, facescan's limit for a mesh file")
    }
}

extension Mesh {
    /// Parses a mesh from bytes in a format facescan reads natively. `name` is used in messages.
    public static func parse(_ bytes: [UInt8], format: MeshFormat, name: String) throws(InputError) -> Mesh {
        // A text file may start with a UTF-8 byte-order mark (a binary STL's header is free-form).
        let bom = bytes.starts(with: FileBytes.byteOrderMark) && !(format == .stl && looksLikeBinarySTL(bytes))
        let text = bom ? Array(FileBytes.withoutByteOrderMark(bytes)) : bytes  // copies only with a mark
        switch format {
        case .obj: return try parseOBJ(text, name: name)
        case .stl: return try parseSTL(text, name: name)
        }
    }

    /// Reads an OBJ or STL file (by extension; by content for `-`).
    /// Throws ``IOFailure`` or ``InputError``.
    public static func read(path: String) throws -> Mesh {
        let bytes = try FileBytes.readMesh(path)
        let format = MeshFormat(path: path) ?? (looksLikeBinarySTL(bytes) || bytes.starts(with: Array("solid".utf8)) ? .stl : .obj)
        return try parse(bytes, format: format, name: path)
    }

    static func looksLikeBinarySTL(_ b: [UInt8]) -> Bool {
        guard b.count >= 84 else { return false }
        let n = Int(UInt32(b[80]) | UInt32(b[81]) << 8 | UInt32(b[82]) << 16 | UInt32(b[83]) << 24)
        return b.count == 84 + 50 * n
    }

    /// STL, binary or ASCII. Corners with bit-identical coordinates become one vertex.
    public static func parseSTL(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var corners: [SIMD3<Float>] = []
        if looksLikeBinarySTL(b) {
            let n = (b.count - 84) / 50
            corners.reserveCapacity(3 * n)
            b.withUnsafeBytes { raw in
                for f in 0..<n {
                    for k in 0..<3 {
                        let o = 84 + 50 * f + 12 + 12 * k
                        let x = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
                        let y = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self)))
                        let z = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
                        corners.append(SIMD3(x, y, z))
                    }
                }
            }
        } else if b.starts(with: Array("solid".utf8)) {
            corners.reserveCapacity(b.count / 40)
            try b.withUnsafeBufferPointer { (buf) throws(InputError) in
                var s = ByteScanner(buf)
                var line = 0
                // Corners since the facet began (its `facet` line): exactly 3 at its `endfacet`.
                var facetStart = 0, facetLine = 0, facets = 0
                while !s.atEnd {
                    line += 1
                    s.skipBlanks()
                    let head = s.word()
                    if head.count == 6 && memcmp(head.base, "vertex", 6) == 0 {
                        guard let x = s.float(), let y = s.float(), let z = s.float(), s.skipBlanks(), s.atEndOfLine
                        else { throw InputError(file: name, field: "vertex", "line \(line): expected three numbers") }
                        corners.append(SIMD3(x, y, z))
                    } else if head.count == 5 && memcmp(head.base, "facet", 5) == 0 {
                        facetStart = corners.count
                        facetLine = line
                    } else if head.count == 8 && memcmp(head.base, "endfacet", 8) == 0 {
                        let n = corners.count - facetStart
                        guard n == 3 else {
                            throw InputError(file: name, "line \(facetLine > 0 ? facetLine : line): facet \(facets) has \(n) vertices (an STL facet is a triangle)")
                        }
                        facets += 1
                        facetStart = corners.count
                        facetLine = 0
                    }
                    s.nextLine()
                }
            }
            guard corners.count % 3 == 0 else { throw InputError(file: name, "ASCII STL has an incomplete facet") }
        } else {
            throw InputError(file: name, "not an STL file (binary size does not match its facet count, and it does not begin with 'solid')")
        }
        for c in corners where !(c.x.isFinite && c.y.isFinite && c.z.isFinite) {
            throw InputError(file: name, field: "vertex", "non-finite coordinate")
        }
        var index: [SIMD3<UInt32>: UInt32] = [:]
        var positions: [SIMD3<Float>] = []
        var tris: [UInt32] = []
        tris.reserveCapacity(corners.count)
        for c in corners {
            let key = SIMD3(c.x.bitPattern, c.y.bitPattern, c.z.bitPattern)
            if let i = index[key] {
                tris.append(i)
            } else {
                let i = UInt32(positions.count)
                index[key] = i
                positions.append(c)
                tris.append(i)
            }
        }
        return Mesh(positions: positions, triangles: tris)
    }

    /// Wavefront OBJ: `v`, `vt` and `f` (polygons fanned into triangles; `v`, `v/vt`, `v//vn`,
    /// `v/vt/vn` and negative indices). UVs are kept when every vertex has one texture coordinate.
    ///
    /// One pass over the bytes. Lines end at `\n`; words are separated by spaces, tabs and `\r`.
    /// The first word selects the line kind (`v`, `vt`, `f`; anything else, comments included, is
    /// skipped). Numbers are whatever `Float(String)` accepts (the common decimal forms go through
    /// ``FastFloat``, which rounds identically); they must be finite. Indices are whatever
    /// `Int(String)` accepts, except 0; only the first two `/`-separated fields of a corner are read.
    /// A `\\` at the end of a line continues it on the next (messages give physical line numbers).
    /// Texture indices that point nowhere while the positions are sound drop the texture
    /// coordinates with one warning (``MeshWarnings``) instead of refusing the file.
    public static func parseOBJ(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        if let joined = joinContinuedLines(b) {
            return try parseOBJ(joined.bytes, name: name, continued: joined.merged)
        }
        return try parseOBJ(b, name: name, continued: [])
    }

    /// `b` with each backslash-newline (`\\\n` or `\\\r\n`) turned into blanks, and the offsets of the
    /// newlines so merged; nil when there is none (no copy).
    static func joinContinuedLines(_ b: [UInt8]) -> (bytes: [UInt8], merged: [Int])? {
        guard b.contains(UInt8(ascii: "\\")) else { return nil }
        var out = b
        var merged: [Int] = []
        var i = 0
        while i < out.count {
            if out[i] == UInt8(ascii: "\\") {
                var j = i + 1
                if j < out.count && out[j] == 0x0D { j += 1 }
                if j < out.count && out[j] == 0x0A {
                    for k in i..<j { out[k] = 0x20 }
                    out[j] = 0x0D  // a blank for ByteScanner
                    merged.append(j)
                    i = j
                }
            }
            i += 1
        }
        return merged.isEmpty ? nil : (out, merged)
    }

    static func parseOBJ(_ b: [UInt8], name: String, continued: [Int]) throws(InputError) -> Mesh {
        var positions: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        var tris: [UInt32] = []
        var uvOf: [Int32] = []
        var uvConsistent = true
        var danglingTexture: (line: Int, index: Int, defined: Int)?
        positions.reserveCapacity(b.count / 64)
        tris.reserveCapacity(b.count / 16)
        try b.withUnsafeBufferPointer { (buf) throws(InputError) in
            var s = ByteScanner(buf)
            var logicalLine = 0, lineNo = 0, mergedBefore = 0
            while !s.atEnd {
                logicalLine += 1
                if !continued.isEmpty {
                    while mergedBefore < continued.count && continued[mergedBefore] < s.i { mergedBefore += 1 }
                }
                lineNo = logicalLine + mergedBefore
                s.skipBlanks()
                let head = s.word()
                if head.count == 1 && head.base[0] == UInt8(ascii: "v") {
                    guard let x = s.finiteFloat(), let y = s.finiteFloat(), let z = s.finiteFloat() else {
                        throw InputError(file: name, field: "v", "line \(lineNo): expected a finite number")
                    }
                    positions.append(SIMD3(x, y, z))
                } else if head.count == 2 && head.base[0] == UInt8(ascii: "v") && head.base[1] == UInt8(ascii: "t") {
                    guard let u = s.finiteFloat(), let v = s.finiteFloat() else {
                        throw InputError(file: name, field: "vt", "line \(lineNo): expected a finite number")
                    }
                    texcoords.append(SIMD2(u, v))
                } else if head.count == 1 && head.base[0] == UInt8(ascii: "f") {
                    if uvOf.count < positions.count { uvOf.append(contentsOf: repeatElement(-2, count: positions.count - uvOf.count)) }
                    var corners = 0
                    let faceStart = tris.count
                    var first: UInt32 = 0
                    var prev: UInt32 = 0
                    while s.skipBlanks(), !s.atEndOfLine {
                        let wordStart = s.i
                        guard let vi = s.index() else { throw objBadIndex(name, lineNo, s, wordStart) }
                        guard let v = resolveIndex(vi, positions.count) else {
                            throw objIndexOutOfRange(name, lineNo, vi, positions.count)
                        }
                        var t = -1
                        if s.peek == UInt8(ascii: "/") {
                            s.i += 1
                            if s.peek != UInt8(ascii: "/"), !ByteScanner.isDelimiter(s.peek) {
                                guard let ti = s.index() else { throw objBadIndex(name, lineNo, s, wordStart) }
                                if let r = resolveIndex(ti, texcoords.count) {
                                    t = r
                                } else if danglingTexture == nil {
                                    danglingTexture = (lineNo, ti, texcoords.count)
                                }
                            }
                        }
                        _ = s.word()  // a normal index (or anything after the second '/') is not read
                        if uvOf[v] == -2 { uvOf[v] = Int32(t) } else if uvOf[v] != Int32(t) { uvConsistent = false }
                        let corner = UInt32(v)
                        if corners == 0 {
                            first = corner
                        } else if corners >= 2 {
                            tris.append(first)
                            tris.append(prev)
                            tris.append(corner)
                        }
                        prev = corner
                        corners += 1
                    }
                    guard corners >= 3 else { throw InputError(file: name, field: "f", "line \(lineNo): a face needs at least 3 corners") }
                    if corners > maxFanCorners { restrip(&tris, from: faceStart, corners: corners) }
                }
                s.nextLine()
            }
        }
        var uvs: [SIMD2<Float>]? = nil
        if let d = danglingTexture {
            MeshWarnings.emit("\(name): line \(d.line): texture coordinate index \(d.index) out of range (\(d.defined) defined); texture coordinates ignored")
        } else if uvConsistent, !texcoords.isEmpty, uvOf.count == positions.count, !uvOf.contains(where: { $0 < 0 }) {
            uvs = uvOf.map { texcoords[Int($0)] }
        }
        return Mesh(positions: positions, triangles: tris, uvs: uvs)
    }

    /// Polygons with more corners than this are triangulated as a zig-zag strip instead of a fan:
    /// a fan's first corner would be shared by every triangle (a vertex of valence 100 000 for a
    /// 100 000-gon), which the decimator's per-vertex work does not scale to.
    static let maxFanCorners = 64

    /// Rewrites the fan of `corners - 2` triangles at `tris[from...]` (first corner, then each
    /// pair of neighbours) as a strip over the same polygon, winding kept: the corners are taken
    /// alternately from both ends, so every vertex is in at most four of its triangles.
    static func restrip(_ tris: inout [UInt32], from start: Int, corners n: Int) {
        var c = [UInt32](repeating: 0, count: n)
        c[0] = tris[start]
        c[1] = tris[start + 1]
        for k in 1..<(n - 1) { c[k + 1] = tris[start + 3 * (k - 1) + 2] }
        var l = 0, r = n - 1, o = start, left = true
        while r - l >= 2 {
            if left {
                tris[o] = c[l]; tris[o + 1] = c[l + 1]; tris[o + 2] = c[r]
                l += 1
            } else {
                tris[o] = c[l]; tris[o + 1] = c[r - 1]; tris[o + 2] = c[r]
                r -= 1
            }
            o += 3
            left.toggle()
        }
    }

    /// A 1-based or negative (relative) OBJ index as a 0-based one, nil when out of range.
    @inline(__always)
    static func resolveIndex(_ i: Int, _ count: Int) -> Int? {
        let r = i > 0 ? i - 1 : count + i
        return r >= 0 && r < count ? r : nil
    }

    @inline(never)
    static func objBadIndex(_ name: String, _ line: Int, _ s: ByteScanner, _ wordStart: Int) -> InputError {
        var s = s
        s.i = wordStart
        let w = s.word()
        let text = String(decoding: UnsafeBufferPointer(start: w.base, count: w.count), as: UTF8.self)
        return InputError(file: name, field: "f", "line \(line): bad index '\(text)'")
    }

    @inline(never)
    static func objIndexOutOfRange(_ name: String, _ line: Int, _ i: Int, _ count: Int) -> InputError {
        InputError(file: name, field: "f", "line \(line): index \(i) out of range (\(count) defined)")
    }
}

/// A cursor over a text buffer for the line-oriented mesh formats (OBJ, ASCII STL).
/// Blanks are space, tab and `\r`; lines end at `\n`.
struct ByteScanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    init(_ buf: UnsafeBufferPointer<UInt8>) {
        // An empty array may have no storage; any valid address will do for zero bytes.
        p = buf.baseAddress ?? UnsafePointer(bitPattern: 1)!
        n = buf.count
    }

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
    @inline(__always) static func isDelimiter(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    var atEnd: Bool { i >= n }
    var atEndOfLine: Bool { i >= n || p[i] == 0x0A }
    /// The byte at the cursor, or `\n` at the end of the buffer.
    var peek: UInt8 { i < n ? p[i] : 0x0A }

    /// Skips spaces, tabs and `\r`; always true (to chain in conditions).
    @inline(__always) @discardableResult
    mutating func skipBlanks() -> Bool {
        while i < n && Self.isBlank(p[i]) { i += 1 }
        return true
    }

    /// The word at the cursor (empty at a blank or line end); the cursor moves past it.
    @inline(__always)
    mutating func word() -> (base: UnsafePointer<UInt8>, count: Int) {
        let start = i
        while i < n && !Self.isDelimiter(p[i]) { i += 1 }
        return (p + start, i - start)
    }

    /// Moves past the next `\n` (or to the end).
    @inline(__always)
    mutating func nextLine() {
        guard i < n else { return }
        if let q = memchr(p + i, 0x0A, n - i) {
            i = Int(bitPattern: q) - Int(bitPattern: p) + 1
        } else {
            i = n
        }
    }

    /// Skips blanks, then reads the next word as `Float(String)` would; nil when the line has no
    /// more words or `Float(String)` rejects the word.
    @inline(__always)
    mutating func float() -> Float? {
        skipBlanks()
        guard i < n, p[i] != 0x0A else { return nil }
        if let (v, len) = FastFloat.parseFloatToken(p + i, n - i), Self.isDelimiter(p[i + len]) {
            i += len
            return v
        }
        // Forms FastFloat leaves to the library: '+', '.5', '5.', leading zeros, more than 19
        // digits, huge or tiny exponents, 'nan', 'inf', hex; and malformed words.
        let w = word()
        return Float(String(decoding: UnsafeBufferPointer(start: w.base, count: w.count), as: UTF8.self))
    }

    @inline(__always)
    mutating func finiteFloat() -> Float? {
        guard let v = float(), v.isFinite else { return nil }
        return v
    }

    /// Reads an index field as `Int(String)` would (optional sign, decimal digits, no overflow),
    /// ending at `/` or a delimiter; nil when malformed or 0.
    @inline(__always)
    mutating func index() -> Int? {
        let fieldStart = i
        let negative = i < n && p[i] == 0x2D
        if i < n && (p[i] == 0x2D || p[i] == 0x2B) { i += 1 }
        let start = i
        var m: UInt64 = 0
        while i < n {
            let c = p[i] &- 0x30
            if c > 9 { break }
            m = m &* 10 &+ UInt64(c)  // exact up to 19 digits
            i += 1
        }
        guard i > start, i >= n || p[i] == 0x2F || Self.isDelimiter(p[i]) else { return nil }
        if i - start > 18 { return Self.slowIndex(p + fieldStart, i - fieldStart) }
        guard m != 0 else { return nil }
        return negative ? -Int(m) : Int(m)
    }

    /// Indices of more than 18 digits, possibly beyond `Int`: the library decides, as before.
    @inline(never)
    static func slowIndex(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard let v = Int(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)), v != 0 else { return nil }
        return v
    }
}
