import Testing

@testable import FaceScanAccumulate
@testable import FaceScanKit

@Suite struct RobustAccumulatorTests {
    /// `frames` noisy copies of a 500-vertex shape; the frames in `bad` are glitched.
    func run(frames: Int, bad: Set<Int>, glitch: (inout [Float], inout TestRNG) -> Void) -> (RobustAccumulator, [Float])
    {
        var rng = TestRNG(seed: 3)
        let truth = (0..<1500).map { _ in Float.random(in: -0.1...0.1, using: &rng) }
        var acc = RobustAccumulator(vertexCount: 500)
        for f in 0..<frames {
            let scale = Float.random(in: 0.64...1.44, using: &rng)  // distance-dependent noise inside the gate
            var xyz = truth.map { $0 + Float(rng.gaussian()) * 0.0006 * scale }
            if bad.contains(f) { glitch(&xyz, &rng) }
            acc.add(xyz)
        }
        acc.finish()
        return (acc, truth)
    }

    func rmsError(_ acc: RobustAccumulator, _ truth: [Float]) -> Double {
        let m = acc.accumulator.mean()!
        var s = 0.0
        for v in 0..<m.count {
            for k in 0..<3 { let d = Double(m[v][k] - truth[3 * v + k]); s += d * d }
        }
        return (s / Double(m.count)).squareRoot()
    }

    @Test func warmUpMedianMatchesSortedColumns() {
        var rng = TestRNG(seed: 9)
        for m in 1...9 {
            // Few distinct values, so ties are common.
            let frames = (0..<m).map { _ in (0..<300).map { _ in Float(Int.random(in: -4...4, using: &rng)) * 0.25 } }
            let medians = RobustAccumulator.coordinateMedians(frames)
            for i in 0..<300 {
                let column = frames.map { $0[i] }.sorted()
                let expected =
                    m % 2 == 1 ? Double(column[m / 2]) : (Double(column[m / 2 - 1]) + Double(column[m / 2])) / 2
                #expect(medians[i] == expected, "m \(m) coordinate \(i)")
            }
        }
    }

    @Test func keepsEveryGoodFrame() {
        let (acc, _) = run(frames: 40, bad: []) { _, _ in }
        #expect(acc.outliers == 0)
        #expect(acc.accumulator.count == 40)
    }

    @Test func leavesOutGlitchedFramesInWarmUpAndLater() {
        // A whole-face shift of 3 mm (tracking glitch) and a frame with five times the noise.
        let bad: Set<Int> = [2, 5, 13, 21, 30]
        let (acc, truth) = run(frames: 40, bad: bad) { xyz, rng in
            if Bool.random(using: &rng) {
                for i in stride(from: 2, to: xyz.count, by: 3) { xyz[i] += 0.003 }
            } else {
                for i in xyz.indices { xyz[i] += Float(rng.gaussian()) * 0.003 }
            }
        }
        #expect(acc.outliers == bad.count)
        #expect(acc.accumulator.count == 40 - bad.count)
        // The plain mean would carry 5/40 of a 3 mm shift; the robust mean stays at noise level.
        #expect(rmsError(acc, truth) < 0.0003)
    }

    @Test func plainModeAveragesEverything() {
        var acc = RobustAccumulator(vertexCount: 1, rejectOutliers: false)
        for v: Float in [1, 1, 1, 100] { acc.add([v, 0, 0]) }
        acc.finish()
        #expect(acc.outliers == 0)
        #expect(acc.accumulator.mean()! == [SIMD3<Float>(25.75, 0, 0)])
    }

    @Test func weightedMeanAndStandardErrorsMatchADoublePrecisionReference() {
        var rng = TestRNG(seed: 5)
        let frames = (0..<7).map { _ in (0..<12).map { _ in Float(rng.gaussian()) } }
        let weights = [1.0, 0.5, 2.0, 3.5, 0.25, 1.0, 8.0]
        var acc = Accumulator(vertexCount: 4)
        for (f, w) in zip(frames, weights) { acc.add(f, weight: w) }
        let total = weights.reduce(0, +)
        var mean = [Double](repeating: 0, count: 12)
        for (f, w) in zip(frames, weights) { for i in 0..<12 { mean[i] += w * Double(f[i]) / total } }
        var m2 = [Double](repeating: 0, count: 12)
        for (f, w) in zip(frames, weights) {
            for i in 0..<12 { m2[i] += w * (Double(f[i]) - mean[i]) * (Double(f[i]) - mean[i]) }
        }
        for i in 0..<12 { #expect(abs(acc.means[i] - mean[i]) < 1e-12) }
        let se = acc.standardErrors()!
        for v in 0..<4 {
            let want = ((m2[3 * v] + m2[3 * v + 1] + m2[3 * v + 2]) / (3 * 6 * total)).squareRoot()
            #expect(abs(se[v] - want) < 1e-12 * want)
        }
        #expect(acc.weightSum == total && acc.count == 7)
    }

    /// Frames of a 3 000-vertex shape with distance-dependent noise (σ ∝ d², d uniform in
    /// 0.32–0.48 m, so the variance differs up to 5× between frames).
    func noisyFrames(count: Int, seed: UInt64, _ body: ([Float]) -> Void) -> [Float] {
        var rng = TestRNG(seed: seed)
        let truth = (0..<9000).map { _ in Float(rng.nextUnit() * 0.2 - 0.1) }
        for _ in 0..<count {
            let d = 0.32 + 0.16 * rng.nextUnit()
            let sigma = 0.0006 * (d / 0.4) * (d / 0.4)
            body(truth.map { $0 + Float(rng.gaussian() * sigma) })
        }
        return truth
    }

    @Test func inverseVarianceWeightingLowersTheError() {
        var weighted = RobustAccumulator(vertexCount: 3000, weighting: .residual)
        var equal = RobustAccumulator(vertexCount: 3000, weighting: .equal)
        let truth = noisyFrames(count: 60, seed: 9) { f in
            weighted.add(f)
            equal.add(f)
        }
        weighted.finish()
        equal.finish()
        #expect(weighted.outliers == 0 && equal.outliers == 0)
        let ew = rmsError(weighted, truth), ee = rmsError(equal, truth)
        // Theory for this distance spread: 0.90 × the plain mean's error.
        #expect(ew < 0.95 * ee, "weighted \(ew) vs equal \(ee)")
        // The reported standard error (per coordinate) predicts the actual error within 10 %.
        let se = NoiseEstimate.rms(weighted.accumulator.standardErrors()!) * 3.0.squareRoot()
        #expect(abs(se - ew) < 0.1 * ew, "standard error \(se) vs actual \(ew)")
    }

    @Test func identicalFramesAverageToThemselves() {
        var acc = RobustAccumulator(vertexCount: 2)
        for _ in 0..<12 { acc.add([1, 2, 3, 4, 5, 6]) }
        acc.finish()
        #expect(acc.outliers == 0)
        #expect(acc.accumulator.mean()! == [SIMD3(1, 2, 3), SIMD3(4, 5, 6)])
        #expect(acc.accumulator.standardErrors()! == [0, 0])
    }
}
