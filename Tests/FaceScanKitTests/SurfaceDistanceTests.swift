import Testing

@testable import FaceScanCapture
@testable import FaceScanCore
@testable import FaceScanDecimate
@testable import FaceScanExport
@testable import FaceScanInterop
@testable import FaceScanKit
@testable import FaceScanMeasure
@testable import FaceScanSolid

/// A `cols` × `rows` grid of quads (two triangles each, CCW seen from +z) spanning `size` × `size`
/// at height `z`, optionally with a smooth bump so that it is not planar:
///
///     6 - 7 - 8
///     | / | / |
///     3 - 4 - 5
///     | / | / |
///     0 - 1 - 2
func gridMesh(cols: Int, rows: Int, size: Float = 0.1, z: Float = 0, bump: Float = 0) -> Mesh {
    var positions: [SIMD3<Float>] = []
    for j in 0...rows {
        for i in 0...cols {
            let x = size * Float(i) / Float(cols), y = size * Float(j) / Float(rows)
            let h = bump * (x / size) * (1 - x / size) * (y / size) * (1 - y / size) * 16
            positions.append(SIMD3(x, y, z + h))
        }
    }
    var triangles: [UInt32] = []
    for j in 0..<rows {
        for i in 0..<cols {
            let v = UInt32(j * (cols + 1) + i), up = v + UInt32(cols + 1)
            triangles += [v, v + 1, up + 1, v, up + 1, up]
        }
    }
    return Mesh(uncheckedPositions: positions, triangles: triangles)
}

/// A seeded random soup of small triangles in the unit cube.
func randomMesh(triangles count: Int, seed: UInt64) -> Mesh {
    var rng = SplitMix64(seed: seed)
    var positions: [SIMD3<Float>] = []
    for _ in 0..<count {
        let centre = SIMD3<Float>(Float(rng.nextUnit()), Float(rng.nextUnit()), Float(rng.nextUnit()))
        for _ in 0..<3 {
            positions.append(
                centre + 0.05 * SIMD3<Float>(Float(rng.nextUnit()), Float(rng.nextUnit()), Float(rng.nextUnit())))
        }
    }
    return Mesh(uncheckedPositions: positions, triangles: (0..<UInt32(3 * count)).map { $0 })
}

@Suite struct SurfaceDistanceTests {
    @Test func identicalMeshesAreZero() {
        let m = gridMesh(cols: 12, rows: 9, bump: 0.02)
        let e = SurfaceDistance.symmetric(m, m, samplesPerMesh: 20_000)
        #expect(e.rms < 1e-6 && e.max < 1e-6 && e.mean < 1e-6)
    }

    @Test func planeShiftedOneMillimetreAlongItsNormal() {
        // Different tessellations of the same 10 cm square, 1 mm apart (metres).
        let a = gridMesh(cols: 4, rows: 4)
        let b = gridMesh(cols: 13, rows: 7, z: 0.001)
        let e = SurfaceDistance.symmetric(a, b, samplesPerMesh: 20_000)
        for v in [e.rms, e.max, e.mean] { #expect(abs(v - 1000) < 10, "\(e)") }
    }

    @Test func millimetreUnits() {
        let a = gridMesh(cols: 5, rows: 5, size: 100)
        let b = gridMesh(cols: 3, rows: 8, size: 100, z: -1)
        let e = SurfaceDistance.symmetric(a, b, samplesPerMesh: 10_000, unitToMicrometres: 1e3)
        for v in [e.rms, e.max, e.mean] { #expect(abs(v - 1000) < 10, "\(e)") }
    }

    @Test func deterministic() {
        let a = gridMesh(cols: 20, rows: 20, bump: 0.01)
        let b = gridMesh(cols: 17, rows: 23, z: 0.0005, bump: 0.012)
        let e1 = SurfaceDistance.symmetric(a, b, samplesPerMesh: 30_000, seed: 7)
        let e2 = SurfaceDistance.symmetric(a, b, samplesPerMesh: 30_000, seed: 7)
        #expect(e1 == e2)
        let e3 = SurfaceDistance.symmetric(a, b, samplesPerMesh: 30_000, seed: 8)
        #expect(e3 != e1)
        #expect(abs(e3.rms - e1.rms) < 0.05 * e1.rms)
    }

    @Test func emptyMeshes() {
        let empty = Mesh(uncheckedPositions: [], triangles: [])
        #expect(SurfaceDistance.symmetric(empty, empty, samplesPerMesh: 10) == SurfaceError(rms: 0, max: 0, mean: 0))
        let e = SurfaceDistance.symmetric(gridMesh(cols: 1, rows: 1), empty, samplesPerMesh: 10)
        #expect(e.rms == .infinity && e.max == .infinity)
    }

    @Test func bvhMatchesBruteForce() {
        let mesh = randomMesh(triangles: 700, seed: 3)
        let bvh = TriangleBVH(mesh)
        #expect(bvh.triangles.count == 700)
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var rng = SplitMix64(seed: 99)
        for _ in 0..<500 {
            let p = SIMD3<Double>(rng.nextUnit(), rng.nextUnit(), rng.nextUnit()) * 1.4 - 0.2
            var best = Double.infinity
            for t in 0..<mesh.triangleCount {
                let (i, j, k) = mesh.triangle(t)
                best = min(
                    best,
                    ClosestPoint.distanceSquared(
                        p, SIMD3<Double>(mesh.positions[Int(i)]), SIMD3<Double>(mesh.positions[Int(j)]),
                        SIMD3<Double>(mesh.positions[Int(k)])))
            }
            #expect(bvh.distanceSquared(to: p, stack: &stack) == best)
        }
    }

    @Test func bvhHandlesCoincidentTriangles() {
        // 50 copies of one triangle: the centroid split separates nothing and falls back to the median.
        let m = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)],
            triangles: Array(repeating: [0, 1, 2], count: 50).flatMap { $0 })
        let bvh = TriangleBVH(m)
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        #expect(abs(bvh.distanceSquared(to: SIMD3(0.2, 0.2, 0.5), stack: &stack) - 0.25) < 1e-15)
    }

    @Test func samplesAreAreaWeightedAndOnTheSurface() {
        // Two triangles of areas 1.5 and 0.5: three quarters of the samples land on the first.
        let m = Mesh(
            uncheckedPositions: [
                SIMD3(0, 0, 0), SIMD3(3, 0, 0), SIMD3(0, 1, 0), SIMD3(10, 0, 0), SIMD3(11, 0, 0), SIMD3(10, 1, 0),
            ],
            triangles: [0, 1, 2, 3, 4, 5])
        let pts = SurfaceSampler.sample(m, count: 40_000, seed: 5)
        #expect(pts.count == 40_000)
        let first = pts.filter { $0.x < 5 }.count
        #expect(abs(Double(first) / 40_000 - 0.75) < 0.01)
        #expect(pts.allSatisfy { $0.z == 0 && $0.x >= 0 && $0.y >= 0 && $0.y <= 1 })
        #expect(SurfaceSampler.sample(m, count: 100, seed: 5) == SurfaceSampler.sample(m, count: 100, seed: 5))
    }

    @Test func splitMixKnownValues() {
        // Reference outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
