/// Per-vertex weighted running mean and variance of accepted frames in double precision
/// (Welford's algorithm with West's weighted update); the mean is the average face, the variance
/// tells how noisy it still is. Memory is O(vertices), independent of the number of frames.
///
/// Weights are meant as inverse variances (up to one common factor): a frame whose noise variance
/// is half another's counts twice as much. With every weight 1 this is the plain mean.
///
/// The frames are also dealt in turn into ``groups`` interleaved groups whose weighted sums are
/// kept (one more multiply-add per coordinate, for all but the last group, whose sum is the
/// total's remainder): each group's mean minus the whole mean is a sample of the mean's noise with
/// its spatial correlation intact (``noiseSamples()``), which the automatic smoothing needs —
/// the per-vertex variance alone cannot tell noise that smoothing removes (independent from vertex
/// to vertex) from a frame-to-frame wobble of the whole shape, which it cannot.
package struct Accumulator: Sendable {
    /// Interleaved frame groups (frame k goes to group k mod `groups`).
    package static let groups = 4
    /// Running weighted mean, flat xyz.
    package private(set) var means: [Double]
    /// Running weighted sum of squared deviations from the mean, Σ wᵢ(xᵢ − x̄)², flat xyz.
    package private(set) var m2: [Double]
    /// Frames added.
    package private(set) var count = 0
    /// Sum of the frames' weights.
    package private(set) var weightSum = 0.0
    /// Σ w·x of the frames of groups 0 … `groups − 2`, group after group, flat xyz each.
    private var groupSums: [Double]
    /// Σ w of each group.
    private var groupWeights = [Double](repeating: 0, count: Accumulator.groups)

    /// `vertexCount` vertices (3 coordinates each).
    package init(vertexCount: Int) {
        means = [Double](repeating: 0, count: 3 * vertexCount)
        m2 = means
        groupSums = [Double](repeating: 0, count: 3 * vertexCount * (Self.groups - 1))
    }

    package var vertexCount: Int { means.count / 3 }

    /// Σ w of each interleaved group (frame k went to group k mod ``groups``).
    package var groupWeightSums: [Double] { groupWeights }

    /// Adds one frame's flat xyz coordinates (`3 × vertexCount` values) with `weight` (> 0).
    package mutating func add(_ xyz: borrowing Span<Float>, weight: Double = 1) {
        precondition(xyz.count == means.count, "frame size must match the accumulator")
        precondition(weight > 0 && weight.isFinite, "frame weight must be positive")
        let group = count % Self.groups
        count += 1
        weightSum += weight
        groupWeights[group] += weight
        let f = weight / weightSum
        Self.fold(xyz, weight: weight, f: f, group: group, means: &means, m2: &m2, groupSums: &groupSums)
    }

    /// Welford's update of the means and squared deviations by one frame, and its group's sums
    /// (the last group's are not kept: the total minus the others).
    private static func fold(
        _ xyz: borrowing Span<Float>, weight: Double, f: Double, group: Int,
        means: inout [Double], m2: inout [Double], groupSums: inout [Double]
    ) {
        let n = means.count
        var mean = means.flatMut
        var m2 = m2.flatMut
        guard group < Self.groups - 1 else {
            for i in 0..<n {
                let x = Double(xyz[i])
                let d = x - mean[i]
                mean[i] += d * f
                m2[i] += weight * d * (x - mean[i])
            }
            return
        }
        var all = groupSums.flatMut
        let g = group * n
        for i in 0..<n {
            let x = Double(xyz[i])
            let d = x - mean[i]
            mean[i] += d * f
            m2[i] += weight * d * (x - mean[i])
            all[g + i] += weight * x
        }
    }

    /// Samples of the noise left in the mean, flat xyz each, scaled so that for any matrix J,
    /// Σₛ sᵀ J s is an unbiased estimate of tr(J Σ), Σ the covariance of the mean (exactly so for
    /// inverse-variance weights): with G non-empty groups of weights W_g and means m_g,
    /// E[Σ_g W_g (m_g − m)(m_g − m)ᵀ] = (G − 1) C and Σ = C / W, so sample g is
    /// (m_g − m) · √(W_g / ((G − 1) W)). Nil with fewer than two groups (one frame).
    package func noiseSamples() -> [[Double]]? {
        let filled = groupWeights.filter { $0 > 0 }.count
        guard filled >= 2 else { return nil }
        let n = means.count
        var samples: [[Double]] = []
        var rest = means.map { $0 * weightSum }
        for g in 0..<Self.groups where groupWeights[g] > 0 {
            let wg = groupWeights[g]
            let scale = (wg / (Double(filled - 1) * weightSum)).squareRoot()
            var s = [Double](repeating: 0, count: n)
            for i in 0..<n {
                let sum: Double
                if g < Self.groups - 1 {
                    sum = groupSums[g * n + i]
                    rest[i] -= sum
                } else {
                    sum = rest[i]
                }
                s[i] = (sum / wg - means[i]) * scale
            }
            samples.append(s)
        }
        return samples
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
        add(xyz.flat, weight: weight)
    }

    /// The per-vertex mean (rounded to float32), or nil when no frame was added.
    package func mean() -> [SIMD3<Float>]? {
        guard count > 0 else { return nil }
        var out = [SIMD3<Float>](repeating: .zero, count: vertexCount)
        let s = means.flat
        for v in 0..<out.count {
            out[v] = SIMD3(Float(s[3 * v]), Float(s[3 * v + 1]), Float(s[3 * v + 2]))
        }
        return out
    }
}
