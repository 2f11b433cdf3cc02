import FaceScanAccumulate
import FaceScanCapture
import FaceScanCore
import FaceScanGate
import Foundation
import Testing

@testable import FaceScanKit

/// A synthetic held-still capture on a `side × side` grid (2 mm spacing, 0.4 m from the camera):
/// a resting face (a gentle dome), an "eyelid" patch that a blink moves by up to `blinkMm` and a
/// "mouth" patch that a drifting smile moves, both smooth fields known per vertex, plus iid
/// sensor noise of `noiseMm` per coordinate. Blinks (coefficient 0.5–1) in about every 8th
/// frame; the smile drifts between 0 and 0.1, resting (0) about half the time.
private struct HeldStill {
    let side = 40
    var frames = 90
    var noiseMm = 0.3
    var blinkMm = 4.0
    /// The eyelid's width (grid steps, a Gaussian's σ): 3 is a dense face's lid, 1 an
    /// ARKit-sized one's (a few vertices wide).
    var lidRadius = 3.0
    var withBlendShapes = true

    var topology: Topology { Topology(triangles: gridTriangles(side: side)) }

    /// The resting face (metres, flat xyz).
    var rest: [Float] {
        var xyz: [Float] = []
        for y in 0..<side {
            for x in 0..<side {
                let u = Double(x - side / 2) * 0.002, v = Double(y - side / 2) * 0.002
                xyz += [Float(u), Float(v), Float(-0.4 + 0.02 - 8 * (u * u + v * v))]
            }
        }
        return xyz
    }

    /// Per-vertex response (metres per unit coefficient) of a bump centred at grid (cx, cy).
    func bump(_ cx: Double, _ cy: Double, radius: Double, peak: Double, direction: SIMD3<Double>) -> [Double] {
        var r: [Double] = []
        for y in 0..<side {
            for x in 0..<side {
                let d2 = (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)
                let a = peak * exp(-d2 / (2 * radius * radius))
                r += [a * direction.x, a * direction.y, a * direction.z]
            }
        }
        return r
    }

    var blinkResponse: [Double] { bump(10, 28, radius: lidRadius, peak: blinkMm * 1e-3, direction: [0, -1, 0.3]) }
    var smileResponse: [Double] { bump(28, 10, radius: 3, peak: 3e-3, direction: [1, 0.5, 0]) }

    /// The eyelid patch: vertices the blink moves by more than 1 mm.
    var eyelid: [Int] {
        let b = blinkResponse
        return (0..<side * side).filter { v in
            (b[3 * v] * b[3 * v] + b[3 * v + 1] * b[3 * v + 1] + b[3 * v + 2] * b[3 * v + 2]).squareRoot() > 1e-3
        }
    }

    func make(seed: UInt64 = 1) -> [Frame] {
        var rng = SplitMix64(seed: seed)
        let rest = rest, blink = blinkResponse, smile = smileResponse
        var out: [Frame] = []
        var walk = 0.0
        for i in 0..<frames {
            let blinkValue = i % 8 == 3 ? 0.5 + 0.5 * Double(i % 3) / 2 : 0
            walk = 0.9 * walk + 0.44 * 0.05 * rng.gaussian()
            let smileValue = max(0, walk)
            var xyz = [Float](repeating: 0, count: rest.count)
            for j in 0..<rest.count {
                let x = Double(rest[j]) + blinkValue * blink[j] + smileValue * smile[j]
                xyz[j] = Float(x + noiseMm * 1e-3 * rng.gaussian())
            }
            var meta = FrameMetadata(distance: 0.4, ambientIntensity: 1000)
            if withBlendShapes {
                meta.blendShapes = [
                    "eyeBlinkLeft": blinkValue, "eyeBlinkRight": blinkValue, "mouthSmileLeft": smileValue,
                    "jawOpen": 0,
                ]
                meta.mouthSmileLeft = smileValue
                meta.jawOpen = 0
            }
            out.append(Frame(index: i, xyz: xyz, metadata: meta))
        }
        return out
    }
}

/// The largest distance (metres) over `vertices` between two flat-xyz / position arrays.
private func largestError(_ mesh: [SIMD3<Float>], _ truth: [Float], _ vertices: [Int]) -> Double {
    vertices.map { v in
        let d = SIMD3<Double>(
            Double(mesh[v].x - truth[3 * v]), Double(mesh[v].y - truth[3 * v + 1]), Double(mesh[v].z - truth[3 * v + 2])
        )
        return (d * d).sum().squareRoot()
    }.max() ?? 0
}

private func scan(_ capture: HeldStill, _ frames: [Frame]) throws -> ScanResult {
    var settings = ScanSettings()
    settings.maxFrames = capture.frames
    settings.targetVertices = capture.side * capture.side
    settings.smoothing = .passes(0)
    settings.units = .m
    var session = try FaceScanSession(topology: capture.topology, settings: settings)
    for f in frames { _ = try session.add(f) }
    return try session.finish()
}

@Suite struct ExpressionModelTests {
    /// Blinks in an eighth of the frames pull the plain average's eyelid by ~0.5 mm; with the
    /// frames' blend shapes the resting face is recovered within noise there (eyes open), and the
    /// report says what was removed where.
    @Test func restingFaceRecoveredWithTheEyesOpen() throws {
        let capture = HeldStill()
        let truth = capture.rest, lid = capture.eyelid
        #expect(lid.count > 20)
        var plainCapture = capture
        plainCapture.withBlendShapes = false
        let plain = try scan(plainCapture, plainCapture.make())
        let modelled = try scan(capture, capture.make())
        let plainError = largestError(plain.averagedFace!.positions, truth, lid)
        let modelError = largestError(modelled.averagedFace!.positions, truth, lid)
        // The plain mean: up to blink share (1/8) × mean blink (0.75) × 4 mm ≈ 0.37 mm at the peak
        // (less where the strongest blinks are left out as outliers).
        #expect(plainError > 0.25e-3)
        // The resting face: within a few standard errors (0.3 mm / √90 ≈ 32 µm per coordinate)
        // plus what the smoothing of the correction blurs at the peak.
        #expect(modelError < 0.2e-3, "eyelid off by \(modelError * 1e6) µm (plain mean \(plainError * 1e6) µm)")
        #expect(modelError < 0.5 * plainError)
        // Everywhere: no vertex worse than that.
        let all = Array(0..<(capture.side * capture.side))
        #expect(largestError(modelled.averagedFace!.positions, truth, all) < 0.2e-3)
        let e = try #require(modelled.report.expression)
        #expect(e.coefficients.contains("eyeBlinkLeft"))
        #expect(e.removedUm.eyes > 150 && e.removedUm.eyes < 1200)
        #expect(e.removedUm.brows == 0)
        #expect(e.verticesModelled >= lid.count)
        #expect(plain.report.expression == nil)
    }

    /// An eyelid only a few vertices wide (as on ARKit's 1 220-vertex mesh): the 8-pass smoothing
    /// alone would spread its correction over the neighbours and leave the lid most of the
    /// blinks' pull (about 0.6 mm) closed; the correction takes the raw response back where it
    /// differs from the smoothed one beyond its noise, so the lid is open within noise.
    @Test func sharpEyelidStaysOpen() throws {
        var capture = HeldStill()
        capture.lidRadius = 1
        capture.blinkMm = 6
        let truth = capture.rest
        let lid = capture.eyelid
        #expect(lid.count >= 5 && lid.count <= 30, "\(lid.count) eyelid vertices")
        var plainCapture = capture
        plainCapture.withBlendShapes = false
        let frames = capture.make(seed: 11)
        let plain = try scan(plainCapture, plainCapture.make(seed: 11))
        let modelled = try scan(capture, frames)
        let plainError = largestError(plain.averagedFace!.positions, truth, lid)
        let modelError = largestError(modelled.averagedFace!.positions, truth, lid)
        #expect(plainError > 0.4e-3, "plain mean \(plainError * 1e6) µm")
        // Raw regression noise at the lid: 0.3 mm × √(1/90 + g) per coordinate, g small (the
        // blinks span the coefficient); the largest of ~10 vertices × 3 coordinates.
        #expect(modelError < 0.15e-3, "eyelid off by \(modelError * 1e6) µm (plain mean \(plainError * 1e6) µm)")
        let all = Array(0..<(capture.side * capture.side))
        #expect(largestError(modelled.averagedFace!.positions, truth, all) < 0.2e-3)
        let e = try #require(modelled.report.expression)
        #expect(e.removedUm.eyes > 300)
    }

    /// Six mouth coefficients drift (never below 0, resting at 0), each moving its own patch of a
    /// 40 × 40 grid: a vertex carries only the terms whose response its surface shows, so the
    /// correction's noise (each fitted term adds about (c_rest − c̄)²/var c of the mean's noise
    /// variance) stays off the vertices a coefficient does not move — most of all the part of
    /// the noise that is smooth over the face (the tracker's fit wobbling, here a tilt), which
    /// no smoothing of the correction removes. Compared with every term fitted at every vertex,
    /// on the same statistics.
    @Test func supportsKeepTheNoiseOfOtherTermsOut() throws {
        let capture = HeldStill()
        let side = capture.side, count = side * side
        let names = ["jawOpen", "mouthFunnel", "mouthPucker", "mouthRollLower", "mouthSmileLeft", "mouthSmileRight"]
        let centres: [(Double, Double)] = [(8, 8), (20, 8), (32, 8), (8, 30), (20, 30), (32, 30)]
        let responses = centres.map { capture.bump($0.0, $0.1, radius: 2.5, peak: 4e-3, direction: [0.3, -0.6, 1]) }
        let rest = capture.rest
        var rng = SplitMix64(seed: 21)
        var walks = [Double](repeating: 0, count: names.count)
        var acc = RobustAccumulator(vertexCount: count, rejectOutliers: false)
        for _ in 0..<120 {
            var shapes: [String: Double] = [:]
            var xyz = [Float](repeating: 0, count: 3 * count)
            for k in 0..<names.count {
                walks[k] = 0.9 * walks[k] + 0.44 * 0.1 * rng.gaussian()
                shapes[names[k]] = max(0, walks[k])
            }
            // The tracker's fit wobbles: a tilt of the whole grid, smooth, its own size each frame.
            let wobble = 0.3e-3 * rng.gaussian()
            for j in 0..<(3 * count) {
                let tilt = j % 3 == 2 ? wobble * Double((j / 3) % side - side / 2) / Double(side / 2) : 0
                var x = Double(rest[j]) + 0.3e-3 * rng.gaussian() + tilt
                for k in 0..<names.count { x += shapes[names[k]]! * responses[k][j] }
                xyz[j] = Float(x)
            }
            acc.add(xyz, blendShapes: shapes)
        }
        acc.finish()
        let triangles = gridTriangles(side: side)
        let supported = try #require(acc.expression.resting(acc.accumulator, triangles: triangles))
        let everywhere = try #require(
            acc.expression.resting(acc.accumulator, triangles: triangles, supportTerms: false))
        func rms(_ mesh: [SIMD3<Float>]) -> Double {
            var s = 0.0
            for v in 0..<count {
                for i in 0..<3 { s += pow(Double(mesh[v][i]) - Double(rest[3 * v + i]), 2) }
            }
            return (s / Double(count)).squareRoot()
        }
        let plainError = rms(acc.accumulator.mean()!), supportedError = rms(supported.mean)
        let everywhereError = rms(everywhere.mean)
        // Measured: plain mean 69.8 µm, every term at every vertex 65.5 µm, supports 56.7 µm.
        #expect(supportedError < everywhereError * 0.9, "\(supportedError * 1e6) vs \(everywhereError * 1e6) µm")
        #expect(supportedError < plainError)
    }

    /// Each region's correction takes as many smoothing passes as its own noise calls for
    /// (Stein's unbiased risk estimate): an eyelid a vertex wide, measured well (blinks of 6 mm
    /// against 0.3 mm of noise), takes fewer than the 8 passes that would spread it over its
    /// neighbours; a region without a shift (no brow coefficient) takes none.
    @Test func sharpResponseKeepsFewerPasses() throws {
        var capture = HeldStill()
        capture.lidRadius = 1
        capture.blinkMm = 6
        var acc = RobustAccumulator(vertexCount: capture.side * capture.side, rejectOutliers: false)
        for f in capture.make(seed: 11) { acc.add(f.xyz, blendShapes: f.metadata.blendShapes) }
        acc.finish()
        let resting = try #require(
            acc.expression.resting(acc.accumulator, triangles: gridTriangles(side: capture.side)))
        let passes = resting.smoothingPasses
        #expect(passes.count == 4)
        #expect(passes[0] < ExpressionStatistics.smoothingPasses, "eyes: \(passes[0]) passes")
        #expect(passes[1] == 0, "brows: \(passes[1]) passes")
    }

    /// The F test's O(n) quantile check agrees with the sorted quantile on every side of the
    /// limit, ties and small arrays included.
    @Test func quantileExceedsMatchesTheSortedQuantile() {
        var rng = SplitMix64(seed: 9)
        for trial in 0..<400 {
            let count = 1 + trial % 37
            var x: [Double] = []
            for _ in 0..<count { x.append((4 * rng.nextUnit()).rounded(.down) + (trial % 2 == 0 ? rng.nextUnit() : 0)) }
            for q in [0.0, 0.5, 0.9, 0.999, 1.0] {
                for limit in [-1.0, 0.5, 1.0, 2.0, 2.5, 3.0, 3.999, 5.0] {
                    let sorted = ExpressionStatistics.quantile(x, q) > limit
                    #expect(ExpressionStatistics.quantileExceeds(x, q, limit) == sorted, "\(x) q \(q) limit \(limit)")
                }
            }
        }
    }

    /// The standard error includes what the model leaves unexplained: larger on the eyelid
    /// (the correction's own noise) than on the still part of the face, where it is the plain one.
    @Test func standardErrorCountsTheModel() throws {
        let capture = HeldStill()
        var plainCapture = capture
        plainCapture.withBlendShapes = false
        let frames = capture.make(seed: 3)
        let modelled = try scan(capture, frames)
        let plain = try scan(plainCapture, plainCapture.make(seed: 3))
        let se = try #require(modelled.standardErrors), plainSE = try #require(plain.standardErrors)
        let lid = capture.eyelid
        let lidSE = lid.map { se[$0] }.reduce(0, +) / Double(lid.count)
        let lidPlainSE = lid.map { plainSE[$0] }.reduce(0, +) / Double(lid.count)
        // Far from both patches (12 grid steps or more): untouched by the model, the plain
        // standard error exactly (but for the odd vertex where noise passes the test).
        let far = (0..<se.count).filter { v in
            let (x, y) = (Double(v % capture.side), Double(v / capture.side))
            return min(hypot(x - 10, y - 28), hypot(x - 28, y - 10)) >= 12
        }
        let farSE = far.map { se[$0] }.reduce(0, +) / Double(far.count)
        #expect(lidSE > farSE)
        let untouched = far.filter { se[$0] == plainSE[$0] }.count
        #expect(Double(untouched) > 0.9 * Double(far.count), "\(untouched) of \(far.count)")
        // The plain mean's spread on the eyelid is mostly the blinks, not noise: the model's is less.
        #expect(lidSE < lidPlainSE)
    }

    /// Frames without blend shapes, and frames whose coefficients never change, give exactly the
    /// plain average of before: same positions, standard errors and report.
    @Test func noVaryingBlendShapesIsThePlainAverage() throws {
        var capture = HeldStill()
        capture.withBlendShapes = false
        let frames = capture.make(seed: 5)
        let none = try scan(capture, frames)
        let constant = try scan(
            capture,
            frames.map { f in
                var f = f
                f.metadata.blendShapes = ["eyeBlinkLeft": 0.1, "jawOpen": 0.05]
                return f
            })
        // The plain path computed directly.
        var acc = RobustAccumulator(vertexCount: capture.side * capture.side)
        for f in frames { acc.add(f.xyz) }
        acc.finish()
        let direct = try #require(acc.accumulator.mean())
        #expect(none.averagedFace!.positions == direct)
        #expect(constant.averagedFace!.positions == direct)
        #expect(none.standardErrors == acc.accumulator.standardErrors())
        #expect(constant.standardErrors == none.standardErrors)
        #expect(none.mesh.positions == constant.mesh.positions)
        #expect(constant.report.expression == nil)
    }

    /// An accepted frame that blinks, smiles or moves its mouth or brows says so, in the short
    /// words of the other instructions; a still one says nothing; a rejected one keeps its reason.
    @Test func holdStillVerdicts() throws {
        let capture = HeldStill()
        var settings = ScanSettings()
        settings.maxFrames = 100
        var session = try FaceScanSession(topology: capture.topology, settings: settings)
        let frames = capture.make()
        func still(_ i: Int) -> Frame {
            var f = frames[i]
            f.metadata.blendShapes = ["eyeBlinkLeft": 0.05, "mouthSmileLeft": 0.02, "jawOpen": 0.01, "browInnerUp": 0]
            return f
        }
        for i in 0..<10 { #expect(try session.add(still(i)).instruction == nil) }
        let cases: [([String: Double], String?)] = [
            (["eyeBlinkLeft": 0.9, "eyeBlinkRight": 0.85], "Hold still: you blinked"),
            (["mouthSmileLeft": 0.45], "Hold still: you smiled"),
            (["jawOpen": 0.38], "Hold still: you moved your mouth"),
            (["browInnerUp": 0.45], "Hold still: you moved your brows"),
            (["eyeBlinkLeft": 0.2], nil),
            (["eyeLookInLeft": 0.9], nil),
        ]
        for (i, (shapes, text)) in cases.enumerated() {
            var f = still(10 + i)
            for (k, v) in shapes { f.metadata.blendShapes[k] = v }
            let verdict = try session.add(f)
            #expect(verdict.isAccepted)
            #expect(verdict.rejection == nil)
            #expect(verdict.instruction == text, "\(shapes)")
        }
        #expect(Guidance.blinked.rejection == .expression)
        // Rejected frames keep their own reason and words.
        var far = still(20)
        far.metadata.distance = 0.8
        far.metadata.blendShapes["eyeBlinkLeft"] = 1
        #expect(try session.add(far).instruction == "Move closer")
    }

    /// Every blend shape of a capture is read, by the name it has in the file.
    @Test func readerKeepsEveryBlendShape() throws {
        let json = """
            {"format":"facescan-capture","version":1,"topology":{"triangleIndices":[0,1,2]},
             "frames":[{"vertices":[0,0,0,1,0,0,0,1,0],"blendShapes":{"eyeBlinkLeft":0.25,"jawOpen":0.5,"cheekPuff":1}}]}
            """
        let reader = CaptureReader(bytes: Array(json.utf8), name: "c.json")
        try reader.readHeader()
        var f = Frame()
        #expect(try reader.nextFrame(&f))
        #expect(f.metadata.blendShapes == ["eyeBlinkLeft": 0.25, "jawOpen": 0.5, "cheekPuff": 1])
        #expect(f.metadata.jawOpen == 0.5)
    }
}
