/// Per-vertex weighted running mean and variance of accepted frames in double precision
/// (Welford's algorithm with West's weighted update); the mean is the average face, the variance
/// tells how noisy it still is. Memory is O(vertices), independent of the number of frames.
///
/// Weights are meant as inverse variances (up to one common factor): a frame whose noise variance
/// is half another's counts twice as much. With every weight 1 this is the plain mean.
package struct Accumulator: Sendable {
    /// Running weighted mean, flat xyz.
    package private(set) var means: [Double]
    /// Running weighted sum of squared deviations from the mean, Σ wᵢ(xᵢ − x̄)², flat xyz.
    package private(set) var m2: [Double]
    /// Frames added.
    package private(set) var count = 0
    /// Sum of the frames' weights.
    package private(set) var weightSum = 0.0

    /// `vertexCount` vertices (3 coordinates each).
    package init(vertexCount: Int) {
        means = [Double](repeating: 0, count: 3 * vertexCount)
        m2 = means
    }

    package var vertexCount: Int { means.count / 3 }

    /// Adds one frame's flat xyz coordinates (`3 × vertexCount` values) with `weight` (> 0).
    package mutating func add(_ xyz: UnsafeBufferPointer<Float>, weight: Double = 1) {
        precondition(xyz.count == means.count, "frame size must match the accumulator")
        precondition(weight > 0 && weight.isFinite, "frame weight must be positive")
        count += 1
        weightSum += weight
        let f = weight / weightSum
        means.withUnsafeMutableBufferPointer { mean in
            m2.withUnsafeMutableBufferPointer { m2 in
                for i in 0..<mean.count {
                    let x = Double(xyz[i])
                    let d = x - mean[i]
                    mean[i] += d * f
                    m2[i] += weight * d * (x - mean[i])
                }
            }
        }
    }

    /// Estimated standard deviation of each vertex of the mean (isotropic: the average of the
    /// three coordinate variances), in the input unit; nil with fewer than two frames.
    ///
    /// With inverse-variance weights wᵢ = c/σᵢ², Σ wᵢ(xᵢ − x̄)² has expectation c·(N − 1) and the
    /// weighted mean has variance c/Σwᵢ, so the variance of the mean is m2 / ((N − 1)·Σwᵢ); with
    /// unit weights that is the familiar m2 / ((N − 1)·N).
    package func standardErrors() -> [Double]? {
        guard count > 1 else { return nil }
        let scale = 1.0 / (3.0 * Double(count - 1) * weightSum)
        return (0..<vertexCount).map { v in ((m2[3 * v] + m2[3 * v + 1] + m2[3 * v + 2]) * scale).squareRoot() }
    }

    package mutating func add(_ xyz: [Float], weight: Double = 1) {
        xyz.withUnsafeBufferPointer { add($0, weight: weight) }
    }

    /// The per-vertex mean (rounded to float32), or nil when no frame was added.
    package func mean() -> [SIMD3<Float>]? {
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
