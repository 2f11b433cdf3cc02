extension Mesh {
    /// Unit normal of triangle `t` (right-hand rule over its winding), or `(0,0,0)` when the
    /// triangle is degenerate (zero area or non-finite) or `t` is not in `0..<triangleCount`. Never NaN.
    public func faceNormal(_ t: Int) -> SIMD3<Float> {
        guard t >= 0, t < triangleCount else { return .zero }
        let (a, b, c) = triangle(t)
        return Mesh.unitNormal(positions[Int(a)], positions[Int(b)], positions[Int(c)])
    }

    /// Unit normal of the triangle `a, b, c` computed in double precision; zero when degenerate.
    @inlinable
    public static func unitNormal(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>) -> SIMD3<Float> {
        var u = SIMD3<Double>(b - a), v = SIMD3<Double>(c - a)
        // Corners near the float limits: the differences, in double precision, do not overflow.
        if !(u + v).sum().isFinite {
            (u, v) = (SIMD3<Double>(b) - SIMD3<Double>(a), SIMD3<Double>(c) - SIMD3<Double>(a))
        }
        let n = SIMD3<Double>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        let len = (n * n).sum().squareRoot()
        guard len > 0, len.isFinite else { return .zero }
        return SIMD3<Float>(n / len)
    }

    /// Area-weighted vertex normals (sum of the unnormalised face normals of the incident
    /// triangles, then normalised). A vertex with no non-degenerate triangle gets `(0,0,0)`.
    /// A triangle naming a vertex that does not exist (a ``Mesh`` built without checking its
    /// indices) is left out rather than read out of bounds.
    /// - Complexity: O(triangles + vertices).
    public func vertexNormals() -> [SIMD3<Float>] {
        var acc = [SIMD3<Double>](repeating: .zero, count: positions.count)
        let p = positions.flat
        let t = triangles.flat
        var n = acc.flatMut
        let count = UInt32(clamping: p.count)
        let last = t.count - t.count % 3
        var i = 0
        while i < last {
            let ia = t[i], ib = t[i + 1], ic = t[i + 2]
            if max(ia, max(ib, ic)) >= count {
                i += 3
                continue
            }
            let a = Int(ia), b = Int(ib), c = Int(ic)
            var u = SIMD3<Double>(p[b] - p[a]), v = SIMD3<Double>(p[c] - p[a])
            if !(u + v).sum().isFinite {
                // Corners near the float limits: the differences in double precision.
                u = SIMD3<Double>(p[b]) - SIMD3<Double>(p[a])
                v = SIMD3<Double>(p[c]) - SIMD3<Double>(p[a])
            }
            let fn = SIMD3<Double>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
            n[a] += fn
            n[b] += fn
            n[c] += fn
            i += 3
        }
        return acc.map { v in
            let len = (v * v).sum().squareRoot()
            return len > 0 && len.isFinite ? SIMD3<Float>(v / len) : .zero
        }
    }
}
