import CSIMD
import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pull tokenizer over a ``ByteSource`` (a file, a pipe or bytes in memory): JSON is read in
/// fixed-size chunks and consumed token by token, so a capture of any length is parsed in O(chunk)
/// memory. Numbers go straight from the
/// byte buffer to `Float`/`Double` (``FastFloat``) without building strings.
///
/// Errors are ``InputError``s naming the file and the byte offset; callers add the frame and field.
/// Not `Sendable`: a reader belongs to the one task that parses.
package final class JSONReader {
    let name: String
    private let source: ByteSource
    /// True when ``seek(to:)`` works (a regular file or memory; a pipe after spooling).
    var seekable: Bool { source.seekable }
    private var buf: UnsafeMutablePointer<UInt8>
    /// The buffer the reader allocated (`buf` points into the caller's bytes after `reset(to:baseOffset:)`).
    private let ownBuf: UnsafeMutablePointer<UInt8>
    /// Growable scratch for number arrays, copied out once per array.
    private var floats: UnsafeMutablePointer<Float> = .allocate(capacity: 1 << 16)
    private var floatCapacity = 1 << 16
    private var capacity: Int
    private var pos = 0
    private var end = 0
    private var eof = false
    /// Offset in the source of `buf[0]`.
    private var base: Int64 = 0
    /// The most bytes read from the source, and the message past them (a capture's size limit).
    var byteLimit: (bytes: Int64, message: String)? = nil

    /// Longest number token accepted (digits beyond 19 significant ones are handled, but a token
    /// this long is rejected as malformed).
    static let maxNumberLength = 1024

    init(source: ByteSource, name: String, chunkSize: Int = 1 << 20) {
        // A whole number token (plus look-ahead) must fit in the buffer.
        precondition(chunkSize > Self.maxNumberLength + 64, "chunk too small")
        self.source = source
        self.name = name
        self.capacity = chunkSize
        ownBuf = .allocate(capacity: chunkSize + 1)
        buf = ownBuf
    }

    /// A reader of bytes the caller holds (see `reset(to:baseOffset:)`), e.g. one frame's text.
    convenience init(name: String) {
        self.init(source: ByteSource(bytes: []), name: name, chunkSize: Self.maxNumberLength + 65)
    }

    /// Reads `bytes` from now on, in place (no copy: they must stay put until the next reset),
    /// as the bytes at `baseOffset` of the input, so that messages give the input's offsets.
    /// For a reader made with `init(name:)`.
    func reset(to bytes: UnsafeBufferPointer<UInt8>, baseOffset: Int64) {
        buf = UnsafeMutablePointer(mutating: bytes.baseAddress ?? UnsafePointer(ownBuf))
        capacity = bytes.count
        base = baseOffset
        pos = 0
        end = bytes.count
        eof = true
    }

    /// Runs `body` reading `bytes` (in place, no copy), as the bytes at `baseOffset` of the
    /// input, so that messages give the input's offsets. For a reader made with `init(name:)`.
    func reading<R, E: Error>(_ bytes: [UInt8], baseOffset: Int64, _ body: () throws(E) -> R) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { (b) throws(E) -> R in
            reset(to: b, baseOffset: baseOffset)
            defer { reset(to: UnsafeBufferPointer(start: nil, count: 0), baseOffset: baseOffset) }
            return try body()
        }
    }

    /// Reads `fd`, closing it when done if `ownsFD`.
    convenience init(fd: Int32, name: String, ownsFD: Bool, chunkSize: Int = 1 << 20) {
        self.init(source: ByteSource(fd: fd, ownsFD: ownsFD), name: name, chunkSize: chunkSize)
    }

    deinit {
        ownBuf.deallocate()
        floats.deallocate()
    }

    /// Byte offset of the next unread byte.
    var offset: Int64 { base + Int64(pos) }

    package func error(_ message: String) -> InputError {
        InputError(file: name, "at byte \(offset): \(message)")
    }

    // MARK: buffer management

    /// Makes at least `n` bytes available from `pos` unless the source ends first. Returns the
    /// number of available bytes.
    @discardableResult
    func ensure(_ n: Int) throws(InputError) -> Int {
        if end - pos >= n || eof { return end - pos }
        if pos > 0 {
            let keep = end - pos
            if keep > 0 { memmove(buf, buf + pos, keep) }
            base += Int64(pos)
            pos = 0
            end = keep
        }
        while end < n && end < capacity && !eof {
            let r: Int
            do {
                r = try source.read(into: buf + end, count: capacity - end)
            } catch {
                throw InputError(file: name, "read failed at byte \(offset): \(error.message)")
            }
            if r == 0 { eof = true } else { end += r }
            if let byteLimit, base + Int64(end) > byteLimit.bytes {
                throw InputError(file: name, byteLimit.message)
            }
        }
        return end - pos
    }

    /// True when only whitespace remains.
    func atEnd() throws(InputError) -> Bool {
        try skipWhitespace()
        return try ensure(1) == 0
    }

    /// Moves the read position to `offset` (seekable sources only).
    func seek(to target: Int64) throws(InputError) {
        precondition(seekable)
        if target >= base && target <= base + Int64(end) {
            pos = Int(target - base)
            return
        }
        guard source.seek(to: target) else {
            throw InputError(file: name, "cannot seek to byte \(target)")
        }
        base = target
        pos = 0
        end = 0
        eof = false
    }

    /// Copies everything not yet consumed (buffer and the rest of the source) into an unlinked
    /// temporary file and continues reading from it; afterwards the reader is seekable and the
    /// current position is offset 0. Used when a piped JSON document puts `frames` before the
    /// settings that judge them.
    func spoolToTemporaryFile() throws(InputError) {
        do {
            try source.spoolToTemporaryFile(
                pending: UnsafeBufferPointer(start: buf + pos, count: end - pos),
                scratch: UnsafeMutableBufferPointer(start: buf, count: capacity), sourceEnded: eof)
        } catch {
            throw InputError(file: name, error.message)
        }
        base = 0
        pos = 0
        end = 0
        eof = false
    }

    /// The text of the object that starts at the next non-whitespace byte, found by a structural
    /// scan (`facescan_object_end`: braces and strings only; a parser of these bytes checks the
    /// rest), and its offset; valid until the next call on this reader, which has not moved past
    /// it (`skip(_:)` does). Nil when the next value is not an object, or its end is not within
    /// one buffer of input: the caller then parses it here.
    func objectText() throws(InputError) -> (text: UnsafeBufferPointer<UInt8>, offset: Int64)? {
        guard try peek() == UInt8(ascii: "{") else { return nil }
        var state = facescan_scan_state()
        var scanned = 0
        while true {
            let r = facescan_object_end(buf + pos + scanned, end - pos - scanned, &state)
            if r >= 0 { return (UnsafeBufferPointer(start: buf + pos, count: scanned + r), offset) }
            scanned = end - pos
            if eof || (pos == 0 && end == capacity) { return nil }
            try ensure(capacity)
        }
    }

    /// Moves past `n` bytes that are in the buffer (after `objectText()`).
    func skip(_ n: Int) {
        precondition(n <= end - pos)
        pos += n
    }

    // MARK: tokens

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    func skipWhitespace() throws(InputError) {
        while true {
            while pos < end && Self.isSpace(buf[pos]) { pos += 1 }
            if pos < end { return }
            if try ensure(1) == 0 { return }
        }
    }

    /// The next non-whitespace byte without consuming it, or nil at the end of the input.
    func peek() throws(InputError) -> UInt8? {
        try skipWhitespace()
        return pos < end ? buf[pos] : nil
    }

    /// Consumes `c` (after whitespace) or throws naming what was expected.
    func expect(_ c: UInt8, _ what: String) throws(InputError) {
        guard let p = try peek() else { throw error("unexpected end of input, expected \(what)") }
        guard p == c else { throw error("expected \(what), found \(Self.describe(p))") }
        pos += 1
    }

    /// Consumes `c` if it is next.
    func consume(_ c: UInt8) throws(InputError) -> Bool {
        if try peek() == c {
            pos += 1
            return true
        }
        return false
    }

    package static func describe(_ c: UInt8) -> String {
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x\(String(c, radix: 16))"
    }

    /// Reads `,` or the closing byte of a container. Returns true when the container closed.
    func nextOrClose(_ close: UInt8) throws(InputError) -> Bool {
        guard let p = try peek() else { throw error("unexpected end of input (truncated?)") }
        pos += 1
        if p == close { return true }
        if p == UInt8(ascii: ",") { return false }
        pos -= 1
        throw error("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(Self.describe(p))")
    }

    /// Reads a JSON string (escapes decoded) of at most `limit` UTF-8 bytes.
    func readString(limit: Int = 1 << 16) throws(InputError) -> String {
        var bytes: [UInt8] = []
        try readStringBytes(into: &bytes, limit: limit)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a JSON string's bytes (escapes decoded) into `out` (cleared first).
    func readStringBytes(into out: inout [UInt8], limit: Int) throws(InputError) {
        try expect(UInt8(ascii: "\""), "a string")
        try readStringBody(into: &out, limit: limit)
    }

    /// Reads the rest of a JSON string after its opening quote (escapes decoded) into `out`
    /// (cleared first).
    func readStringBody(into out: inout [UInt8], limit: Int) throws(InputError) {
        out.removeAll(keepingCapacity: true)
        while true {
            // Fast scan to the next quote or backslash within the buffer.
            var i = pos
            while i < end {
                let c = buf[i]
                if c == 0x22 || c == 0x5C || c < 0x20 { break }
                i += 1
            }
            if i > pos {
                out.append(contentsOf: UnsafeBufferPointer(start: buf + pos, count: i - pos))
                pos = i
                if out.count > limit { throw error("string longer than \(limit) bytes") }
            }
            if pos == end {
                if try ensure(1) == 0 { throw error("unexpected end of input inside a string (truncated?)") }
                continue
            }
            let c = buf[pos]
            if c == 0x22 {
                pos += 1
                return
            }
            if c < 0x20 { throw error("control character inside a string") }
            // Escape.
            if try ensure(2) < 2 { throw error("unexpected end of input inside a string (truncated?)") }
            let e = buf[pos + 1]
            pos += 2
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // Surrogate pair.
                    if try ensure(2) >= 2, buf[pos] == 0x5C, buf[pos + 1] == UInt8(ascii: "u") {
                        pos += 2
                        let low = try readHex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw error("invalid surrogate pair in string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        throw error("unpaired surrogate in string")
                    }
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape in string") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape in string: backslash followed by \(Self.describe(e))")
            }
        }
    }

    /// After a string's opening quote: when the text up to the next quote fits in the buffer
    /// (refilling it once if needed), returns that text in place — valid until the next call on
    /// this reader — and moves past the closing quote. Otherwise returns nil with the position
    /// unchanged, for ``readStringBody(into:limit:)``. No copy, no escape handling: for base64,
    /// whose decoder rejects any byte outside its alphabet (quotes, backslashes, controls).
    ///
    /// `expectedCount`: the length the caller expects (or -1). When the byte that many bytes on is
    /// a quote, that range is returned without scanning for the quote; it may then contain an
    /// earlier quote, so the caller must check every byte and, when it refuses the text, call
    /// ``unreadRawString(_:)`` and ask again with -1.
    func rawStringBodyInBuffer(expectedCount: Int) throws(InputError) -> UnsafeBufferPointer<UInt8>? {
        if expectedCount >= 0 && expectedCount < capacity {
            if try ensure(expectedCount + 1) > expectedCount && buf[pos + expectedCount] == UInt8(ascii: "\"") {
                let start = buf + pos
                pos += expectedCount + 1
                return UnsafeBufferPointer(start: start, count: expectedCount)
            }
        }
        var scanned = 0
        while true {
            let start = buf + pos
            if let q = memchr(start + scanned, 0x22, end - pos - scanned) {
                let n = q.assumingMemoryBound(to: UInt8.self) - start
                pos += n + 1
                return UnsafeBufferPointer(start: start, count: n)
            }
            // Not in the buffer: move it to the front and fill the rest, once.
            if eof || (pos == 0 && end == capacity) || scanned > 0 { return nil }
            scanned = end - pos
            try ensure(capacity)
        }
    }

    /// Decodes `text`, returned by the last ``rawStringBodyInBuffer(expectedCount:)``, as base64
    /// float32 values into `out` (``Base64/decodeFloats(_:into:vector:)``: false when it declines).
    func decodeBase64Floats(_ text: UnsafeBufferPointer<UInt8>, into out: inout [Float]) -> Bool {
        Base64.decodeFloats(text.span, into: &out)
    }

    /// Moves back to the first byte of `text`, returned by the last
    /// ``rawStringBodyInBuffer(expectedCount:)`` (the buffer has not moved since).
    func unreadRawString(_ text: UnsafeBufferPointer<UInt8>) {
        pos = UnsafePointer(buf).distance(to: text.baseAddress!)
    }

    private func readHex4() throws(InputError) -> UInt32 {
        guard try ensure(4) >= 4 else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = buf[pos + k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
        }
        pos += 4
        return v
    }

    /// Reads a literal `true`, `false` or `null`.
    func readLiteral() throws(InputError) -> Bool? {
        guard let p = try peek() else { throw error("unexpected end of input") }
        let word: String
        switch p {
        case UInt8(ascii: "t"): word = "true"
        case UInt8(ascii: "f"): word = "false"
        case UInt8(ascii: "n"): word = "null"
        default: throw error("expected a value, found \(Self.describe(p))")
        }
        let n = word.utf8.count
        guard try ensure(n) >= n, word.utf8.elementsEqual(UnsafeBufferPointer(start: buf + pos, count: n)) else {
            throw error("expected a value, found \(Self.describe(p))")
        }
        pos += n
        return word == "null" ? nil : word == "true"
    }

    // MARK: numbers

    /// Bounds of the number token at `pos` after making sure it is wholly in the buffer.
    @inline(__always)
    private func numberSpan() throws(InputError) -> Int {
        // A number ends at the first byte that cannot belong to it.
        while true {
            var i = pos
            while i < end {
                let c = buf[i]
                if !((c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2D || c == 0x2B || c == 0x65 || c == 0x45) {
                    break
                }
                i += 1
            }
            if i < end || eof { return i - pos }
            if i - pos > Self.maxNumberLength { throw error("number token too long") }
            try ensure(i - pos + 64)
            if eof && end - pos == i - pos { return i - pos }
        }
    }

    /// Reads the next token when it is a plain integer of 1–9 digits (no sign, fraction, exponent
    /// or leading zero) ending within the buffer; else consumes nothing and returns nil, for the
    /// general path (`readDouble()`, which reads such a token to the same value and reports
    /// malformed ones). The hot path of topology indices.
    func readSmallInteger() throws(InputError) -> Int? {
        try skipWhitespace()
        var i = pos, v = 0
        while i < end && i - pos < 10 {
            let c = buf[i] &- 0x30
            if c > 9 { break }
            v = v &* 10 &+ Int(c)
            i += 1
        }
        let n = i - pos
        guard n > 0 && n <= 9 && i < end && (n == 1 || buf[pos] != 0x30) else { return nil }
        let next = buf[i]
        // A byte that would continue a number (`.`, `e`, `E`, `-`, `+`): the general path.
        if next == 0x2E || next | 0x20 == 0x65 || next == 0x2D || next == 0x2B { return nil }
        pos = i
        return v
    }

    /// Reads a JSON number as the nearest `Double`. Non-finite results (e.g. `1e999`) are errors.
    func readDouble() throws(InputError) -> Double {
        try readNumber(FastFloat.parseDouble, range: "")
    }

    /// Reads a JSON number as the nearest `Float` (correctly rounded). Non-finite results are errors.
    func readFloat() throws(InputError) -> Float {
        try readNumber(FastFloat.parseFloat, range: " for float32")
    }

    /// Reads a JSON number with `parse`; `range` names the type in the out-of-range message.
    @inline(__always)
    private func readNumber<T: BinaryFloatingPoint>(
        _ parse: (UnsafePointer<UInt8>, Int) -> T?, range: String
    ) throws(InputError) -> T {
        try skipWhitespace()
        let n = try numberSpan()
        guard n > 0 else { throw badValue("a number") }
        guard let v = parse(buf + pos, n) else { throw error("malformed number '\(token(n))'") }
        guard v.isFinite else { throw error("number '\(token(n))' is out of range\(range)") }
        pos += n
        return v
    }

    private func token(_ n: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: buf + pos, count: min(n, 40)), as: UTF8.self)
    }

    /// An error for a value of the wrong kind at the current position.
    package func badValue(_ expected: String) -> InputError {
        // The whole literal in the buffer, so that the message does not depend on where a chunk ends.
        _ = try? ensure(5)
        if pos < end {
            let c = buf[pos]
            let kind: String
            switch c {
            case 0x22: kind = "a string"
            case 0x7B: kind = "an object"
            case 0x5B: kind = "an array"
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                // Name the literal only when it is one (a bare word like `this` is not a boolean).
                let word = c == UInt8(ascii: "t") ? "true" : c == UInt8(ascii: "f") ? "false" : "null"
                let n = word.utf8.count
                if end - pos >= n, word.utf8.elementsEqual(UnsafeBufferPointer(start: buf + pos, count: n)) {
                    kind = c == UInt8(ascii: "n") ? "null" : "a boolean"
                } else {
                    kind = Self.describe(c)
                }
            default: kind = Self.describe(c)
            }
            return error("expected \(expected), found \(kind)")
        }
        return error("unexpected end of input, expected \(expected)")
    }

    /// Reads an array of numbers as `Float`s into `out` (replacing its contents), at most `limit`
    /// values. The hot path of capture ingest.
    /// `tooMany` is the message past the limit (default: the count of values).
    func readFloatArray(into out: inout [Float], limit: Int, tooMany: String? = nil) throws(InputError) {
        try expect(UInt8(ascii: "["), "an array of numbers")
        out.removeAll(keepingCapacity: true)
        if try consume(UInt8(ascii: "]")) { return }
        var count = 0
        defer { out.append(contentsOf: UnsafeBufferPointer(start: floats, count: count)) }
        while true {
            if count == floatCapacity { growFloats() }
            if count > limit { throw error(tooMany ?? "array has more than \(limit) values") }
            // Fast path: parse as many numbers as fit in the buffer without refilling.
            while end - pos > 64 && count < floatCapacity {
                let run = FastFloat.parseFloats(buf + pos, buf + end, floats + count, floatCapacity - count)
                pos += run.consumed
                count += run.count
                if run.closed {
                    if count > limit { throw error(tooMany ?? "array has more than \(limit) values") }
                    return
                }
                if end - pos <= 64 || count == floatCapacity { break }
                // The number the run stopped at, read (or refused) by the general path.
                var c = buf[pos]
                while Self.isSpace(c) && pos < end - 1 {
                    pos += 1
                    c = buf[pos]
                }
                guard let (v, n) = FastFloat.parseFloatToken(buf + pos, end - pos) else { break }
                guard v.isFinite else { throw error("number '\(token(n))' is out of range for float32") }
                var q = pos + n
                while q < end && Self.isSpace(buf[q]) { q += 1 }
                if q == end { break }  // separator not in the buffer yet: take the slow path
                pos = q + 1
                floats[count] = v
                count += 1
                let d = buf[q]
                if d == 0x5D {
                    if count > limit { throw error(tooMany ?? "array has more than \(limit) values") }
                    return
                }
                if d != 0x2C {
                    pos = q
                    throw error("expected ',' or ']' in the number array, found \(Self.describe(d))")
                }
            }
            if count == floatCapacity { continue }
            // Slow path near the end of the buffer.
            floats[count] = try readFloat()
            count += 1
            if try nextOrClose(UInt8(ascii: "]")) {
                if count > limit { throw error(tooMany ?? "array has more than \(limit) values") }
                return
            }
        }
    }

    private func growFloats() {
        let bigger = UnsafeMutablePointer<Float>.allocate(capacity: 2 * floatCapacity)
        bigger.initialize(from: floats, count: floatCapacity)
        floats.deallocate()
        floats = bigger
        floatCapacity *= 2
    }

    /// Reads an array of numbers as `Double`s.
    func readDoubleArray(limit: Int) throws(InputError) -> [Double] {
        try expect(UInt8(ascii: "["), "an array of numbers")
        var out: [Double] = []
        if try consume(UInt8(ascii: "]")) { return out }
        repeat {
            out.append(try readDouble())
            if out.count > limit { throw error("array has more than \(limit) values") }
        } while !(try nextOrClose(UInt8(ascii: "]")))
        return out
    }

    // MARK: skipping

    /// Skips one JSON value of any kind, checking its structure (matching brackets, object members
    /// as `"key": value`, strings and their escapes, literals, number characters) without building
    /// it. Iterative: nesting depth costs one byte of heap per level, never stack.
    func skipValue() throws(InputError) {
        /// The closing byte of every open container, innermost last.
        var open: [UInt8] = []
        while true {
            // At the start of a value.
            guard let p = try peek() else { throw error("unexpected end of input (truncated?)") }
            switch p {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                pos += 1
                let close: UInt8 = p == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if try consume(close) { break }  // empty container: a complete value
                open.append(close)
                if close == UInt8(ascii: "}") { try skipMemberKey() }
                continue
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                _ = try readLiteral()
            default:
                // Skipped numbers are checked for their character set only (speed: frames after
                // maxFrames are skipped this way).
                let n = try numberSpan()
                guard n > 0 else { throw badValue("a value") }
                pos += n
            }
            // After a complete value: `,` (then the next member or element) or closing brackets.
            while let close = open.last {
                guard let q = try peek() else { throw error("unexpected end of input (truncated?)") }
                pos += 1
                if q == close {
                    open.removeLast()
                    continue
                }
                if q == UInt8(ascii: ",") {
                    if close == UInt8(ascii: "}") { try skipMemberKey() }
                    break
                }
                pos -= 1
                throw error("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(Self.describe(q))")
            }
            if open.isEmpty { return }
        }
    }

    /// Skips `"key":` inside an object being skipped.
    private func skipMemberKey() throws(InputError) {
        guard try peek() == UInt8(ascii: "\"") else { throw badValue("an object key (string)") }
        try skipString()
        try expect(UInt8(ascii: ":"), "':' after an object key")
    }

    @inline(__always)
    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// Skips a string, checking for control characters and invalid escapes (as ``readStringBytes``
    /// does, except that surrogate pairing is not checked).
    private func skipString() throws(InputError) {
        try expect(UInt8(ascii: "\""), "a string")
        while true {
            while pos < end {
                let c = buf[pos]
                if c == 0x22 {
                    pos += 1
                    return
                }
                if c == 0x5C {
                    let avail = end - pos
                    if avail < 6 && !eof { break }  // refill so that a whole escape is in the buffer
                    guard avail >= 2 else { throw error("unexpected end of input inside a string (truncated?)") }
                    let e = buf[pos + 1]
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        pos += 2
                    case UInt8(ascii: "u"):
                        guard avail >= 6 else { throw error("truncated \\u escape") }
                        for k in 2..<6 where !Self.isHexDigit(buf[pos + k]) { throw error("invalid \\u escape") }
                        pos += 6
                    default:
                        throw error("invalid escape in string: backslash followed by \(Self.describe(e))")
                    }
                    continue
                }
                if c < 0x20 { throw error("control character inside a string") }
                pos += 1
            }
            if try ensure(6) == 0 { throw error("unexpected end of input inside a string (truncated?)") }
        }
    }
}
