import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanKit

@Suite struct FastFloatTests {
    @Test func simpleValues() {
        #expect(FastFloat.parseFloat("0") == 0)
        #expect(FastFloat.parseFloat("-0")?.sign == .minus)
        #expect(FastFloat.parseFloat("0.0774963") == Float("0.0774963"))
        #expect(FastFloat.parseFloat("-1.5e-3") == Float("-1.5e-3"))
        #expect(FastFloat.parseFloat("1E2") == 100)
        #expect(FastFloat.parseDouble("0.1") == 0.1)
        #expect(FastFloat.parseDouble("123456789012345678901234567890") == 123456789012345678901234567890.0)
    }

    /// Number arrays as ingest reads them (``FastFloat/parseFloats(_:_:_:_:)``, falling back to the
    /// token parser): every element bit-identical to `Float(String)`, for random values of every
    /// shape (%.6g, shortest float text, 9–20 digits, exponents, subnormals, ±0, the float range's
    /// ends), separators with and without whitespace, read whole and in small chunks.
    @Test func numberArraysAgreeWithStandardLibrary() throws {
        var rng = TestRNG(seed: 9)
        let edges = [
            "0", "-0", "0.0", "-0.0", "1e38", "3.4028235e38", "-3.4028235e38", "1.17549435e-38", "1e-40",
            "1.4e-45", "7e-46", "1e-50", "123456789", "1234567", "0.1234567890123456789", "9999999.9999999",
            "1E+2", "2.5e-05", "16777216", "16777217", "1e10", "1e-10", "1e11", "1e-11", "0.000000000000000001",
            "100000000000000000000", "4.7019774e-38", "8.589973e9", "0.00000000000000000000000000000000000001",
        ]
        for round in 0..<40 {
            var tokens: [String] = edges.shuffled(using: &rng)
            for i in 0..<3000 {
                switch i % 6 {
                case 0: tokens.append(String(format: "%.6g", Double.random(in: -0.2...0.2, using: &rng)))
                case 1:
                    tokens.append(
                        "\(Float(bitPattern: UInt32.random(in: 0...0x7F7F_FFFF, using: &rng)) * (Bool.random(using: &rng) ? 1 : -1))"
                    )
                case 2: tokens.append(String(format: "%.9g", Double.random(in: -2...2, using: &rng)))
                case 3:
                    tokens.append(
                        String(
                            format: "%.\(Int.random(in: 1...20, using: &rng))g",
                            Double.random(in: -1e6...1e6, using: &rng)))
                case 4:
                    tokens.append(
                        "\(Int.random(in: -99_999_999...99_999_999, using: &rng))e\(Int.random(in: -45...30, using: &rng))"
                    )
                default: tokens.append(String(format: "%.7f", Double.random(in: -1...1, using: &rng)))
                }
            }
            let separator = [",", ", ", ",\n  ", " ,"][round % 4]
            let text = Array("[\(tokens.joined(separator: separator))]".utf8)
            for chunk in [1 << 20, 1200] {
                let reader = JSONReader(source: ByteSource(bytes: text), name: "t", chunkSize: chunk)
                var out: [Float] = []
                try reader.readFloatArray(into: &out, limit: 1 << 20)
                #expect(out.count == tokens.count)
                var mismatches: [String] = []
                for (t, v) in zip(tokens, out) where Float(t)?.bitPattern != v.bitPattern && mismatches.count < 5 {
                    mismatches.append("\(t) → \(v)")
                }
                #expect(mismatches.isEmpty, "\(mismatches)")
            }
        }
    }

    /// Out of float32's range in an array: refused with the number and its byte offset, whatever
    /// parses it.
    @Test func numberArraysRefuseOverflow() {
        for bad in ["3.5e38", "-1e39", "340282357000000000000000000000000000000"] {
            let values = Array(repeating: "0.5", count: 20) + [bad] + Array(repeating: "0.25", count: 20)
            let text = Array("[\(values.joined(separator: ","))]".utf8)
            let reader = JSONReader(source: ByteSource(bytes: text), name: "t")
            var out: [Float] = []
            do throws(InputError) {
                try reader.readFloatArray(into: &out, limit: 1000)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(
                    error.message.contains("out of range for float32") && error.message.contains("at byte 81"),
                    "\(error.message)")
            }
        }
    }

    /// The integer fast path takes exactly the plain 1–9 digit integers and leaves every other
    /// token, unconsumed, to `readDouble()`; with a small buffer, tokens cut by its end go the
    /// general way too, and the values read either way are the tokens' own.
    @Test func smallIntegersOnlyTakePlainDigits() throws {
        let kinds = ["0", "7", "18459", "123456789", "1234567890", "2.0", "2e0", "-3", "4E1", "5.5"]
        let plain: Set<String> = ["0", "7", "18459", "123456789"]
        let tokens = (0..<300).map { kinds[$0 % kinds.count] } + ["02"]
        let text = Array(("[" + tokens.joined(separator: " , ") + "]").utf8)
        for chunk in [1 << 16, 1100] {
            let reader = JSONReader(source: ByteSource(bytes: text), name: "t", chunkSize: chunk)
            try reader.expect(UInt8(ascii: "["), "'['")
            var taken = 0
            for t in tokens {
                if let k = try reader.readSmallInteger() {
                    #expect(plain.contains(t) && String(k) == t, "fast path took \(t) as \(k)")
                    taken += 1
                } else if t == "02" {  // the last: a leading zero, refused by the general path
                    #expect(throws: InputError.self) { try reader.readDouble() }
                } else {
                    #expect(!plain.contains(t) || chunk == 1100, "fast path left \(t)")
                    #expect(try reader.readDouble() == Double(t), "\(t)")
                }
                if t != "02" { _ = try reader.nextOrClose(UInt8(ascii: "]")) }
            }
            #expect(taken >= (chunk == 1100 ? 100 : 120), "\(taken) taken")
        }
    }

    @Test func rejectsMalformedNumbers() {
        for bad in ["", "-", "+1", "01", "1.", ".5", "1e", "1e+", "NaN", "Infinity", "0x10", "1.2.3", "--1", "1e5e"] {
            #expect(FastFloat.parseFloat(bad) == nil, "accepted '\(bad)'")
        }
    }

    @Test func overflowIsInfinite() {
        #expect(FastFloat.parseFloat("1e999")?.isInfinite == true)
        #expect(FastFloat.parseDouble("1e999")?.isInfinite == true)
        #expect(FastFloat.parseFloat("1e-999") == 0)
    }

    /// Correct rounding: agree with the standard library's conversion on random decimal strings of
    /// every shape the format produces (short, long, tiny, huge, midpoint-prone) — 1.2 million values.
    @Test func agreesWithStandardLibraryOnRandomValues() {
        var rng = TestRNG(seed: 42)
        var mismatches: [String] = []
        for i in 0..<1_200_000 {
            let s: String
            switch i % 6 {
            case 0:  // shortest float32 text, as written by ARKit-style exporters
                s =
                    "\(Float(bitPattern: UInt32.random(in: 0x0080_0000...0x7F7F_FFFF, using: &rng)) * (Bool.random(using: &rng) ? 1 : -1))"
            case 1:  // %.6g-like values in metres
                let v = Double.random(in: -0.2...0.2, using: &rng)
                s = String(format: "%.6g", v)
            case 2:  // many digits
                let v = Double.random(in: -1000...1000, using: &rng)
                s = String(format: "%.17g", v)
            case 3:  // decimal mantissa with exponent
                s = "\(UInt64.random(in: 0...UInt64(1) << 60, using: &rng))e\(Int.random(in: -60...30, using: &rng))"
            case 4:  // near float midpoints: a float's exact double halfway value, printed fully
                let f = Float(bitPattern: UInt32.random(in: 0x0080_0000...0x7F00_0000, using: &rng))
                let mid = (Double(f) + Double(f.nextUp)) / 2
                s = String(format: "%.25g", mid)
            default:  // short decimals
                s = "\(Int.random(in: -99999...99999, using: &rng)).\(Int.random(in: 0...999, using: &rng))"
            }
            let fast = FastFloat.parseFloat(s)
            let ref = Float(s)
            if fast?.bitPattern != ref?.bitPattern, mismatches.count < 10 { mismatches.append(s) }
            let fastD = FastFloat.parseDouble(s)
            let refD = Double(s)
            if fastD?.bitPattern != refD?.bitPattern, mismatches.count < 10 { mismatches.append("double " + s) }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}
