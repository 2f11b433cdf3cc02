import Testing

@testable import FaceScanDecimate
@testable import FaceScanKit

typealias F = DecimateFixtures

@Suite("Decimation")
struct DecimateTests {
    // MARK: Tiny hand-drawn meshes

    @Test func tetrahedronIsTheSmallestClosedMesh() throws {
        let same = try Decimation.simplify(F.tetrahedron, targetVertices: 4)
        #expect(same == F.tetrahedron)
        #expect(throws: UsageError("cannot reach 3 vertices: the smallest reachable count for this mesh is 4")) {
            try Decimation.simplify(F.tetrahedron, exactly: 3)
        }
    }

    @Test func gridBorderDoesNotMove() throws {
        let grid = F.grid(3)
        let border = (0..<9).filter { $0 != 4 }.map { grid.positions[$0] }
        let r = try Decimation.simplify(grid, targetVertices: 8)
        #expect(r.vertexCount == 8)
        #expect(MeshCheck(r).isClean, "\(MeshCheck(r).summary)")
        // Only the centre went, onto the border: the eight border points are exactly kept.
        #expect(Set(r.positions.map { [$0.x, $0.y, $0.z] }) == Set(border.map { [$0.x, $0.y, $0.z] }))
        // Going further only drops border points along the border: nothing moves off it.
        for target in 4...7 {
            let s = try Decimation.simplify(grid, targetVertices: target)
            #expect(s.vertexCount == target)
            #expect(MeshCheck(s).isClean)
            for p in s.positions { #expect(border.contains(p), "\(p) left the border") }
        }
    }

    @Test func cubeKeepsItsCorners() throws {
        let cube = F.cube(4)
        #expect(MeshCheck(cube).isWatertight)
        let r = try Decimation.simplify(cube, targetVertices: 8)
        let check = MeshCheck(r)
        #expect(r.vertexCount == 8)
        #expect(check.isClean && check.isWatertight, "\(check.summary)")
        for x: Float in [-1, 1] {
            for y: Float in [-1, 1] {
                for z: Float in [-1, 1] {
                    let corner = SIMD3<Float>(x, y, z)
                    #expect(
                        r.positions.contains { ($0 - corner).max() < 1e-5 && (corner - $0).max() < 1e-5 },
                        "corner \(corner) lost")
                }
            }
        }
        #expect(F.flippedTriangles(r, against: cube) == 0)
    }

    @Test func cubeStopsAtATetrahedron() throws {
        #expect(throws: UsageError("cannot reach 3 vertices: the smallest reachable count for this mesh is 4")) {
            try Decimation.simplify(F.cube(3), exactly: 3)
        }
    }

    @Test func meshWithoutTrianglesIsRejected() {
        let empty = Mesh(uncheckedPositions: [SIMD3(0, 0, 0)], triangles: [])
        #expect(throws: UsageError.self) { try Decimation.simplify(empty, exactly: 1) }
    }

    @Test func unreferencedVerticesDoNotCount() throws {
        var m = F.grid(4)
        m.positions.append(SIMD3(9, 9, 9))
        m.uvs!.append(SIMD2(0, 0))
        let r = try Decimation.simplify(m, targetVertices: 16)
        #expect(r.vertexCount == 16)
        #expect(MeshCheck(r).unreferencedVertices == 0)
        #expect(!r.positions.contains(SIMD3(9, 9, 9)))
    }

    // MARK: Seeded random meshes

    @Test(arguments: [1, 2, 3] as [UInt64])
    func bumpySphereStaysCleanAndOriented(seed: UInt64) throws {
        let sphere = F.bumpySphere(levels: 4, noise: 0.05, seed: seed)  // 1 026 v
        for target in [900, 500, 200, 60, 20] {
            let r = try Decimation.simplify(sphere, targetVertices: target)
            let check = MeshCheck(r)
            #expect(r.vertexCount == target)
            #expect(check.isClean && check.isWatertight, "target \(target): \(check.summary)")
            #expect(check.unreferencedVertices == 0)
            // Every triangle faces outwards, like the sphere it came from.
            var inward = 0
            for t in 0..<r.triangleCount where (F.normal(r, t) * F.centroid(r, t)).sum() <= 0 { inward += 1 }
            #expect(inward == 0, "target \(target): \(inward) triangles face inwards")
            for p in r.positions {
                let radius = (p * p).sum().squareRoot()
                #expect(radius > 0.5 && radius < 1.2, "target \(target): vertex at radius \(radius)")
            }
        }
    }

    @Test func perturbedGridReachesEveryCount() throws {
        var rng = MeshRNG(seed: 42)
        var heights: [Float] = []
        for _ in 0..<(20 * 20) { heights.append(0.3 * rng.nextUnit()) }
        let grid = F.grid(20) { i, j in heights[j * 20 + i] }
        var previous: Mesh? = nil
        for target in stride(from: 399, through: 4, by: -17) + [5, 4] {
            let r = try Decimation.simplify(grid, targetVertices: target)
            let check = MeshCheck(r)
            #expect(r.vertexCount == target)
            #expect(check.isClean, "target \(target): \(check.summary)")
            #expect(check.boundaryLoops == 1, "target \(target): \(check.summary)")
            #expect(r.uvs?.count == target)
            var down = 0
            for t in 0..<r.triangleCount where F.normal(r, t).z <= 0 { down += 1 }
            #expect(down == 0, "target \(target): \(down) triangles flipped")
            #expect(F.flippedTriangles(r, against: grid) == 0)
            #expect(previous == nil || previous! != r)
            previous = r
        }
    }

    @Test func sameInputSameBytes() throws {
        let sphere = F.bumpySphere(levels: 4, noise: 0.1, seed: 7)
        let a = try Decimation.simplify(sphere, targetVertices: 333)
        let b = try Decimation.simplify(sphere, targetVertices: 333)
        #expect(a.stlBytes() == b.stlBytes())
        #expect(a.objBytes() == b.objBytes())
    }

    /// Large meshes collapse in two halves of the mesh, on two threads; the result must not
    /// depend on the threads and must keep every invariant.
    @Test func largeMeshSameBytesOnOneOrTwoThreads() throws {
        // 16 386 v, 32 768 t; bumps about half an edge high, as in the 1 026-vertex tests.
        let sphere = F.bumpySphere(levels: 6, noise: 0.0125, seed: 5)
        // Large enough for the second thread; on one, both halves go in one scan (collapseHalves).
        #expect(sphere.triangleCount >= QuadricSimplifier.Tuning.secondThreadTriangles)
        for target in [12_000, 3_000, 300] {
            let one = try Decimation.simplify(sphere, targetVertices: target, threads: 1)
            let two = try Decimation.simplify(sphere, targetVertices: target, threads: 2)
            #expect(one.vertexCount == target)
            #expect(one.stlBytes() == two.stlBytes(), "target \(target)")
            let check = MeshCheck(two)
            #expect(check.isClean && check.isWatertight, "target \(target): \(check.summary)")
            var inward = 0
            for t in 0..<two.triangleCount where (F.normal(two, t) * F.centroid(two, t)).sum() <= 0 { inward += 1 }
            #expect(inward == 0, "target \(target): \(inward) triangles face inwards")
        }
    }

    /// The mesh's units do not matter: scaled by a power of two (exact in Float and Double), the
    /// same collapses happen and every position scales with it. The shape checks run in Float on
    /// products of four edge lengths, which without their own scaling underflow at 2⁻¹⁶ (a face
    /// in units of 65 km) and reject every collapse.
    @Test func unitsDoNotChangeTheResult() throws {
        let face = try F.mediaPipeFace()
        let reference = try Decimation.simplify(face, targetVertices: 200)
        for exponent in [-16, 16] {
            let k = Float(sign: .plus, exponent: exponent, significand: 1)
            let scaled = Mesh(
                uncheckedPositions: face.positions.map { $0 * k }, triangles: face.triangles, uvs: face.uvs)
            let r = try Decimation.simplify(scaled, targetVertices: 200)
            #expect(r.triangles == reference.triangles, "scale 2^\(exponent)")
            #expect(r.positions == reference.positions.map { $0 * k }, "scale 2^\(exponent)")
            #expect(r.uvs == reference.uvs, "scale 2^\(exponent)")
        }
    }

    /// The vertex → triangle lists built on two threads (each over half of the triangles) are
    /// the lists one thread builds: every vertex's triangles in ascending order.
    @Test func adjacencyOnTwoThreadsIsTheSame() throws {
        let sphere = F.bumpySphere(levels: 6, noise: 0.0125, seed: 5)
        let one = QuadricSimplifier(sphere, threads: 1), two = QuadricSimplifier(sphere, threads: 2)
        #expect(sphere.triangleCount >= QuadricSimplifier.Tuning.parallelTriangles)
        let n = sphere.vertexCount, corners = 3 * sphere.triangleCount
        // Compared as Bools: a failure would print the whole arrays.
        let sameOffsets =
            Array(UnsafeBufferPointer(start: one.core.adjOffsets.base, count: n + 1))
            == Array(UnsafeBufferPointer(start: two.core.adjOffsets.base, count: n + 1))
        let sameLists =
            Array(UnsafeBufferPointer(start: one.core.adj.base, count: corners))
            == Array(UnsafeBufferPointer(start: two.core.adj.base, count: corners))
        #expect(sameOffsets)
        #expect(sameLists)
        // Ascending, and every corner listed under its vertex.
        var listed = 0
        for v in 0..<n {
            let lo = Int(two.core.adjOffsets[v]), hi = Int(two.core.adjOffsets[v + 1])
            for i in lo..<hi {
                let t = Int(two.core.adj[i])
                if i > lo { #expect(two.core.adj[i - 1] < two.core.adj[i]) }
                #expect(sphere.triangles[3 * t..<3 * t + 3].contains(UInt32(v)))
                listed += 1
            }
        }
        #expect(listed == corners)
        // The marks it borrowed are clear again.
        #expect(UnsafeBufferPointer(start: two.core.mark.base, count: n).allSatisfy { $0 == 0 })
    }

    // MARK: Real faces (committed fixtures)

    @Test func smallestReachableCountIsReachable() throws {
        let face = try F.mediaPipeFace()
        var smallest = 0
        do {
            _ = try Decimation.simplify(face, exactly: 3)
            Issue.record("3 vertices should be unreachable")
        } catch {
            let prefix = "cannot reach 3 vertices: the smallest reachable count for this mesh is "
            #expect(error.message.hasPrefix(prefix))
            smallest = Int(error.message.dropFirst(prefix.count)) ?? 0
        }
        #expect(smallest >= 4 && smallest < face.vertexCount)
        let r = try Decimation.simplify(face, targetVertices: smallest)
        #expect(r.vertexCount == smallest)
        #expect(MeshCheck(r).isClean)
        #expect(
            throws: UsageError(
                "cannot reach \(smallest - 1) vertices: the smallest reachable count for this mesh is \(smallest)")
        ) {
            try Decimation.simplify(face, exactly: smallest - 1)
        }
    }

    @Test func mediaPipeFaceKeepsItsOpenings() throws {
        let face = try F.mediaPipeFace()
        let input = MeshCheck(face)
        for target in [400, 300, 200, 120] {
            let r = try Decimation.simplify(face, targetVertices: target)
            let check = MeshCheck(r)
            #expect(r.vertexCount == target)
            #expect(check.isClean, "\(check.summary)")
            #expect(check.boundaryLoops == input.boundaryLoops, "target \(target): \(check.summary)")
            #expect(r.uvs?.count == target)
            #expect(F.flippedTriangles(r, against: face) == 0)
        }
    }

    @Test func ictFaceDecimatesCleanly() throws {
        let face = try F.ictNeutral()
        let r = try Decimation.simplify(face, targetVertices: 5_000)
        let check = MeshCheck(r)
        #expect(r.vertexCount == 5_000)
        #expect(check.isClean, "\(check.summary)")
        #expect(check.boundaryLoops == MeshCheck(face).boundaryLoops)
        #expect(r.uvs?.count == 5_000)
        // The bounding box barely changes (boundary rim kept): within 0.5 mm.
        let (lo0, hi0) = face.bounds, (lo1, hi1) = r.bounds
        let dlo = lo0 - lo1, dhi = hi0 - hi1
        #expect((dlo * dlo).max() < 25e-8 && (dhi * dhi).max() < 25e-8)
    }

    /// The vertices on the boundary of `m` (on an edge only one triangle uses).
    static func boundaryPositions(_ m: Mesh) -> Set<SIMD3<Float>> {
        var uses: [SIMD2<UInt32>: Int] = [:]
        for t in 0..<m.triangleCount {
            for k in 0..<3 {
                let a = m.triangles[3 * t + k], b = m.triangles[3 * t + (k + 1) % 3]
                uses[SIMD2(min(a, b), max(a, b)), default: 0] += 1
            }
        }
        var out = Set<SIMD3<Float>>()
        for (e, n) in uses where n == 1 {
            out.insert(m.positions[Int(e.x)])
            out.insert(m.positions[Int(e.y)])
        }
        return out
    }

    /// Collapses never move a boundary vertex: every boundary vertex of the result is one of the
    /// input's, where it was. Rough random grids (rims with every kind of corner), a steep ramp by
    /// the rim, the faces.
    @Test func boundaryVerticesStayWhereTheyWere() throws {
        var rng = MeshRNG(seed: 11)
        var cases: [(Mesh, [Int])] = [(try F.ictNeutral(), [2_000, 600]), (try F.mediaPipeFace(), [300, 150])]
        for _ in 0..<6 {
            var h: [Float] = []
            for _ in 0..<(24 * 24) { h.append(rng.nextUnit() * 0.8) }
            cases.append((F.grid(24, height: { i, j in h[24 * j + i] }), [400, 150, 60]))
        }
        // A steep ramp two rows in from the rim: the interior vertex next to the rim is cheaper
        // to keep than the rim vertex, by cost alone.
        cases.append((F.grid(10, height: { _, j in j >= 2 ? 1_000 * Float(j - 1) : 0 }), [40, 20, 12]))
        for (m, targets) in cases {
            let rim = Self.boundaryPositions(m)
            for target in targets {
                let r = try Decimation.simplify(m, targetVertices: target)
                let moved = Self.boundaryPositions(r).subtracting(rim)
                #expect(
                    r.vertexCount == target && moved.isEmpty,
                    "\(m.vertexCount) v → \(target): \(moved.count) boundary vertices off the input's rim")
            }
        }
    }
}

/// The public entry reports an unreachable count as ``FaceScanError/badSetting(_:)`` carrying the
/// narrow error's message.
@Suite("Decimation errors")
struct DecimationErrorTests {
    @Test func anUnreachableCountIsABadSetting() {
        do {
            _ = try Decimation.simplify(DecimateFixtures.tetrahedron, targetVertices: 3)
            Issue.record("a tetrahedron cannot lose a vertex")
        } catch .badSetting(let e) {
            // Below the smallest count any mesh reaches, the range check answers first.
            #expect(e.message == "targetVertices must be from 4 to \(Decimation.maximumTargetVertices), found 3")
        } catch {
            Issue.record("expected badSetting, got \(error)")
        }
    }
}
