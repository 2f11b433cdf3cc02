import FaceScanCore

/// Closest point on a triangle to a point: Ericson, "Real-Time Collision Detection" (2005) §5.1.5.
///
/// The point's position relative to the triangle's Voronoi regions (three vertices, three edges,
/// the face) is found from six dot products; only the region that contains it is projected onto.
/// Degenerate (zero-area) triangles fall back to the nearest of their three edges.
enum ClosestPoint {
    /// The point of triangle `a, b, c` nearest to `p` (any winding; units of the inputs).
    static func onTriangle(_ p: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> SIMD3<
        Double
    > {
        let ab = b - a, ac = c - a
        // Vertex region a.
        let ap = p - a
        let d1 = dot3(ab, ap), d2 = dot3(ac, ap)
        if d1 <= 0 && d2 <= 0 { return a }
        // Vertex region b.
        let bp = p - b
        let d3 = dot3(ab, bp), d4 = dot3(ac, bp)
        if d3 >= 0 && d4 <= d3 { return b }
        // Edge region ab.
        let vc = d1 * d4 - d3 * d2
        if vc <= 0 && d1 >= 0 && d3 <= 0 { return a + (d1 / (d1 - d3)) * ab }
        // Vertex region c.
        let cp = p - c
        let d5 = dot3(ab, cp), d6 = dot3(ac, cp)
        if d6 >= 0 && d5 <= d6 { return c }
        // Edge region ac.
        let vb = d5 * d2 - d1 * d6
        if vb <= 0 && d2 >= 0 && d6 <= 0 { return a + (d2 / (d2 - d6)) * ac }
        // Edge region bc.
        let va = d3 * d6 - d5 * d4
        if va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 {
            return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b)
        }
        // Face region (va + vb + vc = |ab × ac|², positive unless the triangle is degenerate).
        let sum = va + vb + vc
        guard sum > 0, sum.isFinite else { return onDegenerate(p, a, b, c) }
        let v = vb / sum, w = vc / sum
        return a + v * ab + w * ac
    }

    /// The point of segment `a, b` nearest to `p`.
    static func onSegment(_ p: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        let ab = b - a
        let len2 = dot3(ab, ab)
        guard len2 > 0 else { return a }
        let t = min(max(dot3(p - a, ab) / len2, 0), 1)
        return a + t * ab
    }

    static func onDegenerate(_ p: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> SIMD3<
        Double
    > {
        var best = onSegment(p, a, b)
        var bestD = dot3(p - best, p - best)
        for q in [onSegment(p, b, c), onSegment(p, c, a)] {
            let d = dot3(p - q, p - q)
            if d < bestD {
                best = q
                bestD = d
            }
        }
        return best
    }

    /// Squared distance from `p` to triangle `a, b, c`.
    static func distanceSquared(_ p: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>)
        -> Double
    {
        let d = p - onTriangle(p, a, b, c)
        return dot3(d, d)
    }
}
