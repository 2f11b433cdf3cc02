#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic wall-clock timing in milliseconds.
public struct Stopwatch: Sendable {
    private var start: Double
    public init() { start = Stopwatch.nowMs() }
    /// Milliseconds since creation or the last ``lap()``, and restart.
    public mutating func lap() -> Double {
        let now = Stopwatch.nowMs()
        defer { start = now }
        return now - start
    }
    public var elapsed: Double { Stopwatch.nowMs() - start }
    public static func nowMs() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}
