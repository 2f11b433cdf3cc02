import Foundation
import Testing

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
