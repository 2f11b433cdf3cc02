/// Pairs of triangles of a mesh that cross each other, found through a uniform grid.
///
/// Triangles that share a vertex are never tested (adjacent triangles touch by construction).
/// Two non-coplanar triangles intersect exactly when an edge of one crosses the other, so the
/// test is six segment–triangle tests (T. Möller and B. Trumbore, "Fast, minimum storage
/// ray-triangle intersection", JGT 1997), in double precision; coplanar overlaps are not reported.
///
/// The grid is a CSR array of triangle ids per cell (count → prefix-sum → fill); a pair is tested
/// only in the first cell both bounding boxes cover, so each pair is tested once, in a
/// deterministic order. With a set of flagged triangles, each cell lists its flagged triangles
/// first, so the pairs of two unflagged triangles are never visited (a repair round that moved a
/// few hundred triangles of a 200 000-triangle solid costs in proportion to those).
/// - Complexity: O(t · k) for t triangles and k triangles per cell (a few dozen on a scan).
package enum SelfIntersection {
    /// Up to `limit` intersecting pairs (lower triangle index first), in increasing order of cell.
    /// With `only`, a pair is tested only when at least one of its triangles is flagged (within a
    /// cell, pairs then come flagged triangle by flagged triangle).
    /// Only the triangles whose boxes meet the flagged ones' common box are searched (a few
    /// hundred moved triangles of a 300 000-triangle surface cost in proportion to their region).
    package static func pairs(_ mesh: Mesh, only: [Bool]? = nil, limit: Int = .max) -> [SIMD2<Int32>] {
        guard let only else { return search(mesh, only: nil, limit: limit, budget: .max) ?? [] }
        var lo = SIMD3<Float>(repeating: .infinity), hi = -lo
        for t in 0..<mesh.triangleCount where only[t] {
            let (a, b, c) = mesh.triangle(t)
            let pa = mesh.positions[Int(a)], pb = mesh.positions[Int(b)], pc = mesh.positions[Int(c)]
            lo = pointwiseMin(lo, pointwiseMin(pa, pointwiseMin(pb, pc)))
            hi = pointwiseMax(hi, pointwiseMax(pa, pointwiseMax(pb, pc)))
        }
        guard all(lo .<= hi) else { return [] }
        var region: [Int32] = []
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            let pa = mesh.positions[Int(a)], pb = mesh.positions[Int(b)], pc = mesh.positions[Int(c)]
            let tlo = pointwiseMin(pa, pointwiseMin(pb, pc)), thi = pointwiseMax(pa, pointwiseMax(pb, pc))
            if only[t] || (all(tlo .<= hi) && all(lo .<= thi)) { region.append(Int32(t)) }
        }
        if region.count == mesh.triangleCount { return search(mesh, only: only, limit: limit, budget: .max) ?? [] }
        var sub = mesh
        sub.triangles = []
        sub.triangles.reserveCapacity(3 * region.count)
        for t in region {
            for c in 0..<3 { sub.triangles.append(mesh.triangles[3 * Int(t) + c]) }
        }
        let found = search(sub, only: region.map { only[Int($0)] }, limit: limit, budget: .max) ?? []
        return found.map { pair in
            let (a, b) = (region[Int(pair.x)], region[Int(pair.y)])
            return SIMD2(min(a, b), max(a, b))
        }
    }

    /// The crossing pairs, or nil when the search would list more than `budget` triangle–cell
    /// entries or test more than `budget` pairs of boxes (triangles whose boxes all overlap, e.g.
    /// a polygon of 100 000 corners cut into long slivers: the search is quadratic there).
    package static func pairs(_ mesh: Mesh, budget: Int) -> [SIMD2<Int32>]? {
        search(mesh, only: nil, limit: .max, budget: budget)
    }

    /// The default budget of ``pairs(_:budget:)``: about a second of work.
    package static let defaultBudget = 50_000_000

    private static func search(_ mesh: Mesh, only: [Bool]?, limit: Int, budget: Int) -> [SIMD2<Int32>]? {
        let tc = mesh.triangleCount
        guard tc > 1 else { return [] }
        let p = mesh.positions.map { SIMD3<Double>($0) }
        var lo = [SIMD3<Double>](repeating: .zero, count: tc), hi = lo
        var edgeSum = 0.0
        for t in 0..<tc {
            let a = p[Int(mesh.triangles[3 * t])], b = p[Int(mesh.triangles[3 * t + 1])],
                c = p[Int(mesh.triangles[3 * t + 2])]
            lo[t] = pointwiseMin(a, pointwiseMin(b, c))
            hi[t] = pointwiseMax(a, pointwiseMax(b, c))
            edgeSum += norm3(b - a) + norm3(c - b) + norm3(a - c)
        }
        let (bmin, bmax) = (lo.reduce(lo[0], pointwiseMin), hi.reduce(hi[0], pointwiseMax))
        let (dims, cLo, cHi, entries) = cells(lo: lo, hi: hi, bmin: bmin, extent: bmax - bmin, edgeSum: edgeSum)
        let cellCount = dims.x * dims.y * dims.z
        var counts = [Int32](repeating: 0, count: cellCount + 1)
        guard entries <= budget else { return nil }
        for t in 0..<tc {
            for z in cLo[t].z...cHi[t].z {
                for y in cLo[t].y...cHi[t].y {
                    for x in cLo[t].x...cHi[t].x {
                        counts[(z * dims.y + y) * dims.x + x + 1] += 1
                    }
                }
            }
        }
        if budget < .max {
            var boxPairs = 0
            for c in 0..<cellCount {
                let k = Int(counts[c + 1])
                boxPairs += k * (k - 1) / 2
            }
            guard boxPairs <= budget else { return nil }
        }
        let items = lists(&counts, cLo: cLo, cHi: cHi, dims: dims, only: only)
        var out: [SIMD2<Int32>] = []
        let tri = mesh.triangles
        for z in 0..<dims.z {
            // Asked to stop: what was found so far (the caller throws).
            if Cancellation.requested { return out }
            for y in 0..<dims.y {
                for x in 0..<dims.x {
                    let c = (z * dims.y + y) * dims.x + x
                    let s = Int(counts[c]), e = Int(counts[c + 1])
                    guard e - s > 1 else { continue }
                    for i in s..<e {
                        let t1 = Int(items[i])
                        // The rest of the cell is unflagged: no pair left to test here.
                        if let only, !only[t1] { break }
                        let a1 = tri[3 * t1], b1 = tri[3 * t1 + 1], c1 = tri[3 * t1 + 2]
                        for j in (i + 1)..<e {
                            let t2 = Int(items[j])
                            // First common cell only; boxes must overlap.
                            let first = pointwiseMax(cLo[t1], cLo[t2])
                            guard first == SIMD3(x, y, z) else { continue }
                            guard all(lo[t1] .<= hi[t2]), all(lo[t2] .<= hi[t1]) else { continue }
                            let a2 = tri[3 * t2], b2 = tri[3 * t2 + 1], c2 = tri[3 * t2 + 2]
                            if a1 == a2 || a1 == b2 || a1 == c2 || b1 == a2 || b1 == b2 || b1 == c2 || c1 == a2
                                || c1 == b2 || c1 == c2
                            {
                                continue
                            }
                            if trianglesIntersect(
                                p[Int(a1)], p[Int(b1)], p[Int(c1)], p[Int(a2)], p[Int(b2)], p[Int(c2)])
                            {
                                out.append(SIMD2(Int32(min(t1, t2)), Int32(max(t1, t2))))
                                if out.count >= limit { return out }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The cells: about two mean edge lengths each, at most ~2M of them, and coarser while the
    /// triangles would be listed in more than ``entryCap(_:)`` cells in all (long triangles among
    /// short ones, as a tall skirt under a tiny face: the lists, not the tests, would then cost).
    /// Each triangle's first and last cell, and the entries in all.
    static func cells(
        lo: [SIMD3<Double>], hi: [SIMD3<Double>], bmin: SIMD3<Double>, extent: SIMD3<Double>, edgeSum: Double
    ) -> (dims: SIMD3<Int>, cLo: [SIMD3<Int>], cHi: [SIMD3<Int>], entries: Int) {
        let tc = lo.count
        var cell = max(2 * edgeSum / Double(3 * tc), 1e-12)
        while (extent.x / cell + 1) * (extent.y / cell + 1) * (extent.z / cell + 1) > 2_000_000 { cell *= 1.5 }
        var dims = SIMD3<Int>.zero
        var cLo = [SIMD3<Int>](repeating: .zero, count: tc), cHi = cLo
        var entries = 0
        while true {
            dims = SIMD3<Int>(Int(extent.x / cell) + 1, Int(extent.y / cell) + 1, Int(extent.z / cell) + 1)
            entries = 0
            for t in 0..<tc {
                cLo[t] = cellOf(lo[t], bmin: bmin, cell: cell, dims: dims)
                cHi[t] = cellOf(hi[t], bmin: bmin, cell: cell, dims: dims)
                let span = cHi[t] &- cLo[t] &+ 1
                entries += span.x * span.y * span.z
            }
            if entries <= entryCap(tc) || dims == SIMD3(1, 1, 1) { return (dims, cLo, cHi, entries) }
            cell *= 2
        }
    }

    /// The triangles listed per cell (CSR: `counts`, per-cell counts on entry, become the
    /// offsets), flagged triangles first in every cell (all of them without `only`).
    static func lists(_ counts: inout [Int32], cLo: [SIMD3<Int>], cHi: [SIMD3<Int>], dims: SIMD3<Int>, only: [Bool]?)
        -> [Int32]
    {
        let cellCount = counts.count - 1
        for c in 0..<cellCount { counts[c + 1] += counts[c] }
        var fill = counts
        var items = [Int32](repeating: 0, count: Int(counts[cellCount]))
        for pass in 0..<(only == nil ? 1 : 2) {
            for t in cLo.indices {
                if let only, only[t] != (pass == 0) { continue }
                for z in cLo[t].z...cHi[t].z {
                    for y in cLo[t].y...cHi[t].y {
                        for x in cLo[t].x...cHi[t].x {
                            let c = (z * dims.y + y) * dims.x + x
                            items[Int(fill[c])] = Int32(t)
                            fill[c] += 1
                        }
                    }
                }
            }
        }
        return items
    }

    /// Most triangle–cell entries the search lists for `triangles` triangles before it makes its
    /// cells coarser.
    static func entryCap(_ triangles: Int) -> Int { 16 * triangles + 1_000_000 }

    @inlinable package static func cellOf(_ q: SIMD3<Double>, bmin: SIMD3<Double>, cell: Double, dims: SIMD3<Int>)
        -> SIMD3<Int>
    {
        let f = (q - bmin) / cell
        return SIMD3(
            min(dims.x - 1, max(0, Int(f.x))), min(dims.y - 1, max(0, Int(f.y))), min(dims.z - 1, max(0, Int(f.z))))
    }

    /// True when the (non-coplanar) triangles abc and def cross: an edge of one meets the other.
    @inlinable package static func trianglesIntersect(
        _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>,
        _ d: SIMD3<Double>, _ e: SIMD3<Double>, _ f: SIMD3<Double>
    ) -> Bool {
        segmentHitsTriangle(a, b, d, e, f) || segmentHitsTriangle(b, c, d, e, f) || segmentHitsTriangle(c, a, d, e, f)
            || segmentHitsTriangle(d, e, a, b, c) || segmentHitsTriangle(e, f, a, b, c)
            || segmentHitsTriangle(f, d, a, b, c)
    }

    /// Möller–Trumbore with the ray parameter limited to the segment p → q.
    @inlinable package static func segmentHitsTriangle(
        _ p: SIMD3<Double>, _ q: SIMD3<Double>,
        _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>
    ) -> Bool {
        let dir = q - p
        let e1 = b - a, e2 = c - a
        let h = cross3(dir, e2)
        let det = dot3(e1, h)
        let scale = norm3(dir) * norm3(e1) * norm3(e2)
        guard abs(det) > 1e-12 * scale else { return false }  // parallel (or coplanar)
        let inv = 1 / det
        let s = p - a
        let u = dot3(s, h) * inv
        guard u >= 0, u <= 1 else { return false }
        let qv = cross3(s, e1)
        let v = dot3(dir, qv) * inv
        guard v >= 0, u + v <= 1 else { return false }
        let t = dot3(e2, qv) * inv
        return t >= 0 && t <= 1
    }
}
