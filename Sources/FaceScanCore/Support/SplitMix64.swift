#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators"): a tiny,
/// seedable, deterministic generator — the same seed gives the same stream on every platform.
/// facescan's one source of pseudo-random numbers (surface sampling, noise estimates, tests and
/// benchmarks).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Standard normal sample (Box–Muller).
    package mutating func gaussian() -> Double {
        let u = (Double(next() >> 11) + 0.5) * 0x1.0p-53  // never 0
        let v = nextUnit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
