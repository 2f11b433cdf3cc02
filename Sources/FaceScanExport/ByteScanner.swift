import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A cursor over a text buffer for the line-oriented mesh formats (OBJ, ASCII STL).
/// Blanks are space, tab and `\r`; lines end at `\n`.
package struct ByteScanner {
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

    /// A word as an error message quotes it: at most 24 bytes, then `…`.
    package static func quoted(_ w: some Collection<UInt8>) -> String {
        String(decoding: w.prefix(24), as: UTF8.self) + (w.count > 24 ? "…" : "")
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
        guard let v = Int(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)), v != 0 else {
            return nil
        }
        return v
    }
}
