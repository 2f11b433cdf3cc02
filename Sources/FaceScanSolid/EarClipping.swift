#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Triangulation of a simple planar polygon by ear clipping (G. H. Meisters, "Polygons have ears",
/// American Mathematical Monthly 1975; D. Eberly, "Triangulation by ear clipping", 2002).
///
/// Of all current ears the one with the largest smallest angle is clipped first, which avoids the
/// slivers a plain first-ear sweep leaves behind and never clips a zero-area ear while a better one
/// exists. Ear flags and scores are cached and recomputed only for the two neighbours of a clipped
/// vertex.
/// - Complexity: O(n²) for n vertices.
enum EarClipping {
    /// Triangles (indices into `points`) of the polygon `points`, which must be counter-clockwise;
    /// every triangle is counter-clockwise. Nil when the polygon is not simple (no ear left).
    static func triangulate(_ points: [SIMD2<Double>]) -> [SIMD3<Int32>]? {
        triangulate(points, polygon: (0..<points.count).map { Int32($0) })
    }

    /// Triangles (indices into `points`) of the counter-clockwise polygon that visits
    /// `points[polygon[0]]`, `points[polygon[1]]`, …: a point may be visited twice, as the ends of
    /// a bridge that joins a hole (clockwise) to the outline. An ear is refused when a remaining
    /// corner lies inside or on it, other than its own three points. Every triangle is
    /// counter-clockwise, so together they cover the polygon once. Nil when no ear is left.
    static func triangulate(_ points: [SIMD2<Double>], polygon: [Int32]) -> [SIMD3<Int32>]? {
        let n = polygon.count
        guard n >= 3 else { return nil }
        let p = polygon.map { points[Int($0)] }
        var prev = (0..<n).map { Int32(($0 + n - 1) % n) }
        var next = (0..<n).map { Int32(($0 + 1) % n) }
        var alive = [Bool](repeating: true, count: n)
        var score = [Double](repeating: -1, count: n)  // < 0: not an ear
        var remaining = n
        for i in 0..<n { score[i] = earScore(i, p, polygon, prev, next) }
        var out: [SIMD3<Int32>] = []
        out.reserveCapacity(n - 2)
        while remaining > 3 {
            var best = -1
            var bestScore = -1.0
            for i in 0..<n where alive[i] && score[i] > bestScore {
                best = i
                bestScore = score[i]
            }
            guard best >= 0 else { return nil }
            let a = Int(prev[best]), c = Int(next[best])
            out.append(SIMD3(polygon[a], polygon[best], polygon[c]))
            alive[best] = false
            next[a] = Int32(c)
            prev[c] = Int32(a)
            remaining -= 1
            score[a] = earScore(a, p, polygon, prev, next)
            score[c] = earScore(c, p, polygon, prev, next)
        }
        var i = 0
        while !alive[i] { i += 1 }
        guard orient(p[Int(prev[i])], p[i], p[Int(next[i])]) > 0 else { return nil }
        out.append(SIMD3(polygon[Int(prev[i])], polygon[i], polygon[Int(next[i])]))
        return out
    }

    /// Smallest angle of the ear at slot `i` (radians), or −1 when `i` is not an ear: reflex,
    /// flat, or another remaining corner lies inside or on the ear (a corner repeated at a
    /// position counts as inside unless it is one of the ear's own points).
    static func earScore(_ i: Int, _ p: [SIMD2<Double>], _ id: [Int32], _ prev: [Int32], _ next: [Int32]) -> Double {
        let ia = Int(prev[i]), ic = Int(next[i])
        let a = p[ia], b = p[i], c = p[ic]
        let area2 = orient(a, b, c)
        let scale = max((b - a).squaredLength, (c - b).squaredLength, (a - c).squaredLength)
        guard area2 > 1e-12 * scale else { return -1 }
        var j = Int(next[ic])
        while j != ia {
            let q = p[j]
            if id[j] != id[ia] && id[j] != id[i] && id[j] != id[ic]
                && orient(a, b, q) >= 0 && orient(b, c, q) >= 0 && orient(c, a, q) >= 0
            {
                return -1
            }
            j = Int(next[j])
        }
        return min(angle(a, b, c), angle(b, c, a), angle(c, a, b))
    }

    /// Twice the signed area of abc (positive: counter-clockwise).
    @inline(__always) static func orient(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    /// Angle at `b` of the corner a–b–c.
    static func angle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
        let u = a - b, v = c - b
        return atan2(abs(u.x * v.y - u.y * v.x), (u * v).sum())
    }
}

extension SIMD2 where Scalar == Double {
    var squaredLength: Double { (self * self).sum() }
}
