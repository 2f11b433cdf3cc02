import FaceScanCore

/// Standard base64 (RFC 4648, `+` `/`, `=` padding) decoding into a reusable byte buffer.
enum Base64 {
    /// 0…63 for alphabet bytes, 0xFF for anything else.
    static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Decodes `input` into `out` (replacing its contents). Returns nil naming the problem when the
    /// text is not valid base64.
    static func decode(_ input: [UInt8], into out: inout [UInt8]) -> String? {
        var n = input.count
        guard n % 4 == 0 else { return "length \(n) is not a multiple of 4" }
        var pad = 0
        if n > 0 && input[n - 1] == UInt8(ascii: "=") { pad += 1 }
        if n > 1 && input[n - 2] == UInt8(ascii: "=") { pad += 1 }
        out.removeAll(keepingCapacity: true)
        if n == 0 { return nil }
        out.reserveCapacity(n / 4 * 3 - pad)
        n -= 4  // the last quantum is decoded separately (padding)
        out.append(contentsOf: repeatElement(0, count: n / 4 * 3))
        let bad = decodeQuanta(input, count: n, into: &out)
        if let bad {
            out.removeAll(keepingCapacity: true)
            return invalid(input[bad], at: bad)
        }
        let q = Array(input[n..<(n + 4)])
        var v: UInt32 = 0
        for k in 0..<(4 - pad) {
            let x = table[Int(q[k])]
            if x == 0xFF { return invalid(q[k], at: n + k) }
            v |= UInt32(x) << (18 - 6 * UInt32(k))
        }
        for k in (4 - pad)..<4 where q[k] != UInt8(ascii: "=") { return "invalid padding at position \(n + k)" }
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        if pad < 2 { out.append(UInt8(truncatingIfNeeded: v >> 8)) }
        if pad < 1 { out.append(UInt8(truncatingIfNeeded: v)) }
        return nil
    }

    /// The whole quanta of ``decode(_:into:)``: the first `count` characters of `input` (a multiple
    /// of 4, none padded) into `out`'s first `count / 4 * 3` bytes. Returns the position of the
    /// first character outside the alphabet, or nil.
    private static func decodeQuanta(_ input: [UInt8], count n: Int, into out: inout [UInt8]) -> Int? {
        let alphabet = table
        let src = input.flat, t = alphabet.flat
        var dst = out.flatMut
        var i = 0
        var o = 0
        while i < n {
            let a = t[Int(src[i])], b = t[Int(src[i + 1])], c = t[Int(src[i + 2])], d = t[Int(src[i + 3])]
            if (a | b | c | d) & 0xC0 != 0 {
                var k = 0
                while t[Int(src[i + k])] != 0xFF { k += 1 }
                return i + k
            }
            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            dst[o] = UInt8(truncatingIfNeeded: v >> 16)
            dst[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
            dst[o + 2] = UInt8(truncatingIfNeeded: v)
            i += 4
            o += 3
        }
        return nil
    }

    private static func invalid(_ c: UInt8, at position: Int) -> String {
        c == UInt8(ascii: "=")
            ? "misplaced padding '=' at position \(position)"
            : "invalid character \(JSONReader.describe(c)) at position \(position)"
    }
}

// MARK: fast path: base64 text straight to float32 values

extension Base64 {
    /// Entry `c0 | c1 << 8` (two characters in text order, as one little-endian 16-bit load):
    /// their 12 bits, `c0`'s first; 0xF000 when either is outside the alphabet. 128 KiB, of
    /// which base64 text touches about 10.
    static let pairTable: [UInt16] = {
        var t = [UInt16](repeating: 0xF000, count: 1 << 16)
        for c0 in 0..<256 where table[c0] != 0xFF {
            for c1 in 0..<256 where table[c1] != 0xFF {
                t[c0 | c1 << 8] = UInt16(table[c0]) << 6 | UInt16(table[c1])
            }
        }
        return t
    }()

    /// Decodes standard base64 `text` (RFC 4648, `=` padding) holding little-endian float32
    /// values straight into `out`, which ends with exactly the decoded values (its storage is
    /// reused when the count is unchanged).
    ///
    /// Returns false — with `out`'s contents unspecified — when the text is not valid base64, is
    /// empty, does not decode to a whole number of float32 values, or decodes to a non-finite
    /// value: the caller then takes the checked path (``decode(_:into:)``), which names the
    /// problem. Validity is accumulated with ORs and checked once at the end.
    ///
    /// `vector`: use the AVX2/SSSE3 kernel where the CPU has one (false: the scalar loop; tests
    /// run both).
    static func decodeFloats(_ text: Span<UInt8>, into out: inout [Float], vector: Bool = true) -> Bool {
        let n = text.count
        guard n > 0, n % 4 == 0 else { return false }
        var pad = 0
        if text[n - 1] == UInt8(ascii: "=") { pad += 1 }
        if text[n - 2] == UInt8(ascii: "=") { pad += 1 }
        let byteCount = n / 4 * 3 - pad
        guard byteCount % 4 == 0 else { return false }
        let floatCount = byteCount / 4
        if out.count != floatCount { out = [Float](repeating: 0, count: floatCount) }
        // Groups of 16 characters (12 bytes, 3 floats), leaving at least the last quantum (the only
        // one that may be padded) to the tail.
        let groups = (n / 4 - 1) / 4
        var bad = false
        var nonFinite: UInt32 = 0
        var d = out.flatMut
        var g = 0
        // SSSE3 where the CPU has it (16 characters per step); else the scalar loop.
        switch vector ? VectorKernels.base64Floats(text, groups: groups, into: &d) : -1 {
        case 1: g = groups
        case 0:
            g = groups
            bad = true  // an invalid character or a non-finite value: checked path
        default: break
        }
        if g < groups && decodeGroups(text, g..<groups, into: &d, nonFinite: &nonFinite) { bad = true }
        if decodeTail(
            text.extracting(droppingFirst: 16 * groups), pad: pad, into: &d, at: 3 * groups, nonFinite: &nonFinite)
        {
            bad = true
        }
        return !bad && nonFinite >> 31 == 0
    }

    /// The scalar loop of ``decodeFloats(_:into:vector:)``: groups `range` of 16 characters of
    /// `text` (12 bytes, 3 floats each) into `d[3 g...]`, two characters per ``pairTable`` lookup.
    /// ORs each float's exponent plus one into `nonFinite` (bit 31 set for infinity or NaN);
    /// returns whether a character was outside the alphabet.
    @inline(__always)
    static func decodeGroups(
        _ text: Span<UInt8>, _ range: Range<Int>, into d: inout MutableSpan<Float>, nonFinite: inout UInt32
    ) -> Bool {
        let pairs = pairTable
        let p = pairs.flat
        var pairBad: UInt16 = 0
        for g in range {
            let u = littleEndian64(text, 16 * g), w = littleEndian64(text, 16 * g + 8)
            // Two characters per lookup: 12 bits, most significant first.
            let p0 = p[Int(truncatingIfNeeded: u & 0xFFFF)],
                p1 = p[Int(truncatingIfNeeded: (u >> 16) & 0xFFFF)]
            let p2 = p[Int(truncatingIfNeeded: (u >> 32) & 0xFFFF)],
                p3 = p[Int(truncatingIfNeeded: u >> 48)]
            let p4 = p[Int(truncatingIfNeeded: w & 0xFFFF)],
                p5 = p[Int(truncatingIfNeeded: (w >> 16) & 0xFFFF)]
            let p6 = p[Int(truncatingIfNeeded: (w >> 32) & 0xFFFF)],
                p7 = p[Int(truncatingIfNeeded: w >> 48)]
            pairBad |= p0 | p1 | p2 | p3 | p4 | p5 | p6 | p7
            // Quanta as 24-bit big-endian values; the 12 bytes as 64 + 32 bits, big-endian.
            let v0 = UInt64(p0) << 12 | UInt64(p1), v1 = UInt64(p2) << 12 | UInt64(p3)
            let v2 = UInt64(p4) << 12 | UInt64(p5), v3 = UInt64(p6) << 12 | UInt64(p7)
            let head = v0 << 40 | v1 << 16 | v2 >> 8
            let f0 = UInt32(truncatingIfNeeded: head >> 32).byteSwapped
            let f1 = UInt32(truncatingIfNeeded: head).byteSwapped
            let f2 = UInt32(truncatingIfNeeded: (v2 & 0xFF) << 24 | v3).byteSwapped
            // Exponent all ones (infinity or NaN) carries into bit 31.
            nonFinite |=
                ((f0 & 0x7F80_0000) &+ 0x0080_0000) | ((f1 & 0x7F80_0000) &+ 0x0080_0000)
                | ((f2 & 0x7F80_0000) &+ 0x0080_0000)
            d[3 * g] = Float(bitPattern: f0)
            d[3 * g + 1] = Float(bitPattern: f1)
            d[3 * g + 2] = Float(bitPattern: f2)
        }
        return pairBad & 0xF000 != 0
    }

    /// The 8 bytes of `s` from `i` as a little-endian value.
    @inline(__always)
    static func littleEndian64(_ s: Span<UInt8>, _ i: Int) -> UInt64 {
        let b = s.extracting(i..<i + 8)
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[k]) << UInt64(8 * k) }
        return v
    }

    /// The tail of ``decodeFloats(_:into:vector:)``: the characters `s` (1…4 quanta, the last
    /// with `pad` padding characters), decoded bytewise into the floats of `d` from `start`. ORs
    /// each float's exponent plus one into `nonFinite`; returns whether the text was invalid (a
    /// character outside the alphabet or misplaced padding).
    static func decodeTail(
        _ s: Span<UInt8>, pad: Int, into d: inout MutableSpan<Float>, at start: Int, nonFinite: inout UInt32
    ) -> Bool {
        let alphabet = table
        let t = alphabet.flat
        var bad = false
        var o = 0
        var f: UInt32 = 0  // the float being assembled, little-endian
        for q in stride(from: 0, to: s.count, by: 4) {
            let last = q + 4 == s.count
            let valid = last ? 4 - pad : 4
            // The quantum as a 24-bit big-endian value (padding contributes zeros).
            var v: UInt32 = 0
            var chars: UInt8 = 0
            for k in 0..<4 {
                let x = k < valid ? t[Int(s[q + k])] : 0
                chars |= x
                v = v << 6 | UInt32(x & 0x3F)
            }
            for k in valid..<4 where s[q + k] != UInt8(ascii: "=") { bad = true }
            if chars & 0xC0 != 0 { bad = true }  // a character outside the alphabet
            for k in 0..<(valid - 1) {
                f |= (v >> (16 - 8 * UInt32(k)) & 0xFF) << UInt32(8 * (o % 4))
                o += 1
                if o % 4 == 0 {
                    nonFinite |= (f & 0x7F80_0000) &+ 0x0080_0000
                    d[start + o / 4 - 1] = Float(bitPattern: f)
                    f = 0
                }
            }
        }
        return bad
    }
}
