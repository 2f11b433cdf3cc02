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
        let outCount = n / 4 * 3 - pad
        out.removeAll(keepingCapacity: true)
        if n == 0 { return nil }
        n -= 4  // the last quantum is decoded separately (padding)
        var bad: Int?
        out = [UInt8](unsafeUninitializedCapacity: outCount) { dst, initialized in
            input.withUnsafeBufferPointer { src in
                table.withUnsafeBufferPointer { t in
                    var i = 0
                    var o = 0
                    while i < n {
                        let a = t[Int(src[i])], b = t[Int(src[i + 1])], c = t[Int(src[i + 2])], d = t[Int(src[i + 3])]
                        if (a | b | c | d) & 0xC0 != 0 {
                            bad = i + (0..<4).first { t[Int(src[i + $0])] == 0xFF }!
                            break
                        }
                        let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        dst[o] = UInt8(truncatingIfNeeded: v >> 16)
                        dst[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                        dst[o + 2] = UInt8(truncatingIfNeeded: v)
                        i += 4
                        o += 3
                    }
                    initialized = bad == nil ? o : 0
                }
            }
        }
        if let bad { return invalid(input[bad], at: bad) }
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

    private static func invalid(_ c: UInt8, at position: Int) -> String {
        c == UInt8(ascii: "=") ? "misplaced padding '=' at position \(position)"
            : "invalid character \(JSONReader.describe(c)) at position \(position)"
    }
}
