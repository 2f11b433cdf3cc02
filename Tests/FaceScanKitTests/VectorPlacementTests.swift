import CSIMD
import Testing

@testable import FaceScanDecimate
@testable import FaceScanKit

/// The AVX2 kernel that places interior edge collapses four at a time must give the scalar
/// placement's bits exactly, so that a decimation's output bytes do not depend on the CPU.
struct VectorPlacementTests {
    /// Per vertex a quadric and a position; per edge a candidate (its ends; the kernel fills in
    /// the placement and cost).
    struct Edges {
        var quadrics: [Quadric] = []
        var positions: [SIMD3<Float>] = []
        var candidates: [Candidate] = []
    }

    static let centre = SIMD3<Double>(0.01, -0.02, 0.3)

    /// Quadrics of every kind the placement meets: several planes (exact minimum), two or one
    /// (regularised towards the midpoint), none (no placement), and huge ones (a non-finite
    /// solution), paired in mixed groups of four; 4k + 3 edges, so the last group is partial.
    static func edges(seed: UInt64) -> Edges {
        var rng = MeshRNG(seed: seed)
        var e = Edges()
        func unit() -> SIMD3<Double> {
            let v = SIMD3<Double>(
                Double(rng.nextUnit()) - 0.5, Double(rng.nextUnit()) - 0.5, Double(rng.nextUnit()) - 0.5)
            let l = (v * v).sum().squareRoot()
            return l > 0 ? v / l : SIMD3(0, 0, 1)
        }
        for v in 0..<64 {
            let p = SIMD3<Float>(
                Float(rng.nextUnit()) * 0.1 - 0.05, Float(rng.nextUnit()) * 0.1 - 0.05,
                0.3 + Float(rng.nextUnit()) * 0.02)
            let local = SIMD3<Double>(p) - centre
            var q = Quadric()
            let planes = [3, 2, 1, 0, 4][v % 5]
            for _ in 0..<planes {
                let n = unit()
                let offset = Double(rng.nextUnit()) * 1e-3
                q.add(Quadric(plane: n, d: -(n * local).sum() + offset, weight: Double(rng.nextUnit()) * 1e-6))
            }
            if v % 13 == 12 {
                // Far beyond any mesh: the solution overflows.
                q = Quadric(plane: SIMD3(1, 0, 0), d: -1e300, weight: 1e300)
            }
            e.quadrics.append(q)
            e.positions.append(p)
        }
        for k in 0..<(4 * 40 + 3) {
            let a = UInt32(rng.next() % 64), b = UInt32((UInt64(a) + 1 + rng.next() % 63) % 64)
            e.candidates.append(Candidate(x: 0, y: 0, z: 0, cost: Float(k), drop: max(a, b), keep: min(a, b)))
        }
        return e
    }

    /// The scalar code's result for an edge, or nil when `regularisedMinimum` gives none.
    static func scalar(_ e: Edges, _ c: Candidate) -> (SIMD3<Float>, Float)? {
        var q = e.quadrics[Int(c.drop)]
        q.add(e.quadrics[Int(c.keep)])
        let mid =
            ((SIMD3<Double>(e.positions[Int(c.drop)]) - centre) + (SIMD3<Double>(e.positions[Int(c.keep)]) - centre))
            * 0.5
        guard let x = q.regularisedMinimum(near: mid) else { return nil }
        let cost = q.evaluate(x)
        return (SIMD3<Float>(x + centre), cost > 0 ? Float(cost) : 0)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func kernelMatchesTheScalarPlacementBitForBit(seed: UInt64) throws {
        var e = Self.edges(seed: seed)
        let expected = e.candidates.map { Self.scalar(e, $0) }
        // Every kind of edge is present: exact, regularised, and handed back.
        let regularised = e.candidates.filter { c in
            var q = e.quadrics[Int(c.drop)]
            q.add(e.quadrics[Int(c.keep)])
            let trace = q.a00 + q.a11 + q.a22
            let det =
                q.a00 * (q.a11 * q.a22 - q.a12 * q.a12) + q.a01 * (q.a02 * q.a12 - q.a01 * q.a22)
                + q.a02 * (q.a01 * q.a12 - q.a02 * q.a11)
            return trace > 0 && !(det > QuadricSimplifier.Tuning.exactDeterminant * trace * trace * trace)
        }.count
        #expect(regularised > 20)
        #expect(expected.contains { $0 == nil })
        #expect(expected.filter { $0 != nil }.count - regularised > 20)
        // Every other slot, in reverse: the kernel writes only the slots it is given.
        let slots = stride(from: e.candidates.count - 1, through: 0, by: -2).map { UInt32($0) }
        let centre = [Self.centre.x, Self.centre.y, Self.centre.z]
        let result = e.quadrics.withUnsafeBytes { q in
            e.positions.withUnsafeBytes { p in
                e.candidates.withUnsafeMutableBytes { c in
                    facescan_place_collapses(
                        q.baseAddress!.assumingMemoryBound(to: Double.self),
                        p.baseAddress!.assumingMemoryBound(to: Float.self), centre,
                        QuadricSimplifier.Tuning.exactDeterminant, QuadricSimplifier.Tuning.regularisation,
                        slots, slots.count, c.baseAddress!.assumingMemoryBound(to: Float.self))
                }
            }
        }
        #expect((result == 0) == (facescan_place_collapses_available() == 1), "the probe and the kernel disagree")
        guard result == 0 else {
            // No AVX2 on this CPU: the kernel declines and writes nothing.
            #expect(result == -1)
            #expect(e.candidates.enumerated().allSatisfy { $0.element.cost == Float($0.offset) })
            return
        }
        for (i, c) in e.candidates.enumerated() {
            if i % 2 != (e.candidates.count - 1) % 2 {
                #expect(c.cost == Float(i) && c.x == 0, "slot \(i) was not given but was written")
                continue
            }
            if let (p, cost) = expected[i] {
                #expect(
                    c.x.bitPattern == p.x.bitPattern && c.y.bitPattern == p.y.bitPattern
                        && c.z.bitPattern == p.z.bitPattern,
                    "slot \(i): \(c.position) vs \(p)")
                #expect(c.cost.bitPattern == cost.bitPattern, "slot \(i): cost \(c.cost) vs \(cost)")
            } else {
                #expect(c.cost.isNaN, "slot \(i) has no placement but got cost \(c.cost)")
            }
        }
    }

    /// Whole decimations with and without the kernel: the same bytes, on one thread and two, for
    /// the ICT face, the MediaPipe face subdivided twice, a noisy sphere, and
    /// a grid with three rows crushed onto one line, whose middle row's edges have no quadric at
    /// all (the kernel hands them back to the scalar code).
    /// Skipped on a CPU without AVX2, where both runs would be the scalar code.
    @Test(.enabled(if: facescan_place_collapses_available() == 1, "this CPU has no AVX2: both runs would be scalar"))
    func decimationGivesTheSameBytesWithAndWithoutTheKernel() throws {
        func run(_ m: Mesh, _ target: Int, threads: Int, vector: Bool) -> (Int, Mesh) {
            var s = QuadricSimplifier(m, threads: threads, vectorPlacement: vector)
            let reached = s.decimate(to: target)
            return (reached, s.mesh())
        }
        let face = try DecimateFixtures.ictNeutral()
        let sphere = DecimateFixtures.bumpySphere(levels: 4, noise: 0.02, seed: 7)
        let mp = try DecimateFixtures.mediaPipeFace()
        let refined = Subdivision.midpoint(Subdivision.midpoint(mp))
        let flat = DecimateFixtures.grid(12)
        let crushed = Mesh(
            uncheckedPositions: flat.positions.map { p in SIMD3(p.x, p.y >= 4 && p.y <= 6 ? 4 : p.y, p.z) },
            triangles: flat.triangles, uvs: flat.uvs)
        let cases: [(Mesh, Int)] = [(face, 5_000), (sphere, 700), (refined, 5_000), (crushed, 40)]
        for threads in [1, 2] {
            for (m, target) in cases {
                let (reachedV, vector) = run(m, target, threads: threads, vector: true)
                let (reachedS, scalar) = run(m, target, threads: threads, vector: false)
                #expect(reachedV == reachedS && (reachedV == target || m.vertexCount == crushed.vertexCount))
                let sameSTL = vector.stlBytes() == scalar.stlBytes(), sameOBJ = vector.objBytes() == scalar.objBytes()
                #expect(sameSTL && sameOBJ, "\(m.vertexCount) v → \(target), \(threads) thread(s)")
            }
        }
    }
}
