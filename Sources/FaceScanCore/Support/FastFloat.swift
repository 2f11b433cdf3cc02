import CSIMD

/// Decimal → binary floating-point conversion straight from bytes, correctly rounded.
///
/// The common case (≤ 19 significant digits, small exponent) takes Clinger's fast path: the
/// decimal mantissa and the power of ten are both exact in binary, so one IEEE multiplication or
/// division rounds correctly. `Float` results computed through `Double` fall back to the exact
/// library conversion when the double lands on a float rounding midpoint (the only case where
/// rounding twice could differ). Everything else uses the standard library's correctly rounded,
/// locale-independent parser.
///
/// Reference: W. D. Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990.
package enum FastFloat {
    /// JSON's whitespace (space, line feed, carriage return, tab): what may stand before a number.
    @inline(__always)
    static func isJSONSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    struct Decimal {
        var mantissa: UInt64 = 0
        var exponent = 0
        var negative = false
        /// More than 19 significant digits: `mantissa` is truncated.
        var truncated = false
        var length = 0

        /// Appends the digit `c` (0…9) to the mantissa while it holds fewer than 19 significant
        /// digits (`digits` counts them, leading zeros not); else drops it, marking the mantissa
        /// truncated when it is not 0. True when it was appended.
        @inline(__always)
        mutating func append(_ c: UInt8, _ digits: inout Int) -> Bool {
            guard digits < 19 else {
                if c != 0 { truncated = true }
                return false
            }
            mantissa = mantissa &* 10 &+ UInt64(c)
            if mantissa != 0 { digits += 1 }
            return true
        }
    }

    static let pow10d: [Double] = (0...22).map { pow10Exact($0) }

    private static func pow10Exact(_ n: Int) -> Double {
        var v = 1.0
        for _ in 0..<n { v *= 10 }
        return v
    }

    /// Scans a JSON number at `p` with at most `n` bytes available. Returns nil when the bytes do not
    /// start with a valid JSON number or the number may continue past `n` bytes (when `whole` is
    /// false); `length` tells how many bytes it used.
    @inline(__always)
    static func scan(_ p: UnsafePointer<UInt8>, _ n: Int, whole: Bool) -> Decimal? {
        var d = Decimal()
        var i = 0
        if i < n && p[i] == 0x2D {
            d.negative = true
            i += 1
        }
        let intStart = i
        var digits = 0
        var dropped = 0
        // Integer part.
        if i < n && p[i] == 0x30 {
            i += 1
            if i < n && p[i] >= 0x30 && p[i] <= 0x39 { return nil }  // leading zero
        } else {
            while i < n {
                let c = p[i] &- 0x30
                if c > 9 { break }
                if !d.append(c, &digits) { dropped += 1 }
                i += 1
            }
        }
        if i == intStart { return nil }
        var exp = dropped
        if i < n && p[i] == 0x2E {
            i += 1
            let fracStart = i
            while i < n {
                let c = p[i] &- 0x30
                if c > 9 { break }
                if d.append(c, &digits) { exp -= 1 }
                i += 1
            }
            if i == fracStart { return nil }
        }
        if i < n && (p[i] | 0x20) == 0x65 {
            guard let (e, next) = exponent(p, i + 1, n) else { return nil }
            exp += e
            i = next
        }
        if !whole && i == n { return nil }  // the token may continue beyond the buffer
        if whole && i != n { return nil }
        d.exponent = exp
        d.length = i
        return d
    }

    /// The signed decimal exponent starting at `p[start]` (after the `e`), clamped to ±100 000,
    /// and the index after it; nil when no digit follows.
    @inline(__always)
    static func exponent(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int) -> (Int, Int)? {
        var i = start
        var negative = false
        if i < n && (p[i] == 0x2B || p[i] == 0x2D) {
            negative = p[i] == 0x2D
            i += 1
        }
        let digitsStart = i
        var e = 0
        while i < n {
            let c = p[i] &- 0x30
            if c > 9 { break }
            if e < 100_000 { e = e &* 10 &+ Int(c) }
            i += 1
        }
        return i == digitsStart ? nil : (negative ? -e : e, i)
    }

    @inline(__always)
    static func toDouble(_ d: Decimal, _ p: UnsafePointer<UInt8>) -> Double? {
        if !d.truncated && d.mantissa <= 1 << 53 && d.exponent >= -22 && d.exponent <= 22 {
            var v = Double(d.mantissa)
            if d.exponent >= 0 { v *= pow10d[d.exponent] } else { v /= pow10d[-d.exponent] }
            return d.negative ? -v : v
        }
        if d.mantissa == 0 && !d.truncated { return d.negative ? -0.0 : 0.0 }
        return Double(String(decoding: UnsafeBufferPointer(start: p, count: d.length), as: UTF8.self))
    }

    @inline(__always)
    static func toFloat(_ d: Decimal, _ p: UnsafePointer<UInt8>) -> Float? {
        if !d.truncated {
            if d.mantissa == 0 { return d.negative ? -0.0 : 0.0 }
            if d.mantissa <= 1 << 24 && d.exponent >= -10 && d.exponent <= 10 {
                var v = Float(d.mantissa)
                if d.exponent >= 0 { v *= pow10f(d.exponent) } else { v /= pow10f(-d.exponent) }
                return d.negative ? -v : v
            }
            if let f = roundedThroughDouble(d) { return d.negative ? -f : f }
        }
        return Float(String(decoding: UnsafeBufferPointer(start: p, count: d.length), as: UTF8.self))
    }

    /// The magnitude of `d` (not truncated) as `Float` through one exact `Double` operation, when
    /// that rounds correctly: the mantissa and the power of ten exact in `Double`, the result in
    /// the normal float range and not on a float midpoint (where rounding twice could differ).
    @inline(__always)
    static func roundedThroughDouble(_ d: Decimal) -> Float? {
        guard d.mantissa <= 1 << 53 && d.exponent >= -22 && d.exponent <= 22 else { return nil }
        var v = Double(d.mantissa)
        if d.exponent >= 0 { v *= pow10d[d.exponent] } else { v /= pow10d[-d.exponent] }
        guard v >= 1.2e-38 && v <= 3.4e38 else { return nil }
        let f = Float(v)
        let fd = Double(f)
        if fd == v { return f }
        let g = fd < v ? f.nextUp : f.nextDown
        return fd + Double(g) != 2 * v ? f : nil
    }

    /// Parses exactly the `n` bytes at `p` as a JSON number; nil if malformed.
    package static func parseDouble(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        guard let d = scan(p, n, whole: true) else { return nil }
        return toDouble(d, p)
    }

    /// Parses exactly the `n` bytes at `p` as a JSON number rounded to `Float`; nil if malformed.
    package static func parseFloat(_ p: UnsafePointer<UInt8>, _ n: Int) -> Float? {
        guard let d = scan(p, n, whole: true) else { return nil }
        return toFloat(d, p)
    }

    /// Parses the number at the start of `p` (at most `avail` bytes, the token must end before
    /// them); returns the value and the token length, or nil to let the caller take the slow path
    /// (which also reports malformed numbers).
    ///
    /// The hot path of ingest: one pass over the digits with no per-digit bookkeeping; numbers
    /// with more than 19 digits or outside the exact ranges go to ``scan`` / ``toFloat``.
    @inline(__always)
    package static func parseFloatToken(_ p: UnsafePointer<UInt8>, _ avail: Int) -> (Float, Int)? {
        var i = 0
        let negative = p[0] == 0x2D
        if negative { i = 1 }
        let intStart = i
        var m: UInt64 = 0
        i = digitRun(p, i, avail, &m)
        let intDigits = i - intStart
        if intDigits == 0 || (intDigits > 1 && p[intStart] == 0x30) { return nil }
        var digits = intDigits
        var exp = 0
        if i < avail && p[i] == 0x2E {
            i += 1
            let fracStart = i
            i = digitRun(p, i, avail, &m)
            let fracDigits = i - fracStart
            if fracDigits == 0 { return nil }
            digits += fracDigits
            exp = -fracDigits
        }
        if i < avail && (p[i] | 0x20) == 0x65 {
            guard let (e, next) = exponent(p, i + 1, avail) else { return nil }
            exp += e
            i = next
        }
        if i >= avail || digits > 19 { return nil }
        if m <= 1 << 24 && exp >= -10 && exp <= 10 {
            if m == 0 { return (negative ? -0.0 : 0.0, i) }
            var v = Float(m)
            if exp >= 0 { v *= pow10f(exp) } else { v /= pow10f(-exp) }
            return (negative ? -v : v, i)
        }
        var d = Decimal()
        d.mantissa = m
        d.exponent = exp
        d.negative = negative
        d.length = i
        guard let f = toFloat(d, p) else { return nil }
        return (f, i)
    }

    /// Parses the numbers of a JSON number array from `p` — `number , number … ]`, each number
    /// with its separator — into `out`, at most `room` of them, while more than 64 bytes remain
    /// before `end` at the start of a number. Stops, without consuming it, at a number or
    /// separator it does not take (more than 7 integer or 16 fraction digits, an exponent of more
    /// than 3 digits, a value outside Clinger's exact ranges, anything malformed): the caller reads
    /// that one with `parseFloatToken(_:_:)`, which also reports errors, and calls again.
    /// Returns the bytes consumed, the numbers written and whether the closing `]` was consumed.
    ///
    /// The hot loop of ingest, after fast_float (Lemire, "Number Parsing at a Gigabyte per Second",
    /// 2021): a digit run's length from one 8-byte load (a byte's high bit set where it is not a
    /// digit), its digits converted with three multiplications (SWAR), and one multiply-add per run;
    /// no branch per digit. Bit-identical to `parseFloatToken(_:_:)` (and `Float(String)`).
    package static func parseFloats(
        _ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<Float>, _ room: Int
    ) -> (consumed: Int, count: Int, closed: Bool) {
        var q = p
        var count = 0
        while count < room && end - q > 64 {
            var r = q
            if r[0] <= 0x20 {  // whitespace before the number (pretty-printed arrays)
                while r < end && isJSONSpace(r[0]) { r += 1 }
                if end - r <= 64 { break }
            }
            let negative = r[0] == 0x2D
            r += negative ? 1 : 0
            // Integer part: 1–7 digits, no leading zero; `0.` (coordinates in metres) directly.
            var m: UInt64 = 0
            var digits = 1
            if r[0] == 0x30 && r[1] == 0x2E {
                r += 1
            } else {
                let x = load8(r)
                let k1 = digitCount(x)
                if k1 == 0 || k1 == 8 || (k1 > 1 && r[0] == 0x30) { break }
                m = eightDigits(x &<< UInt64(8 * (8 - k1)))
                r += k1
                digits = k1
            }
            var exp = 0
            if r[0] == 0x2E {
                r += 1
                guard fractionDigits(&r, &m, &exp, &digits) else { break }
            }
            if (r[0] | 0x20) == 0x65 {
                r += 1
                guard exponentDigits(&r, &exp) else { break }
            }
            if digits > 19 { break }
            var v: Float
            if m <= 1 << 24 && exp >= -10 && exp <= 10 {
                v = exactFloat(m)
                if exp >= 0 { v *= pow10f(exp) } else { v /= pow10f(-exp) }
            } else {
                var d = Decimal()
                d.mantissa = m
                d.exponent = exp
                guard let f = roundedThroughDouble(d) else { break }
                v = f
            }
            var separator = r[0]
            if separator != 0x2C && separator != 0x5D {
                while r < end && isJSONSpace(r[0]) { r += 1 }
                if r == end { break }
                separator = r[0]
                if separator != 0x2C && separator != 0x5D { break }
            }
            out[count] = Float(bitPattern: v.bitPattern | (negative ? 0x8000_0000 : 0))
            count += 1
            q = r + 1
            if separator == 0x5D { return (p.distance(to: q), count, true) }
        }
        return (p.distance(to: q), count, false)
    }

    /// The fraction digits of ``parseFloats(_:_:_:_:)`` at `r` (after the point): up to 16
    /// digits, in one or two runs (a branch on the second run measured faster than computing it
    /// always and selecting), appended to `m`, with `exp` and `digits` following. False (stop) for
    /// no digit or more than 16.
    @inline(__always)
    static func fractionDigits(
        _ r: inout UnsafePointer<UInt8>, _ m: inout UInt64, _ exp: inout Int, _ digits: inout Int
    ) -> Bool {
        let lo = load8(r)
        let k2 = digitCount(lo)
        if k2 == 0 { return false }
        m = m &* pow10u(k2) &+ eightDigits(lo &<< UInt64(8 * (8 - k2)))
        r += k2
        exp = -k2
        digits += k2
        if k2 == 8 {
            let hi = load8(r)
            let k3 = digitCount(hi)
            if k3 == 8 { return false }
            if k3 > 0 {
                m = m &* pow10u(k3) &+ eightDigits(hi &<< UInt64(8 * (8 - k3)))
                r += k3
                exp -= k3
                digits += k3
            }
        }
        return true
    }

    /// The exponent of ``parseFloats(_:_:_:_:)`` at `r` (after the `e`): an optional sign and 1–3
    /// digits, added to `exp`. False (stop) otherwise.
    @inline(__always)
    static func exponentDigits(_ r: inout UnsafePointer<UInt8>, _ exp: inout Int) -> Bool {
        let sign = r[0]
        let minus = sign == 0x2D
        r += (minus || sign == 0x2B) ? 1 : 0
        let x = load8(r)
        let ke = digitCount(x)
        if ke == 0 || ke > 3 { return false }
        let e = Int(eightDigits(x &<< UInt64(8 * (8 - ke))))
        r += ke
        exp += minus ? -e : e
        return true
    }

    /// `m` (at most 2²⁴) as `Float`, exactly, through its bit pattern: `Float(m)` compiles to a
    /// conversion that also depends on its destination register's previous value, which in the
    /// number loop is the previous number's division, chaining every number to the one before.
    @inline(__always)
    static func exactFloat(_ m: UInt64) -> Float {
        // Floats in [2²³, 2²⁴] step by 1: their bit patterns are 0x4B00_0000 + (m − 2²³); below
        // 2²³, 2²³ + m is exact and 2²³ is subtracted.
        let big = m >= 1 << 23
        let bits = UInt32(truncatingIfNeeded: m &- (big ? 1 << 23 : 0)) &+ 0x4B00_0000
        return Float(bitPattern: bits) - (big ? 0 : 8_388_608)
    }

    @inline(__always)
    static func load8(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) ^ 0x3030_3030_3030_3030
    }

    /// How many of the eight bytes of `x` (digits as 0…9 after `load8(_:)`, first byte lowest)
    /// are digits before the first that is not.
    @inline(__always)
    static func digitCount(_ x: UInt64) -> Int {
        // High bit of a byte set when it is not a digit; carries only move toward later bytes,
        // so the first flagged byte is exact.
        let flags = ((x &+ 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080
        return flags == 0 ? 8 : flags.trailingZeroBitCount >> 3
    }

    /// Eight digit values (first byte most significant; bytes shifted in as zeros are leading
    /// zeros) → their integer, with three multiplications.
    @inline(__always)
    static func eightDigits(_ x: UInt64) -> UInt64 {
        let y = (x &* 10) &+ (x >> 8)
        let hi = (y & 0x0000_00FF_0000_00FF) &* (100 | (1_000_000 << 32))
        let lo = ((y >> 16) & 0x0000_00FF_0000_00FF) &* (1 | (10_000 << 32))
        return (hi &+ lo) >> 32
    }

    /// Consumes the run of decimal digits at `p[i...]` (eight at a time while at least eight bytes
    /// are available), folding them into `m` (wrapping; callers reject runs over 19 digits).
    /// Returns the index after the run.
    @inline(__always)
    static func digitRun(_ p: UnsafePointer<UInt8>, _ start: Int, _ avail: Int, _ m: inout UInt64) -> Int {
        var i = start
        while i + 8 <= avail {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            let x = w ^ 0x3030_3030_3030_3030  // digit bytes become 0…9
            // High bit of a byte set when it is not a digit; carries only move toward later bytes,
            // so the first flagged byte is exact.
            let flags = ((x &+ 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080
            let k = flags == 0 ? 8 : flags.trailingZeroBitCount >> 3
            if k == 0 { return i }
            var y = k == 8 ? x : x << UInt64(8 * (8 - k))
            // SWAR: eight digits (first byte most significant) → integer.
            let lowMask: UInt64 = 0x0000_00FF_0000_00FF
            let mulHigh: UInt64 = 100 | (1_000_000 << 32)
            let mulLow: UInt64 = 1 | (10_000 << 32)
            y = (y &* 10) &+ (y >> 8)
            let hi = (y & lowMask) &* mulHigh
            let lo = ((y >> 16) & lowMask) &* mulLow
            y = (hi &+ lo) >> 32
            m = m &* pow10u(k) &+ y
            i += k
            if k < 8 { return i }
        }
        while i < avail {
            let c = p[i] &- 0x30
            if c > 9 { break }
            m = m &* 10 &+ UInt64(c)
            i += 1
        }
        return i
    }

    /// 10ᵏ for 0 ≤ k ≤ 8 (a constant table: no branch).
    @inline(__always)
    static func pow10u(_ k: Int) -> UInt64 { facescan_pow10_u64(Int32(truncatingIfNeeded: k)) }

    /// 10ⁿ for 0 ≤ n ≤ 10, exact in `Float`.
    @inline(__always)
    static func pow10f(_ n: Int) -> Float {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        default: 1e10
        }
    }

    /// Public test hook: parses a whole string as a JSON number to `Float`.
    package static func parseFloat(_ s: String) -> Float? {
        var s = s
        return s.withUTF8 { parseFloat($0.baseAddress!, $0.count) }
    }

    package static func parseDouble(_ s: String) -> Double? {
        var s = s
        return s.withUTF8 { parseDouble($0.baseAddress!, $0.count) }
    }
}
