import Testing
@testable import FaceScanKit

@Suite struct RobustAccumulatorTests {
    /// `frames` noisy copies of a 500-vertex shape; the frames in `bad` are glitched.
    func run(frames: Int, bad: Set<Int>, glitch: (inout [Float], inout TestRNG) -> Void) -> (RobustAccumulator, [Float]) {
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
}
