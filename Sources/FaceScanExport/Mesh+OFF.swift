import FaceScanCore

/// ASCII Object File Format, read by FaceScanKit itself (assimp's OFF loader crashed on files a
/// fuzzer wrote: zero-corner faces, keywords glued to counts, counts it wraps).
///
/// Accepted: an optional keyword `[ST][C][N][4][n]OFF` (a word of its own; `nOFF` is followed
/// by the dimension, which must be 3; `4…OFF` adds a homogeneous coordinate), or no keyword when
/// the caller says the bytes are OFF; the vertex and face counts (an edge count after them is
/// ignored); one vertex per line (its first coordinates; normals, colours and texture
/// coordinates after them are ignored); one face per line, a corner count and that many
/// zero-based indices (a colour after them is ignored). Faces of one or two corners (points and
/// lines) are skipped; polygons are cut into triangles (a fan, a strip beyond 64 corners, as in
/// OBJ). Empty lines and `#` comments are skipped; lines end at `\n`, `\r\n` or `\r`.
/// Binary OFF is refused. Limits: the declared records must fit in the lines that follow (so a
/// few bytes cannot declare a billion vertices), at most ``maxVertices`` vertices.
package enum OFFReader {
    static let maxVertices = 20_000_000
    static let maxTriangles = 40_000_000

    /// Whether `head` (the first bytes of a file) starts like an ASCII OFF file: a first word
    /// ending in `OFF`, or `off` in any case as the first three bytes (what assimp's loader
    /// claims, so that such a file never reaches it).
    package static func looksLikeOFF(_ head: ArraySlice<UInt8>) -> Bool {
        if head.count >= 3 && zip(head.prefix(3), "off".utf8).allSatisfy({ $0 | 0x20 == $1 }) { return true }
        let firstLine = head.prefix { $0 != 0x0A && $0 != 0x0D }
        let text = String(decoding: firstLine, as: UTF8.self)
        guard let keyword = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first else { return false }
        return keyword.hasSuffix("OFF") && keyword.count <= 6
    }

    /// The keyword's flags, or nil when `w` is not one of `[ST][C][N][4][n]OFF`.
    static func keyword(_ w: ArraySlice<UInt8>) -> (homogeneous: Bool, dimension: Bool)? {
        var rest = w
        guard rest.count >= 3, rest.suffix(3).elementsEqual("OFF".utf8) else { return nil }
        rest = rest.dropLast(3)
        var homogeneous = false, dimension = false
        if rest.last == UInt8(ascii: "n") { dimension = true; rest = rest.dropLast() }
        if rest.last == UInt8(ascii: "4") { homogeneous = true; rest = rest.dropLast() }
        if rest.last == UInt8(ascii: "N") { rest = rest.dropLast() }
        if rest.last == UInt8(ascii: "C") { rest = rest.dropLast() }
        if rest.elementsEqual("ST".utf8) { rest = rest.dropLast(2) }
        return rest.isEmpty ? (homogeneous, dimension) : nil
    }

    package static func parse(_ bytes: [UInt8], name: String) throws(InputError) -> Mesh {
        let text = OFFLines.lineEndsUnified(bytes) ?? bytes
        return try ByteScanner.scan(text) { (all: inout ByteScanner) throws(InputError) -> Mesh in
            var lines = OFFLines(all)
            return try parse(&lines, name: name)
        }
    }

    /// The mesh of `lines`: the header, the vertices, the faces.
    static func parse(_ lines: inout OFFLines, name: String) throws(InputError) -> Mesh {
        var words: [ArraySlice<UInt8>] = []
        let homogeneous = try keywordLine(&lines, &words, name: name)
        let (vertexCount, faceCount) = try counts(&lines, &words, name: name)
        let positions = try vertices(&lines, vertexCount, homogeneous: homogeneous, name: name)
        let triangles = try faces(&lines, faceCount, vertexCount: vertexCount, name: name)
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    /// An `InputError` naming `name` and line `line`.
    static func fail(_ name: String, _ line: Int, _ message: String) -> InputError {
        InputError(file: name, "line \(line): " + message)
    }

    /// Reads the first data line into `words` and takes its keyword (and an `nOFF` dimension)
    /// off it, when it starts with one; returns whether the vertices are homogeneous (`4…OFF`).
    static func keywordLine(
        _ lines: inout OFFLines, _ words: inout [ArraySlice<UInt8>], name: String
    ) throws(InputError) -> Bool {
        guard let first = lines.nextWords() else { throw InputError(file: name, "empty file: no OFF header") }
        words = first
        guard let w0 = words.first, count(w0) == nil else { return false }
        guard let flags = keyword(w0) else {
            throw fail(
                name, lines.number, "expected the OFF keyword or the vertex and face counts, found '\(text(w0))'")
        }
        words.removeFirst()
        if let w = words.first, w.elementsEqual("BINARY".utf8) {
            throw fail(name, lines.number, "binary OFF is not supported (ASCII OFF only)")
        }
        if flags.dimension {
            if words.isEmpty { words = lines.nextWords() ?? [] }
            guard let w = words.first, w.elementsEqual("3".utf8) else {
                let found = words.first.map { "'\(text($0))'" } ?? "none"
                throw fail(name, lines.number, "nOFF: only dimension 3 is supported, found \(found)")
            }
            words.removeFirst()
        }
        return flags.homogeneous
    }

    /// The vertex and face counts: the next two words, on this line (what is left of it in
    /// `words`) or the following ones (an edge count after them is ignored); checked against the
    /// lines that follow and the vertex limit.
    static func counts(
        _ lines: inout OFFLines, _ words: inout [ArraySlice<UInt8>], name: String
    ) throws(InputError) -> (vertices: Int, faces: Int) {
        var counts: [(text: ArraySlice<UInt8>, value: Int)] = []
        var countLine = lines.number
        while counts.count < 2 {
            if words.isEmpty {
                guard let next = lines.nextWords() else {
                    throw fail(name, lines.number, "expected the vertex and face counts")
                }
                words = next
            }
            let w = words.removeFirst()
            guard let v = count(w) else {
                throw fail(name, lines.number, "expected the vertex and face counts, found '\(text(w))'")
            }
            if counts.isEmpty { countLine = lines.number }
            counts.append((w, v))
        }
        let vertexCount = counts[0].value, faceCount = counts[1].value
        let left = lines.remainingDataLines()
        if vertexCount > left || faceCount > left - vertexCount {
            throw fail(
                name, countLine,
                "\(text(counts[0].text)) vertices and \(text(counts[1].text)) faces declared, more than the \(left) lines that follow"
            )
        }
        guard vertexCount <= maxVertices else {
            throw fail(name, countLine, "more than \(maxVertices) vertices (facescan's limit for a mesh file)")
        }
        return (vertexCount, faceCount)
    }

    /// The `vertexCount` vertex lines: their first 3 (or, `homogeneous`, 4) coordinates.
    static func vertices(
        _ lines: inout OFFLines, _ vertexCount: Int, homogeneous: Bool, name: String
    ) throws(InputError) -> [SIMD3<Float>] {
        var positions: [SIMD3<Float>] = []
        positions.reserveCapacity(vertexCount)
        for v in 0..<vertexCount {
            guard var s = lines.nextScanner() else { break }  // counted above: never
            guard let x = s.finiteFloat(), let y = s.finiteFloat(), let z = s.finiteFloat() else {
                throw fail(name, lines.number, "vertex \(v): expected 3 finite coordinates")
            }
            var p = SIMD3(x, y, z)
            if homogeneous {
                guard let w = s.finiteFloat(), w != 0 else {
                    throw fail(name, lines.number, "vertex \(v): expected a non-zero homogeneous coordinate")
                }
                p /= w
                guard p.x.isFinite && p.y.isFinite && p.z.isFinite else {
                    throw fail(name, lines.number, "vertex \(v): coordinates do not fit 32-bit floats")
                }
            }
            positions.append(p)
        }
        return positions
    }

    /// The `faceCount` face lines, cut into triangles (points and lines skipped).
    static func faces(
        _ lines: inout OFFLines, _ faceCount: Int, vertexCount: Int, name: String
    ) throws(InputError) -> [UInt32] {
        var triangles: [UInt32] = []
        triangles.reserveCapacity(3 * faceCount)
        for f in 0..<faceCount {
            guard var s = lines.nextScanner() else { break }
            s.skipBlanks()
            let count = s.word()
            guard let n = s.integer(count), n >= 0 else {
                throw fail(name, lines.number, "face \(f): expected a corner count and that many indices")
            }
            let faceStart = triangles.count
            var fan = PolygonFan()
            for _ in 0..<n {
                s.skipBlanks()
                let w = s.word()
                guard w.count > 0 else {
                    throw fail(name, lines.number, "face \(f): expected a corner count and that many indices")
                }
                guard let i = s.integer(w) else {
                    throw fail(name, lines.number, "face \(f): bad vertex index '\(s.quoted(w))'")
                }
                guard i >= 0, i < vertexCount else {
                    throw fail(
                        name, lines.number,
                        "face \(f): vertex index \(s.quoted(w)) out of range (\(vertexCount) vertices)")
                }
                fan.add(UInt32(i), to: &triangles)
            }
            if n > Mesh.maxFanCorners { Mesh.restrip(&triangles, from: faceStart, corners: n) }
            guard triangles.count <= 3 * maxTriangles else {
                throw fail(name, lines.number, "more than \(maxTriangles) triangles (facescan's limit for a mesh file)")
            }
        }
        return triangles
    }

    /// A count word: decimal digits only; more than 18 digits counts as `Int.max`.
    static func count(_ w: ArraySlice<UInt8>) -> Int? {
        guard !w.isEmpty, w.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard w.count <= 18 else { return Int.max }
        return w.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// A word as a message quotes it (at most 24 bytes).
    static func text(_ w: some Collection<UInt8>) -> String { ByteScanner.quoted(w) }
}

/// The data lines of an OFF text: empty lines and `#` comments skipped, line numbers kept. Lines
/// end at `\n` (``lineEndsUnified(_:)`` turns the other line ends into it first).
struct OFFLines {
    let buf: ByteScanner
    /// The start of the next line to look at.
    package var start = 0
    /// The number of the line last returned (1-based).
    package var number = 0

    init(_ buf: ByteScanner) { self.buf = buf }

    /// `bytes` with each lone carriage return (classic Mac OS line ends) made a `\n`; nil when
    /// there is none (no copy).
    static func lineEndsUnified(_ bytes: [UInt8]) -> [UInt8]? {
        func lone(_ i: Int) -> Bool { bytes[i] == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A) }
        guard bytes.indices.contains(where: lone) else { return nil }
        var b = bytes
        for i in b.indices where lone(i) { b[i] = 0x0A }
        return b
    }

    /// The range of the next line that holds data (its comment cut off), or nil at the end.
    mutating func nextRange() -> Range<Int>? {
        while start < buf.n {
            var end = start
            while end < buf.n && buf[end] != 0x0A { end += 1 }
            var stop = start
            while stop < end && buf[stop] != UInt8(ascii: "#") { stop += 1 }
            let range = start..<stop
            start = end + 1
            number += 1
            if range.contains(where: { !Self.isBlank(buf[$0]) }) { return range }
        }
        return nil
    }

    /// The words of the next data line, or nil at the end.
    mutating func nextWords() -> [ArraySlice<UInt8>]? {
        guard let r = nextRange() else { return nil }
        return buf.bytes(r).split(whereSeparator: Self.isBlank)
    }

    /// A scanner over the next data line (it ends at the line's comment, or with its `\n`, which
    /// lets the last number take ``FastFloat``'s path), or nil at the end.
    mutating func nextScanner() -> ByteScanner? {
        guard let r = nextRange() else { return nil }
        let end = r.upperBound < buf.n && buf[r.upperBound] == 0x0A ? r.upperBound + 1 : r.upperBound
        return buf.scanner(r.lowerBound..<end)
    }

    /// How many data lines follow, without moving.
    func remainingDataLines() -> Int {
        var copy = self
        var n = 0
        while copy.nextRange() != nil { n += 1 }
        return n
    }

    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0C || b == 0x0B }
}

extension Mesh {
    /// Object File Format text: `OFF`, the counts (`vertices triangles 0`), one `x y z` line per
    /// vertex (shortest round-trip float text), one `3 a b c` line per triangle (zero-based).
    /// Read by `OFFReader`.
    public func offBytes() -> [UInt8] {
        let header = Array("OFF\n\(vertexCount) \(triangleCount) 0\n".utf8)
        // Each line's longest text: three floats and their separators; "3" and three indices of
        // at most 10 digits.
        let capacity =
            header.count + positions.count * 3 * (ByteWriter.floatRoom + 1) + triangleCount * (1 + 3 * 11 + 1)
        return ByteWriter.bytes(capacity: capacity) { out in
            out.append(header)
            for p in positions { out.xyz(p.x, p.y, p.z) }
            var i = 0
            while i < triangles.count {
                out.byte(0x33)
                for k in 0..<3 {
                    out.byte(0x20)
                    out.text(triangles[i + k])
                }
                out.byte(0x0A)
                i += 3
            }
        }
    }
}
