import Testing

@testable import FaceScanKit
@testable import FaceScanMeasure

/// Ericson's closest point on the triangle
///
///     c (0,1,0)
///     | \
///     |   \
///     a --- b (1,0,0)
///   (0,0,0)
///
/// from points in each of its seven Voronoi regions, plus a degenerate triangle.
@Suite struct SurfaceDistanceClosestPointTests {
    let a = SIMD3<Double>(0, 0, 0), b = SIMD3<Double>(1, 0, 0), c = SIMD3<Double>(0, 1, 0)

    func closest(_ p: SIMD3<Double>) -> SIMD3<Double> { ClosestPoint.onTriangle(p, a, b, c) }

    func near(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Bool {
        let d = u - v
        return (d * d).sum() < 1e-24
    }

    @Test func vertexRegions() {
        #expect(closest(SIMD3(-1, -1, 0.5)) == a)
        #expect(closest(SIMD3(2, -0.5, -3)) == b)
        #expect(closest(SIMD3(-0.2, 2, 0)) == c)
    }

    @Test func edgeRegions() {
        #expect(near(closest(SIMD3(0.5, -1, 0.25)), SIMD3(0.5, 0, 0)))  // ab
        #expect(near(closest(SIMD3(-1, 0.25, -0.3)), SIMD3(0, 0.25, 0)))  // ca
        #expect(near(closest(SIMD3(1, 1, 2)), SIMD3(0.5, 0.5, 0)))  // bc
        #expect(near(closest(SIMD3(0.9, 0.3, 0)), SIMD3(0.8, 0.2, 0)))  // bc, in the plane
    }

    @Test func faceRegion() {
        #expect(near(closest(SIMD3(0.2, 0.3, 5)), SIMD3(0.2, 0.3, 0)))
        #expect(near(closest(SIMD3(0.25, 0.25, -1e-3)), SIMD3(0.25, 0.25, 0)))
        let d2 = ClosestPoint.distanceSquared(SIMD3(0.1, 0.1, 0.001), a, b, c)
        #expect(abs(d2 - 1e-6) < 1e-18)
    }

    @Test func windingDoesNotMatter() {
        let p = SIMD3<Double>(0.7, 0.6, 0.4)
        #expect(near(ClosestPoint.onTriangle(p, a, c, b), closest(p)))
    }

    @Test func degenerateTriangleFallsBackToItsEdges() {
        // All three corners on the x axis: the triangle is the segment from 0 to 2.
        let q = ClosestPoint.onTriangle(SIMD3(1.5, 1, 0), SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(1, 0, 0))
        #expect(near(q, SIMD3(1.5, 0, 0)))
        let r = ClosestPoint.onTriangle(SIMD3(3, 0, 1), SIMD3(0, 0, 0), SIMD3(0, 0, 0), SIMD3(0, 0, 0))
        #expect(r == SIMD3(0, 0, 0))
    }
}
