import Foundation
import Testing

@testable import FaceScanKit

@Suite struct TaubinTests {
    @Test func noisySphereKeepsItsRadius() {
        var m = sphere(radius: 1, rings: 40, segments: 80)
        #expect(MeshCheck(m).isWatertight)
        var rng = TestRNG(seed: 5)
        for i in m.positions.indices { m.positions[i] *= Float(1 + 0.01 * rng.gaussian()) }
        let adj = Adjacency(triangles: m.triangles, vertexCount: m.vertexCount)
        func radii(_ m: Mesh) -> (mean: Double, sd: Double) {
            let r = m.positions.map { Double(($0 * $0).sum().squareRoot()) }
            let mean = r.reduce(0, +) / Double(r.count)
            return (mean, (r.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(r.count)).squareRoot())
        }
        let before = radii(m)
        for w in SmoothingWeights.allCases {
            let s = Taubin.smooth(m, adjacency: adj, options: TaubinOptions(iterations: 10, weights: w))
            let after = radii(s)
            #expect(abs(after.mean - 1) < 0.005, "\(w): mean radius \(after.mean)")
            #expect(after.sd < before.sd / 2, "\(w): noise \(before.sd) -> \(after.sd)")
            // Plain Laplacian smoothing would shrink it: the test can tell the difference.
        }
        var lap = TaubinOptions(iterations: 10)
        lap.mu = 0
        let shrunk = radii(Taubin.smooth(m, adjacency: adj, options: lap))
        #expect(shrunk.mean < 0.99)
    }

    @Test func openBorderDoesNotCurlInward() {
        // A flat 11×11 grid in z = 0 with noise in z; its straight border must stay where it is.
        let n = 11
        var p: [SIMD3<Float>] = []
        var rng = TestRNG(seed: 9)
        for y in 0..<n { for x in 0..<n { p.append(SIMD3(Float(x), Float(y), Float(0.05 * rng.gaussian()))) } }
        var t: [UInt32] = []
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let a = UInt32(y * n + x), b = a + 1, c = a + UInt32(n), d = c + 1
                t += [a, b, c, c, b, d]
            }
        }
        let m = Mesh(uncheckedPositions: p, triangles: t)
        let adj = Adjacency(triangles: t, vertexCount: p.count)
        #expect(adj.boundaryEdgeCount == 4 * (n - 1))
        let s = Taubin.smooth(m, adjacency: adj, options: TaubinOptions(iterations: 10))
        for v in 0..<p.count where adj.isBoundary[v] {
            let x = Int(v % n), y = Int(v / n)
            // Border vertices move only along the border line (x or y stays at 0 or n−1).
            if x == 0 || x == n - 1 { #expect(abs(s.positions[v].x - p[v].x) < 1e-5) }
            if y == 0 || y == n - 1 { #expect(abs(s.positions[v].y - p[v].y) < 1e-5) }
        }
        // The four corners are pinned.
        for v in [0, n - 1, n * (n - 1), n * n - 1] { #expect(s.positions[v] == p[v]) }
        let zNoiseBefore = p.map { abs($0.z) }.reduce(0, +)
        let zNoiseAfter = s.positions.map { abs($0.z) }.reduce(0, +)
        #expect(zNoiseAfter < zNoiseBefore * 0.7)
    }
}

@Suite struct BilateralSmoothingTests {
    /// A 21×21 grid with 0.05 noise in z and a ridge of height 1 along the middle row.
    func ridge() -> (Mesh, Adjacency) {
        let n = 21
        var rng = TestRNG(seed: 11)
        var p: [SIMD3<Float>] = []
        for y in 0..<n {
            for x in 0..<n { p.append(SIMD3(Float(x), Float(y), (y == n / 2 ? 1 : 0) + Float(0.05 * rng.gaussian()))) }
        }
        var t: [UInt32] = []
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let a = UInt32(y * n + x), b = a + 1, c = a + UInt32(n), d = c + 1
                t += [a, b, c, c, b, d]
            }
        }
        return (Mesh(uncheckedPositions: p, triangles: t), Adjacency(triangles: t, vertexCount: p.count))
    }

    func ridgeHeight(_ m: Mesh) -> Float {
        let n = 21
        var sum: Float = 0
        for x in 3..<(n - 3) { sum += m.positions[(n / 2) * n + x].z }
        return sum / Float(n - 6)
    }

    @Test func rangeWeightKeepsDetailAboveTheNoise() {
        let (m, adj) = ridge()
        var plain = TaubinOptions(iterations: 5)
        var bilateral = plain
        bilateral.featureScale = [Float](repeating: 0.2, count: m.vertexCount)  // 4 × the noise
        let a = ridgeHeight(Taubin.smooth(m, adjacency: adj, options: plain))
        let b = ridgeHeight(Taubin.smooth(m, adjacency: adj, options: bilateral))
        #expect(b > 0.9, "ridge kept at \(b)")
        #expect(a < b - 0.1, "plain \(a) vs bilateral \(b)")
    }

    /// With the pipeline's default bounds (``PipelineOptions/noiseLimit``, ``PipelineOptions/featureScale``)
    /// smoothing a noise-free surface with features moves no vertex by more than the limit, keeps
    /// the ridge, and leaves the flat parts where they are.
    @Test func defaultBoundsDoNotErodeACleanSurface() {
        let n = 21
        var p: [SIMD3<Float>] = []
        for y in 0..<n { for x in 0..<n { p.append(SIMD3(Float(x), Float(y), y == n / 2 ? 1 : 0)) } }
        let (noisy, _) = ridge()
        let clean = Mesh(uncheckedPositions: p, triangles: noisy.triangles)
        let adj = Adjacency(triangles: clean.triangles, vertexCount: p.count)
        let defaults = PipelineOptions()
        let se: Float = 0.01
        var o = TaubinOptions(iterations: 8, weights: .cotangent)
        o.displacementLimit = [Float](repeating: se * Float(defaults.noiseLimit), count: p.count)
        o.featureScale = [Float](repeating: se * Float(defaults.featureScale), count: p.count)
        let s = Taubin.smooth(clean, adjacency: adj, options: o)
        var worst: Float = 0
        for v in 0..<p.count {
            let d = s.positions[v] - p[v]
            worst = max(worst, (d * d).sum().squareRoot())
        }
        #expect(worst <= se * Float(defaults.noiseLimit) * 1.0001, "moved \(worst)")
        #expect(ridgeHeight(s) > 0.95)
        var flat: Float = 0
        for v in 0..<p.count where abs(v / n - n / 2) > 2 {
            let d = s.positions[v] - p[v]
            flat = max(flat, (d * d).sum().squareRoot())
        }
        #expect(flat < 1e-6 * se, "flat part moved \(flat)")
    }

}
