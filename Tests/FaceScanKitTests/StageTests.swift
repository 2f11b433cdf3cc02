import Foundation
import Testing

@testable import FaceScanKit

@Suite struct GateTests {
    func meta(
        distance: Double? = 0.4, tracking: TrackingState = .normal, light: Double? = 1000,
        jaw: Double? = nil, smile: (Double, Double)? = nil, brow: Double? = nil
    ) -> FrameMetadata {
        var m = FrameMetadata()
        m.distance = distance
        m.tracking = tracking
        m.ambientIntensity = light
        m.jawOpen = jaw
        m.mouthSmileLeft = smile?.0
        m.mouthSmileRight = smile?.1
        m.browInnerUp = brow
        return m
    }

    @Test func decisions() {
        let g = QualityGate()
        #expect(g.judge(meta()) == nil)
        #expect(g.judge(meta(distance: nil, light: nil)) == nil)  // not recorded: not checked
        #expect(g.judge(meta(distance: 0.3)) == nil)  // bounds inclusive
        #expect(g.judge(meta(distance: 0.5)) == nil)
        #expect(g.judge(meta(distance: 0.29)) == .distance)
        #expect(g.judge(meta(distance: 0.51)) == .distance)
        #expect(g.judge(meta(tracking: .limited)) == .tracking)
        #expect(g.judge(meta(tracking: .notAvailable)) == .tracking)
        #expect(g.judge(meta(light: 500)) == .lighting)  // must be above 500
        #expect(g.judge(meta(light: 500.1)) == nil)
        #expect(g.judge(meta(jaw: 0.39)) == nil)
        #expect(g.judge(meta(jaw: 0.4)) == .expression)
        #expect(g.judge(meta(smile: (0.9, 0.05))) == nil)  // mean 0.475
        #expect(g.judge(meta(smile: (0.6, 0.4))) == .expression)  // mean 0.5
        #expect(g.judge(meta(brow: 0.5)) == .expression)
        // First failing rule wins: distance, tracking, lighting, expression.
        #expect(g.judge(meta(distance: 0.9, tracking: .limited, light: 10, jaw: 1)) == .distance)
        #expect(g.judge(meta(tracking: .limited, light: 10, jaw: 1)) == .tracking)
        #expect(g.judge(meta(light: 10, jaw: 1)) == .lighting)
    }

    @Test func settingsMoveThresholds() {
        var s = CaptureSettings()
        s.gate.maxDistance = 0.8
        s.gate.minAmbientIntensity = 100
        s.gate.maxJawOpen = 0.9
        let g = QualityGate(thresholds: GateThresholds(settings: s))
        #expect(g.judge(meta(distance: 0.7, light: 200, jaw: 0.5)) == nil)
    }
}

@Suite struct AccumulatorTests {
    @Test func meanIsExact() {
        var a = Accumulator(vertexCount: 2)
        a.add([1, 2, 3, 4, 5, 6])
        a.add([3, 2, 1, 0, -5, 8])
        a.add([2, 2, 2, 2, 3, 1])
        #expect(a.count == 3)
        #expect(a.mean() == [SIMD3(2, 2, 2), SIMD3(2, 1, 5)])
        #expect(Accumulator(vertexCount: 1).mean() == nil)
    }

    @Test func doublePrecisionSums() {
        // 10 000 frames of 0.1f: a float32 running sum drifts, the double sum does not.
        var a = Accumulator(vertexCount: 1)
        for _ in 0..<10_000 { a.add([0.1, 1e-4, 12.345]) }
        #expect(a.mean()! == [SIMD3<Float>(0.1, 1e-4, 12.345)])
    }
}

/// A UV sphere of radius `r` with `rings × segments` resolution (closed).
func sphere(radius r: Float, rings: Int, segments: Int) -> Mesh {
    var p: [SIMD3<Float>] = [SIMD3(0, r, 0)]
    for i in 1..<rings {
        let th = Float.pi * Float(i) / Float(rings)
        for j in 0..<segments {
            let ph = 2 * Float.pi * Float(j) / Float(segments)
            p.append(SIMD3(r * sin(th) * cos(ph), r * cos(th), r * sin(th) * sin(ph)))
        }
    }
    p.append(SIMD3(0, -r, 0))
    var t: [UInt32] = []
    func ring(_ i: Int, _ j: Int) -> UInt32 { UInt32(1 + (i - 1) * segments + (j % segments)) }
    for j in 0..<segments { t += [0, ring(1, j + 1), ring(1, j)] }
    for i in 1..<(rings - 1) {
        for j in 0..<segments {
            t += [ring(i, j), ring(i, j + 1), ring(i + 1, j)]
            t += [ring(i + 1, j), ring(i, j + 1), ring(i + 1, j + 1)]
        }
    }
    let south = UInt32(p.count - 1)
    for j in 0..<segments { t += [south, ring(rings - 1, j), ring(rings - 1, j + 1)] }
    return Mesh(uncheckedPositions: p, triangles: t)
}

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

@Suite struct ExportTests {
    let quad = Mesh(
        uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0), SIMD3(2, 0, 0)],
        triangles: [0, 1, 2, 2, 1, 3, 0, 1, 4])  // last triangle is degenerate (collinear)

    @Test func stlByteLayout() {
        let b = quad.stlBytes()
        #expect(b.count == 84 + 50 * 3)
        #expect(!b.starts(with: Array("solid".utf8)))
        #expect(b[80] == 3 && b[81] == 0 && b[82] == 0 && b[83] == 0)
        func f(_ o: Int) -> Float {
            Float(bitPattern: UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24)
        }
        // Facet 0: normal +z, corners in order.
        #expect([f(84), f(88), f(92)] == [0, 0, 1])
        #expect([f(96 + 12), f(100 + 12), f(104 + 12)] == [1, 0, 0])
        #expect(b[84 + 48] == 0 && b[84 + 49] == 0)
        // Facet 2 is degenerate: zero normal, never NaN.
        let o = 84 + 100
        #expect([f(o), f(o + 4), f(o + 8)] == [0, 0, 0])
        for k in stride(from: 84, to: b.count - 2, by: 50) { for j in 0..<12 { #expect(f(k + 4 * j).isFinite) } }
        // And it reads back.
        let back = try! Mesh.parseSTL(b, name: "x.stl")
        #expect(back.triangleCount == 3)
        #expect(back.vertexCount == 5)
    }

    @Test func objRoundTrip() throws {
        var m = sphere(radius: 0.093, rings: 6, segments: 9)
        m.uvs = m.positions.map { SIMD2($0.x + 0.5, $0.y + 0.25) }
        let back = try Mesh.parseOBJ(m.objBytes(), name: "s.obj")
        #expect(back == m)
        m.uvs = nil
        let text = String(decoding: m.objBytes(), as: UTF8.self)
        #expect(text.contains("vn "))
        #expect(text.contains("//"))
        #expect(try Mesh.parseOBJ(Array(text.utf8), name: "s.obj") == m)
    }

    @Test func vertexNormalsAreAreaWeighted() {
        let n = quad.vertexNormals()
        #expect(n[0] == SIMD3(0, 0, 1))
        #expect(n.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
    }
}

@Suite struct AtomicOutputTests {
    @Test func failedTransactionLeavesNothingAndKeepsOldFile() throws {
        let dir = makeTempDir()
        let keep = dir + "/face.stl"
        writeText("previous", to: keep)
        let t = OutputTransaction()
        try t.stage(Array("new".utf8), to: keep)
        // A second output fails (its directory is missing): the whole transaction is abandoned.
        #expect(throws: IOFailure.self) { try t.stage([1], to: dir + "/missing/face.obj") }
        t.abort()
        #expect(try String(contentsOfFile: keep, encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["face.stl"])
    }

    @Test func commitReplacesAndRefusesSymlinks() throws {
        let dir = makeTempDir()
        try OutputTransaction.write(Array("one".utf8), to: dir + "/a.obj")
        try OutputTransaction.write(Array("two".utf8), to: dir + "/a.obj")
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.stl", withDestinationPath: dir + "/a.obj")
        #expect(throws: IOFailure.self) { try OutputTransaction.write([1], to: dir + "/link.stl") }
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.obj", "link.stl"])
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
        plain.normalOnly = true
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
        o.normalOnly = true
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
