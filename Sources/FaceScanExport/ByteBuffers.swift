import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The byte buffers of the formats: `ByteScanner` reads bytes in memory, `ByteWriter` writes
// them. Each holds its buffer's pointer once, for the length of one call, and hands out values,
// offsets and copies, never a pointer: the format readers and writers (OBJ, STL, OFF, GLB, FBX)
// and the PNG encoder use them and are safe Swift (CONTRIBUTING.md, "Unsafe code and threads").

/// A cursor over bytes in memory: the one byte reader of the mesh formats (OBJ, ASCII and binary
/// STL, OFF). Text is read line by line (blanks are space, tab and `\r`; lines end at `\n`),
/// words as ranges of offsets, numbers through ``FastFloat``; binary fields as little-endian
/// values at an offset. It holds the bytes' pointer once, for the length of
/// ``scan(_:_:)``; what it hands out are offsets, values and copies, never a pointer, so its users
/// are safe Swift. Reads at the cursor stop at the end; a read at an offset checks it.
package struct ByteScanner {
    private let p: UnsafePointer<UInt8>
    /// The number of bytes.
    package let n: Int
    /// The cursor: the offset of the next byte to read.
    package var i = 0

    private init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        self.p = p
        self.n = n
    }

    /// Runs `body` with a scanner over `bytes` (no copy). The scanner must not outlive `body`.
    @inline(__always)
    package static func scan<R, E: Error>(
        _ bytes: [UInt8], _ body: (inout ByteScanner) throws(E) -> R
    ) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { (buf) throws(E) -> R in
            // An empty array may have no storage; any valid address will do for zero bytes.
            var s = ByteScanner(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, buf.count)
            return try body(&s)
        }
    }

    /// A scanner over `range` of these bytes (its offsets count from the range's start).
    package func scanner(_ range: Range<Int>) -> ByteScanner {
        precondition(range.lowerBound >= 0 && range.upperBound <= n)
        return ByteScanner(p + range.lowerBound, range.count)
    }

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
    @inline(__always) static func isDelimiter(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    /// A word as an error message quotes it: at most 24 bytes, then `…`.
    package static func quoted(_ w: some Collection<UInt8>) -> String {
        String(decoding: w.prefix(24), as: UTF8.self) + (w.count > 24 ? "…" : "")
    }

    /// The byte at offset `k` (checked).
    @inline(__always)
    package subscript(k: Int) -> UInt8 {
        precondition(k >= 0 && k < n, "ByteScanner: offset out of range")
        return p[k]
    }

    /// A copy of the bytes in `range` (checked).
    package func bytes(_ range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= n, "ByteScanner: range out of bounds")
        return Array(UnsafeBufferPointer(start: p + range.lowerBound, count: range.count))
    }

    /// The bytes in `range` as UTF-8 text (checked).
    package func text(_ range: Range<Int>) -> String {
        precondition(range.lowerBound >= 0 && range.upperBound <= n, "ByteScanner: range out of bounds")
        return String(decoding: UnsafeBufferPointer(start: p + range.lowerBound, count: range.count), as: UTF8.self)
    }

    /// The bytes in `range` as a message quotes them (``quoted(_:)``).
    package func quoted(_ range: Range<Int>) -> String { Self.quoted(bytes(range)) }

    /// True when the bytes in `range` are `literal`'s.
    @inline(__always)
    package func matches(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= n, "ByteScanner: range out of bounds")
        return range.count == literal.utf8CodeUnitCount
            && memcmp(p + range.lowerBound, literal.utf8Start, range.count) == 0
    }

    /// The little-endian 32-bit float at offset `k` (checked).
    @inline(__always)
    package func float32LE(at k: Int) -> Float {
        precondition(k >= 0 && k + 4 <= n, "ByteScanner: offset out of range")
        return Float(bitPattern: UInt32(littleEndian: UnsafeRawPointer(p + k).loadUnaligned(as: UInt32.self)))
    }

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

    /// The offsets of the word at the cursor (empty at a blank or line end); the cursor moves past it.
    @inline(__always)
    mutating func word() -> Range<Int> {
        let start = i
        while i < n && !Self.isDelimiter(p[i]) { i += 1 }
        return start..<i
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
        return Float(text(word()))
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
        if i - start > 18 { return slowIndex(fieldStart..<i) }
        guard m != 0 else { return nil }
        return negative ? -Int(m) : Int(m)
    }

    /// Indices of more than 18 digits, possibly beyond `Int`: the library decides, as before.
    @inline(never)
    func slowIndex(_ range: Range<Int>) -> Int? {
        guard let v = Int(text(range)), v != 0 else { return nil }
        return v
    }

    /// The word in `range` as an integer: optional sign, then 1 to 18 decimal digits and nothing
    /// else; nil otherwise.
    package func integer(_ range: Range<Int>) -> Int? {
        precondition(range.lowerBound >= 0 && range.upperBound <= n, "ByteScanner: range out of bounds")
        var k = range.lowerBound
        let negative = k < range.upperBound && p[k] == 0x2D
        if k < range.upperBound && (p[k] == 0x2D || p[k] == 0x2B) { k += 1 }
        guard range.upperBound > k, range.upperBound - k <= 18 else { return nil }
        var v = 0
        while k < range.upperBound {
            let d = p[k] &- 0x30
            guard d <= 9 else { return nil }
            v = v * 10 + Int(d)
            k += 1
        }
        return negative ? -v : v
    }
}

/// Writes bytes (ASCII text, decimal numbers, little-endian binary fields) into an array whose
/// room is reserved in advance: the one byte writer of the mesh formats (OBJ, OFF, STL, GLB, FBX)
/// and the PNG encoder. It holds its buffer's pointer once, for the length of
/// ``bytes(capacity:_:)``; every write checks the room left (one comparison per call, not per
/// byte) and stops the program when the caller reserved too little, so a writer never writes
/// past its array. Its users are safe Swift.
package struct ByteWriter {
    /// Room reserved per float text: its shortest form is at most 15 bytes.
    package static let floatRoom = 16

    private let start: UnsafeMutablePointer<UInt8>
    private let limit: UnsafeMutablePointer<UInt8>
    private var at: UnsafeMutablePointer<UInt8>

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        start = buffer.baseAddress!
        limit = start + buffer.count
        at = start
    }

    /// The bytes `body` writes, at most `capacity` of them.
    package static func bytes(capacity: Int, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
            var w = ByteWriter(buffer)
            body(&w)
            count = w.count
        }
    }

    /// Appends to `array` the `count` bytes `body` writes (exactly that many), in place: the
    /// array grows once, and no temporary is copied in.
    package static func append(to array: inout [UInt8], count: Int, _ body: (inout ByteWriter) -> Void) {
        guard count > 0 else { return }
        let from = array.count
        array.append(contentsOf: repeatElement(0, count: count))
        array.withUnsafeMutableBufferPointer { all in
            var w = ByteWriter(UnsafeMutableBufferPointer(rebasing: all[from...]))
            body(&w)
            precondition(w.count == count, "ByteWriter: \(w.count) bytes written of \(count)")
        }
    }

    /// Bytes written so far.
    package var count: Int { at - start }

    @inline(__always)
    private func room(_ n: Int) {
        precondition(limit - at >= n, "ByteWriter: more bytes than the room reserved")
    }

    // MARK: bytes and binary fields

    @inline(__always)
    package mutating func byte(_ b: UInt8) {
        room(1)
        at.pointee = b
        at += 1
    }

    /// Appends `bytes` as they are.
    package mutating func append(_ bytes: [UInt8]) { append(bytes[...]) }

    /// Appends `bytes` as they are.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        room(bytes.count)
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            at.update(from: base, count: b.count)
        }
        at += bytes.count
    }

    /// Appends `bytes[range]` less the bytes of `bytes` `offset` before them, byte by byte
    /// (wrapping): PNG's Up filter of a row, `offset` the row's length.
    package mutating func appendDifferences(_ bytes: [UInt8], _ range: Range<Int>, lessThoseBefore offset: Int) {
        precondition(range.lowerBound - offset >= 0 && range.upperBound <= bytes.count && offset >= 0)
        room(range.count)
        bytes.withUnsafeBufferPointer { b in
            let cur = b.baseAddress! + range.lowerBound, up = cur - offset
            // 16 bytes at a time (one vector subtraction), then byte by byte.
            let now = UnsafeRawPointer(cur), before = UnsafeRawPointer(up), out = UnsafeMutableRawPointer(at)
            var k = 0
            while k &+ 16 <= range.count {
                let d =
                    now.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
                    &- before.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
                out.storeBytes(of: d, toByteOffset: k, as: SIMD16<UInt8>.self)
                k &+= 16
            }
            while k < range.count {
                at[k] = cur[k] &- up[k]
                k &+= 1
            }
        }
        at += range.count
    }

    /// Appends `n` zero bytes.
    package mutating func zeros(_ n: Int) {
        room(n)
        at.update(repeating: 0, count: n)
        at += n
    }

    /// Appends zero bytes up to `count` bytes in all (none when there are as many already).
    package mutating func pad(to total: Int) {
        if total > count { zeros(total - count) }
    }

    /// An integer's bytes, little-endian (`UInt16`, `UInt32`, `UInt64`: the binary formats'
    /// counts, indices and floats' bit patterns).
    @inline(__always)
    package mutating func littleEndian<T: FixedWidthInteger & BitwiseCopyable>(_ v: T) {
        room(MemoryLayout<T>.size)
        UnsafeMutableRawPointer(at).storeBytes(of: v.littleEndian, as: T.self)
        at += MemoryLayout<T>.size
    }

    /// A float32's bits, little-endian.
    @inline(__always)
    package mutating func float32LE(_ f: Float) { littleEndian(f.bitPattern) }

    /// Three float32s, little-endian.
    @inline(__always)
    package mutating func float32LE(_ v: SIMD3<Float>) {
        room(12)
        let raw = UnsafeMutableRawPointer(at)
        raw.storeBytes(of: v.x.bitPattern.littleEndian, toByteOffset: 0, as: UInt32.self)
        raw.storeBytes(of: v.y.bitPattern.littleEndian, toByteOffset: 4, as: UInt32.self)
        raw.storeBytes(of: v.z.bitPattern.littleEndian, toByteOffset: 8, as: UInt32.self)
        at += 12
    }

    /// A float64's bits, little-endian.
    @inline(__always)
    package mutating func float64LE(_ d: Double) { littleEndian(d.bitPattern) }

    // MARK: text

    /// Shortest text that reads back to the same `Float` (the standard library's algorithm; a
    /// float's text fits a small `String`, so nothing is allocated).
    @inline(__always)
    package mutating func text(_ f: Float) {
        room(Self.floatRoom)
        var d = f.description
        d.withUTF8 { b in
            assert(b.count <= Self.floatRoom)
            at.update(from: b.baseAddress!, count: b.count)
            at += b.count
        }
    }

    /// Decimal digits of `v`, most significant first.
    @inline(__always)
    package mutating func text(_ v: UInt32) {
        room(10)
        var digits = 1
        var p: UInt32 = 10
        while digits < 10 && v >= p {
            digits += 1
            p &*= 10
        }
        var rest = v
        var k = digits
        while k > 0 {
            k -= 1
            at[k] = UInt8(truncatingIfNeeded: 48 &+ rest % 10)
            rest /= 10
        }
        at += digits
    }

    /// `a b x y z\n` (the line head is two bytes, the second a space for `v `).
    @inline(__always)
    package mutating func line(_ a: UInt8, _ b: UInt8, _ x: Float, _ y: Float, _ z: Float) {
        byte(a)
        byte(b)
        if b != 0x20 { byte(0x20) }
        xyz(x, y, z)
    }

    /// `x y z\n`.
    @inline(__always)
    package mutating func xyz(_ x: Float, _ y: Float, _ z: Float) {
        text(x)
        byte(0x20)
        text(y)
        byte(0x20)
        text(z)
        byte(0x0A)
    }
}
