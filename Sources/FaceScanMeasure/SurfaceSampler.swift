import FaceScanCore

/// Area-weighted uniform random points on a mesh's surface.
enum SurfaceSampler {
    /// `count` points (the mesh's unit), each on a triangle chosen with probability proportional to
    /// its area, uniform within it (Osada et al. 2002: p = (1 − √r₁) a + √r₁ (1 − r₂) b + √r₁ r₂ c).
    /// Empty when the mesh has no area. Deterministic for a given `seed`.
    ///
    /// The points are returned in Morton (Z-curve) order, so that consecutive points lie close
    /// together and nearest-surface queries made in that order hit warm caches.
    /// - Complexity: O(triangles + count · log(triangles · count)).
    static func sample(_ mesh: Mesh, count: Int, seed: UInt64) -> [SIMD3<Double>] {
        // 1. Cumulative triangle areas (double precision).
        let n = mesh.triangleCount
        var cumulative = [Double](repeating: 0, count: n)
        var total = 0.0
        for t in 0..<n {
            let (i, j, k) = mesh.triangle(t)
            let a = SIMD3<Double>(mesh.positions[Int(i)])
            let u = SIMD3<Double>(mesh.positions[Int(j)]) - a, v = SIMD3<Double>(mesh.positions[Int(k)]) - a
            let c = SIMD3<Double>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
            let area = 0.5 * norm3(c)
            if area.isFinite { total += area }
            cumulative[t] = total
        }
        guard total > 0, count > 0 else { return [] }

        // 2. Per sample: pick a triangle by binary search on the cumulative areas, then a point in it.
        var rng = SplitMix64(seed: seed)
        var points = [SIMD3<Double>]()
        points.reserveCapacity(count)
        for _ in 0..<count {
            let target = rng.nextUnit() * total
            var lo = 0, hi = n - 1
            while lo < hi {
                let m = (lo + hi) / 2
                if cumulative[m] > target { hi = m } else { lo = m + 1 }
            }
            let (i, j, k) = mesh.triangle(lo)
            let a = SIMD3<Double>(mesh.positions[Int(i)])
            let b = SIMD3<Double>(mesh.positions[Int(j)])
            let c = SIMD3<Double>(mesh.positions[Int(k)])
            let s = rng.nextUnit().squareRoot(), r2 = rng.nextUnit()
            points.append((1 - s) * a + (s * (1 - r2)) * b + (s * r2) * c)
        }

        // 3. Morton order (ties by draw order, so the order is fully determined).
        return mortonSorted(points)
    }

    /// `points` sorted along a Z-order curve over their bounding box (21 bits per axis).
    static func mortonSorted(_ points: [SIMD3<Double>]) -> [SIMD3<Double>] {
        guard var lo = points.first else { return points }
        var hi = lo
        for p in points {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let extent = hi - lo
        let limit = Double((1 << 21) - 1)
        let largest = Swift.max(extent.x, extent.y, extent.z)
        let scale = largest > 0 && largest.isFinite ? limit / largest : 0
        func cell(_ x: Double) -> UInt64 { x >= 0 && x <= limit ? UInt64(x) : (x > limit ? UInt64(limit) : 0) }
        var keyed = [(code: UInt64, index: Int)]()
        keyed.reserveCapacity(points.count)
        for (i, p) in points.enumerated() {
            let q = (p - lo) * scale
            let code = spread(cell(q.x)) | spread(cell(q.y)) << 1 | spread(cell(q.z)) << 2
            keyed.append((code, i))
        }
        keyed.sort { ($0.code, $0.index) < ($1.code, $1.index) }
        return keyed.map { points[$0.index] }
    }

    /// The low 21 bits of `x` spread to every third bit.
    static func spread(_ x: UInt64) -> UInt64 {
        var v = x & 0x1f_ffff
        v = (v | v << 32) & 0x1f_0000_0000_ffff
        v = (v | v << 16) & 0x1f_0000_ff00_00ff
        v = (v | v << 8) & 0x100f_00f0_0f00_f00f
        v = (v | v << 4) & 0x10c3_0c30_c30c_30c3
        v = (v | v << 2) & 0x1249_2492_4924_9249
        return v
    }
}
