#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic wall-clock timing in milliseconds.
package struct Stopwatch: Sendable {
    private var start: Double
    package init() { start = Stopwatch.nowMs() }
    /// Milliseconds since creation or the last ``lap()``, and restart.
    package mutating func lap() -> Double {
        let now = Stopwatch.nowMs()
        defer { start = now }
        return now - start
    }
    package var elapsed: Double { Stopwatch.nowMs() - start }
    package static func nowMs() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}
