/// Per-vertex running mean and variance of accepted frames in double precision (Welford's
/// algorithm); the mean is the average face, the variance tells how noisy it still is.
/// Memory is O(vertices), independent of the number of frames.
public struct Accumulator: Sendable {
    /// Running mean, flat xyz.
    public private(set) var means: [Double]
    /// Running sum of squared deviations from the mean, flat xyz.
    public private(set) var m2: [Double]
    public private(set) var count = 0

    /// `vertexCount` vertices (3 coordinates each).
    public init(vertexCount: Int) {
        means = [Double](repeating: 0, count: 3 * vertexCount)
        m2 = means
    }

    public var vertexCount: Int { means.count / 3 }

    /// Adds one frame's flat xyz coordinates (`3 × vertexCount` values).
    public mutating func add(_ xyz: UnsafeBufferPointer<Float>) {
        precondition(xyz.count == means.count, "frame size must match the accumulator")
        count += 1
        let inv = 1.0 / Double(count)
        means.withUnsafeMutableBufferPointer { mean in
            m2.withUnsafeMutableBufferPointer { m2 in
                for i in 0..<mean.count {
                    let x = Double(xyz[i])
                    let d = x - mean[i]
                    mean[i] += d * inv
                    m2[i] += d * (x - mean[i])
                }
            }
        }
    }

    /// Estimated standard deviation of each vertex of the mean (isotropic: the average of the
    /// three coordinate variances, divided by the frame count), in the input unit. nil with fewer
    /// than two frames.
    public func standardErrors() -> [Double]? {
        guard count > 1 else { return nil }
        let scale = 1.0 / (3.0 * Double(count - 1) * Double(count))
        return (0..<vertexCount).map { v in ((m2[3 * v] + m2[3 * v + 1] + m2[3 * v + 2]) * scale).squareRoot() }
    }

    public mutating func add(_ xyz: [Float]) {
        xyz.withUnsafeBufferPointer { add($0) }
    }

    /// The per-vertex mean (rounded to float32), or nil when no frame was added.
    public func mean() -> [SIMD3<Float>]? {
        guard count > 0 else { return nil }
        var out = [SIMD3<Float>](repeating: .zero, count: vertexCount)
        means.withUnsafeBufferPointer { s in
            for v in 0..<out.count {
                out[v] = SIMD3(Float(s[3 * v]), Float(s[3 * v + 1]), Float(s[3 * v + 2]))
            }
        }
        return out
    }
}
