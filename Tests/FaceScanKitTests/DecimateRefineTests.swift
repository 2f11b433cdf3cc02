import Testing

@testable import FaceScanDecimate
@testable import FaceScanKit

@Suite("Refinement")
struct DecimateRefineTests {
    /// Edge points follow the old vertices in (a, b) order, a < b, each at its edge's midpoint.
    /// A triangle that repeats a corner adds no vertex and stays on its own corners.
    @Test func edgePointsAndDegenerateTriangles() {
        let grid = DecimateFixtures.grid(4) { i, j in Float(i * j) * 0.1 + Float(i) * 0.05 }
        let n = grid.vertexCount
        let split = Subdivision.midpoint(grid)
        let adjacency = Adjacency(triangles: grid.triangles, vertexCount: n)
        var point: [SIMD2<UInt32>: Int] = [:]
        for a in 0..<n {
            for j in Int(adjacency.offsets[a])..<Int(adjacency.offsets[a + 1]) where Int(adjacency.neighbors[j]) > a {
                let b = adjacency.neighbors[j]
                let index = n + point.count
                point[SIMD2(UInt32(a), b)] = index
                let pa = SIMD3<Double>(grid.positions[a]), pb = SIMD3<Double>(grid.positions[Int(b)])
                let error = SIMD3<Double>(split.positions[index]) - 0.5 * (pa + pb)
                #expect((error * error).sum() < 1e-12, "edge \(a)–\(b)")
            }
        }
        #expect(split.vertexCount == n + point.count)
        #expect(Array(split.positions[0..<n]) == grid.positions)
        var withDegenerate = grid
        withDegenerate.triangles += [5, 5, 6]
        let d = Subdivision.midpoint(withDegenerate)
        #expect(d.vertexCount == n + point.count)
        #expect(Set(d.triangles[(12 * grid.triangleCount)...]) == [5, 6, UInt32(point[SIMD2(5, 6)]!)])
        #expect(Array(d.triangles[0..<(12 * grid.triangleCount)]) == Subdivision.midpoint(grid).triangles)
    }

    @Test func midpointSubdivisionKeepsTheSurface() {
        let sphere = DecimateFixtures.bumpySphere(levels: 1, noise: 0.1, seed: 3)
        let m = Subdivision.midpoint(sphere)
        #expect(Array(m.positions[0..<sphere.vertexCount]) == sphere.positions)
        #expect(MeshCheck(m).isWatertight && MeshCheck(m).isClean)
        #expect(m.triangleCount == 4 * sphere.triangleCount)
    }

    @Test func refinesMediaPipeFaceTo5000() throws {
        let face = try DecimateFixtures.mediaPipeFace()
        let r = try Decimation.simplify(face, targetVertices: 5_000)
        let check = MeshCheck(r)
        #expect(r.vertexCount == 5_000)
        #expect(check.isClean, "\(check.summary)")
        #expect(check.unreferencedVertices == 0)
        #expect(check.boundaryLoops == MeshCheck(face).boundaryLoops)
        #expect(r.uvs?.count == 5_000)
        // Refinement interpolates: the input's vertices come first, unchanged.
        #expect(Array(r.positions[0..<face.vertexCount]) == face.positions)
        // Longest-edge bisection: no angle below half the input's smallest.
        #expect(DecimateFixtures.smallestAngleDegrees(r) >= DecimateFixtures.smallestAngleDegrees(face) / 2)
        // New points bulge a little off the straight edges, never far: the box stays within 2 mm.
        let (lo0, hi0) = face.bounds, (lo1, hi1) = r.bounds
        let dlo = lo0 - lo1, dhi = hi0 - hi1
        #expect((dlo * dlo).max() < 4e-6 && (dhi * dhi).max() < 4e-6)
    }

    /// A closed mesh refined to any count: one new vertex per split, closed and clean.
    @Test(arguments: [1_000, 2_000])
    func refinesATetrahedronToAnyTarget(target: Int) throws {
        let r = try Decimation.simplify(DecimateFixtures.tetrahedron, targetVertices: target)
        #expect(r.vertexCount == target)
        let check = MeshCheck(r)
        #expect(check.isClean && check.isWatertight, "\(check.summary)")
    }

    /// Triangles that repeat a corner are dropped first: a mesh of only such triangles is a usage
    /// error, and a few of them among good triangles do not stop refinement.
    @Test func degenerateTrianglesAreDropped() throws {
        var only = DecimateFixtures.tetrahedron
        only.triangles = [0, 0, 1, 2, 2, 2]
        // No boundary edge, but nothing is closed either.
        #expect(MeshCheck(only).boundaryEdges == 0 && !MeshCheck(only).isWatertight)
        #expect(throws: UsageError("cannot reach 10 vertices: the mesh has no triangle with three distinct corners")) {
            try Decimation.simplify(only, exactly: 10)
        }
        var mixed = DecimateFixtures.grid(5)
        mixed.triangles += [0, 0, 1, 3, 4, 3]
        for target in [20, 60] {
            let r = try Decimation.simplify(mixed, targetVertices: target)
            #expect(r.vertexCount == target)
            #expect(MeshCheck(r).isClean, "\(MeshCheck(r).summary)")
        }
    }

    /// Dropping them keeps every other triangle, in order, wherever the bad ones sit.
    @Test func droppingDegenerateTrianglesKeepsTheOthersInOrder() {
        var mesh = DecimateFixtures.grid(3)
        let good = mesh.triangles
        #expect(Decimation.withoutDegenerateTriangles(mesh).triangles == good)
        mesh.triangles = [1, 1, 2] + good[0..<6] + [4, 5, 4] + good[6...] + [7, 8, 8]
        #expect(Decimation.withoutDegenerateTriangles(mesh).triangles == good)
        mesh.triangles = [3, 3, 3]
        #expect(Decimation.withoutDegenerateTriangles(mesh).triangles.isEmpty)
    }

    /// Found by fuzzing: two triangles sharing only a vertex went from 5 vertices to 3 when asked
    /// for 4 (a lone triangle's collapse orphaned its third corner); a non-manifold edge or a
    /// repeated triangle was multiplied by the collapses and by refinement.
    @Test func loneTrianglesAndNonManifoldInputs() throws {
        var bowtie = DecimateFixtures.tetrahedron
        bowtie.positions = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, -1, 0)]
        bowtie.triangles = [0, 1, 2, 0, 3, 4]
        #expect(throws: UsageError("cannot reach 4 vertices: the smallest reachable count for this mesh is 5")) {
            try Decimation.simplify(bowtie, exactly: 4)
        }
        // Just above a tetrahedron's 4: one split.
        let five = try Decimation.simplify(DecimateFixtures.tetrahedron, targetVertices: 5)
        #expect(five.vertexCount == 5 && five.triangleCount == 6 && MeshCheck(five).isWatertight)
        let refined = try Decimation.simplify(bowtie, targetVertices: 40)
        #expect(refined.vertexCount == 40 && MeshCheck(refined).isClean, "\(MeshCheck(refined).summary)")
        // A fin: a third triangle on the interior edge 6–7 of a 5 × 5 grid.
        var fin = DecimateFixtures.grid(5)
        fin.positions.append(SIMD3(0.3, 0.3, 1))
        fin.uvs = nil
        fin.triangles += [6, 7, 25]
        #expect(MeshCheck(fin).nonManifoldEdges == 1)
        // A grid with its first triangle twice.
        var repeated = DecimateFixtures.grid(5)
        repeated.triangles += Array(repeated.triangles[0..<3])
        for mesh in [fin, repeated] {
            for target in [10, 60] {
                #expect(throws: UsageError.self) { try Decimation.simplify(mesh, exactly: target) }
            }
        }
    }

    @Test func refinesByOneVertex() throws {
        let grid = DecimateFixtures.grid(5)
        let r = try Decimation.simplify(grid, targetVertices: 26)
        #expect(r.vertexCount == 26)
        #expect(MeshCheck(r).isClean)
    }
}
