import Foundation
import Testing

@testable import FaceScanKit
@testable import FaceScanSmooth

/// A curved open patch (part of a sphere of radius `radius`, seen from +z), `side × side` vertices
/// `spacing` apart in x and y, 0.4 m in front of the camera: its topology and positions (flat xyz).
private func cap(side: Int, spacing: Float, radius: Float) -> (Topology, [Float]) {
    var xyz: [Float] = []
    let c = Float(side - 1) / 2
    for y in 0..<side {
        for x in 0..<side {
            let px = (Float(x) - c) * spacing, py = (Float(y) - c) * spacing
            // A ridge along y on a sphere: detail a smoothing can erode.
            let ridge: Float = abs(px) < spacing * 1.5 ? 0.6 * spacing : 0
            xyz += [px, py, (radius * radius - px * px - py * py).squareRoot() - radius - 0.4 + ridge]
        }
    }
    return (Topology(triangles: gridTriangles(side: side)), xyz)
}

/// RMS distance (metres) between the vertices of `mesh` and `truth` (flat xyz), along `truth`'s
/// vertex normals, area-weighted as `AutoSmoothing` scores.
private func normalError(_ mesh: Mesh, _ truth: [Float], _ topology: Topology) -> Double {
    let t = Mesh(
        uncheckedPositions: stride(from: 0, to: truth.count, by: 3).map {
            SIMD3(truth[$0], truth[$0 + 1], truth[$0 + 2])
        },
        triangles: topology.triangles)
    let normals = t.vertexNormals(), area = AutoSmoothing.vertexAreas(t)
    var sum = 0.0
    for v in 0..<t.vertexCount {
        let d = Double(((mesh.positions[v] - t.positions[v]) * normals[v]).sum())
        sum += area[v] * d * d
    }
    return sum.squareRoot()
}

/// The session's result for `frames` noisy copies of `truth` (independent noise `noise` metres
/// per coordinate plus a whole-shape wobble `wobble` metres), smoothed as `smoothing` says, at the
/// capture's own vertex count.
private func scan(
    _ topology: Topology, _ truth: [Float], frames: Int, noise: Double, wobble: Double, seed: UInt64,
    smoothing: Smoothing
) throws -> ScanResult {
    var settings = ScanSettings(maxFrames: frames, targetVertices: truth.count / 3, smoothing: smoothing)
    settings.units = .m
    var session = try FaceScanSession(topology: topology, settings: settings)
    var rng = SplitMix64(seed: seed)
    for _ in 0..<frames {
        let w = rng.gaussian() * wobble
        var xyz = truth
        for i in 0..<xyz.count {
            // The wobble: a smooth bulge of the whole patch, the same shape every frame.
            let v = i / 3 * 3
            let bulge = i % 3 == 2 ? Double(1 - 20 * (truth[v] * truth[v] + truth[v + 1] * truth[v + 1])) * w : 0
            xyz[i] += Float(rng.gaussian() * noise + bulge)
        }
        _ = try session.add(Frame(xyz: xyz, metadata: FrameMetadata(distance: 0.4, ambientIntensity: 1000)))
    }
    return try session.finish()
}

@Suite struct AutoSmoothingTests {
    /// The noise samples estimate the mean's noise: Σ‖s‖² ≈ tr Σ = 3 n σ²/N for independent
    /// noise σ over N frames (to the sampling error of 3 degrees of freedom per coordinate,
    /// averaged over many coordinates), and nil with one frame.
    @Test func noiseSamplesMeasureTheNoiseOfTheMean() {
        let n = 500, frames = 40, sigma = 1e-3
        var acc = Accumulator(vertexCount: n)
        var rng = SplitMix64(seed: 7)
        acc.add([Float](repeating: 0, count: 3 * n))
        #expect(acc.noiseSamples() == nil)
        for _ in 1..<frames { acc.add((0..<(3 * n)).map { _ in Float(rng.gaussian() * sigma) }) }
        let samples = acc.noiseSamples()!
        #expect(samples.count == Accumulator.groups)
        let trace = samples.reduce(0) { $0 + $1.reduce(0) { $0 + $1 * $1 } }
        let expected = 3 * Double(n) * sigma * sigma / Double(frames)
        #expect(abs(trace / expected - 1) < 0.1, "\(trace / expected)")
    }

    /// Adding frames in groups leaves the mean and spread exactly as the plain running mean has them.
    @Test func groupsDoNotChangeTheMean() {
        var acc = Accumulator(vertexCount: 2)
        let frames: [[Float]] = [
            [1, 2, 3, 4, 5, 6], [2, 2, 2, 2, 2, 2], [0, 1, 0, 1, 0, 1], [3, 3, 3, 3, 3, 3], [1, 1, 1, 1, 1, 1],
        ]
        for f in frames { acc.add(f) }
        for i in 0..<6 {
            let mean = frames.reduce(0.0) { $0 + Double($1[i]) } / Double(frames.count)
            #expect(abs(acc.means[i] - mean) < 1e-12)
        }
    }

    /// On a coarse mesh (ARKit-like: 6 mm edges, little noise) `auto` is never worse than no
    /// smoothing by more than 5 %, whatever the seed; on a dense noisy one it smooths and beats
    /// no smoothing clearly, and is within 5 % of the best fixed pass count.
    @Test(arguments: [UInt64(1), 2, 3])
    func autoIsNeverMuchWorseThanTheBestFixedCount(seed: UInt64) throws {
        for (side, spacing, noise, frames) in [(13, Float(0.006), 0.5e-3, 40), (31, Float(0.002), 1.1e-3, 30)] {
            let (topology, truth) = cap(side: side, spacing: spacing, radius: 0.09)
            func error(_ s: Smoothing) throws -> Double {
                let r = try scan(topology, truth, frames: frames, noise: noise, wobble: 2e-4, seed: seed, smoothing: s)
                return normalError(r.mesh, truth, topology)
            }
            let fixed = try (0...8).map { try error(.passes($0)) }
            let auto = try error(.auto)
            let best = fixed.min()!
            #expect(auto <= 1.05 * fixed[0], "side \(side): auto \(auto), none \(fixed[0])")
            #expect(auto <= 1.05 * best, "side \(side): auto \(auto), fixed \(fixed)")
            if side == 31 { #expect(auto < 0.8 * fixed[0], "auto \(auto), none \(fixed[0])") }
        }
    }

    /// The report says what was chosen and why, and how noisy the average is; the result carries
    /// each vertex's standard error; the session tells how many frames reach a target.
    @Test func reportAndSessionShowTheNoise() throws {
        let (topology, truth) = cap(side: 9, spacing: 0.006, radius: 0.09)
        let r = try scan(topology, truth, frames: 16, noise: 1e-3, wobble: 0, seed: 5, smoothing: .auto)
        let noise = try #require(r.report.noise)
        // σ/√N = 250 µm per coordinate.
        #expect(noise.medianStandardErrorUm > 180 && noise.medianStandardErrorUm < 320, "\(noise)")
        #expect(noise.p95StandardErrorUm >= noise.medianStandardErrorUm)
        let smoothing = try #require(r.report.smoothing)
        #expect(smoothing.automatic)
        #expect(smoothing.reason.contains("chosen from the measured noise"))
        #expect(r.standardErrors?.count == truth.count / 3)
        #expect(r.averagedFace?.vertexCount == truth.count / 3)
        let json = r.report.json.serialized()
        #expect(json.contains("\"noise\":{\"medianStandardErrorUm\":"))
        #expect(json.contains("\"smoothing\":{\"passes\":\(smoothing.passes),\"mode\":\"auto\""))

        var session = try FaceScanSession(topology: topology, settings: ScanSettings(maxFrames: 100))
        #expect(session.medianStandardError == nil)
        var rng = SplitMix64(seed: 9)
        for _ in 0..<16 {
            let xyz = truth.map { $0 + Float(rng.gaussian() * 1e-3) }
            _ = try session.add(Frame(xyz: xyz, metadata: FrameMetadata(distance: 0.4, ambientIntensity: 1000)))
        }
        let se = try #require(session.medianStandardError)
        let more = try #require(session.framesNeeded(forMedianStandardError: se / 2))
        // Half the error takes four times the frames: about 3 × 16 more.
        #expect((44...52).contains(more), "\(more)")
        #expect(session.framesNeeded(forMedianStandardError: se * 2) == 0)
        #expect(session.framesNeeded(forMedianStandardError: 0) == nil)
    }

    /// Each region takes the pass count whose pooled estimate is least there: on a grid whose left
    /// half's estimates are least at 2 passes and right half's at 6, vertices well inside either
    /// half get that count; where the estimates are a parabola with its least value between two
    /// counts, the fractional count is that value.
    @Test func eachRegionTakesItsOwnCount() {
        let side = 60
        let adjacency = Adjacency(triangles: gridTriangles(side: side), vertexCount: side * side)
        let counts = 0...8
        func x(_ v: Int) -> Int { v % side }
        let halves = counts.map { k in
            (0..<(side * side)).map { v in
                let m = Double(x(v) < side / 2 ? 2 : 6)
                return (Double(k) - m) * (Double(k) - m)
            }
        }
        let amounts = AutoSmoothing.pool(.init(halves, vertices: side * side), adjacency: adjacency)
        for v in 0..<(side * side) where x(v) < 5 || x(v) >= side - 5 {
            #expect(amounts[v] == (x(v) < 5 ? 2 : 6), "vertex \(v): \(amounts[v])")
        }
        let between = counts.map { k in [Double](repeating: (Double(k) - 3.3) * (Double(k) - 3.3), count: side * side) }
        // The terms are pooled in single precision.
        for a in AutoSmoothing.pool(.init(between, vertices: side * side), adjacency: adjacency) {
            #expect(abs(a - 3.3) < 1e-4)
        }
    }

    /// `auto` or a whole number of passes, from text and JSON alike; nothing else.
    @Test func smoothingSettingParses() throws {
        #expect(Smoothing("auto") == .auto)
        #expect(Smoothing("3") == .passes(3))
        #expect(Smoothing("-1") == nil)
        #expect(Smoothing("two") == nil)
        #expect(ScanSettings().smoothing == .auto)
        let data = try JSONEncoder().encode([Smoothing.auto, .passes(2)])
        #expect(String(decoding: data, as: UTF8.self) == "[\"auto\",2]")
        #expect(try JSONDecoder().decode([Smoothing].self, from: data) == [.auto, .passes(2)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Smoothing].self, from: Data("[\"x\"]".utf8)) }
    }

    /// The directions carried through a pass are the operator's derivative: with the run's own
    /// constraints (cotangent weights, bilateral weight, normal-only, displacement bound) J·s
    /// matches the finite difference (f(y + εs) − f(y))/ε, and carrying directions moves the
    /// positions exactly as carrying none (same bits).
    @Test func carriedDirectionsAreTheDerivative() {
        let (topology, xyz) = cap(side: 12, spacing: 0.004, radius: 0.09)
        var rng = SplitMix64(seed: 11)
        let n = xyz.count / 3
        let positions = (0..<n).map {
            SIMD3(xyz[3 * $0], xyz[3 * $0 + 1], xyz[3 * $0 + 2] + Float(rng.gaussian() * 1e-4))
        }
        let mesh = Mesh(uncheckedPositions: positions, triangles: topology.triangles)
        let adj = Adjacency(triangles: mesh.triangles, vertexCount: n)
        var options = TaubinOptions(iterations: 0, weights: .cotangent)
        options.displacementLimit = [Float](repeating: 2e-4, count: n)
        options.featureScale = [Float](repeating: 2e-4, count: n)
        let op = Taubin.Operator(mesh, adjacency: adj, options: options)
        let y = mesh.positions.map { SIMD3<Double>($0) }
        let dir = (0..<n).map { _ in SIMD3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 3e-5 }
        let eps = 1e-3
        var plain = op.start(y), carried = op.start(y, carrying: [dir])
        var moved = op.start(zip(y, dir).map { $0 + eps * $1 })
        var miss = 0.0, size = 0.0  // Σ‖fd − J·s‖², Σ‖fd‖²
        for _ in 0..<4 {
            op.pass(&plain)
            op.pass(&carried)
            op.pass(&moved)
            let p = op.positions(plain), q = op.positions(moved)
            #expect(p == op.positions(carried))
            var js: [SIMD3<Float>] = []
            op.appendMoved(carried, lane: 1, to: &js)
            for v in 0..<n {
                let fd = (q[v] - p[v]) / eps
                let d = fd - (dir[v] + SIMD3<Double>(js[v]))
                miss += (d * d).sum()
                size += (fd * fd).sum()
            }
        }
        #expect(size > 0)
        #expect(miss < 1e-4 * size, "RMS miss \(miss.squareRoot()) of \(size.squareRoot())")
    }

    /// From three noise samples (three frames, which add up to zero with equal weights) the two
    /// Helmert probes carry the very sum Σ_g s_gᵀ J s_g: the estimate does not depend on the
    /// samples' order, and a lane is left for the accuracy perturbation, so the residual noise
    /// comes from the chosen passes themselves. The session's noise after smoothing is below the
    /// noise before on a three-frame capture.
    @Test func threeSamplesGiveTwoProbesAndTheResidual() throws {
        let (topology, truth) = cap(side: 13, spacing: 0.004, radius: 0.09)
        let mesh = Mesh(
            uncheckedPositions: stride(from: 0, to: truth.count, by: 3).map {
                SIMD3(truth[$0], truth[$0 + 1], truth[$0 + 2])
            },
            triangles: topology.triangles)
        let n = mesh.vertexCount
        let adj = Adjacency(triangles: mesh.triangles, vertexCount: n)
        var rng = SplitMix64(seed: 11)
        let a = (0..<3 * n).map { _ in rng.gaussian() * 2e-4 }, b = (0..<3 * n).map { _ in rng.gaussian() * 2e-4 }
        let c = zip(a, b).map { -$0 - $1 }  // the three add up to zero
        let perturbation = (0..<n).map { _ in rng.gaussian() * 1e-4 }
        let options = TaubinOptions(iterations: 0, weights: .cotangent)
        let one = AutoSmoothing.choose(
            mesh: mesh, adjacency: adj, options: options, noise: [a, b, c], perturbation: perturbation)
        let other = AutoSmoothing.choose(
            mesh: mesh, adjacency: adj, options: options, noise: [c, a, b], perturbation: perturbation)
        let e1 = try #require(one.estimatedError), e2 = try #require(other.estimatedError)
        #expect(e1.count == e2.count)
        for (x, y) in zip(e1, e2) { #expect(abs(x - y) <= 1e-5 * max(x, y), "\(e1) vs \(e2)") }
        let residual = try #require(one.residualNoise)
        #expect(residual > 0 && residual < NoiseEstimate.rms(perturbation), "\(residual)")

        let r = try scan(topology, truth, frames: 3, noise: 5e-4, wobble: 0, seed: 4, smoothing: .auto)
        let accuracy = try #require(r.report.accuracy)
        #expect(accuracy.noiseAfterUm < accuracy.noiseBeforeUm, "\(accuracy)")
    }

    /// The pooling's vector kernel gives the scalar code's result bit for bit (the lanes' sums in
    /// the same order), on a grid with boundary and interior vertices.
    @Test func ringAverageVectorIsTheScalarResult() {
        let side = 17
        let n = side * side
        let adj = Adjacency(triangles: gridTriangles(side: side), vertexCount: n)
        var rng = SplitMix64(seed: 21)
        let values = (0..<7 * n).map { _ in
            SIMD4<Float>(Float(rng.gaussian()), Float(rng.gaussian()), Float(rng.gaussian()), Float(rng.gaussian()))
        }
        let vector = Taubin.ringAverage(values, adjacency: adj, rounds: 20)
        let scalar = Taubin.ringAverage(values, adjacency: adj, rounds: 20, vector: false)
        #expect(vector.count == scalar.count)
        #expect(zip(vector, scalar).allSatisfy { $0.0 == $0.1 })
        #expect(vector != values)
    }
}
