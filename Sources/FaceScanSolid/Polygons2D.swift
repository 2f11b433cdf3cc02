/// The 2-D polygon work of a shell's bed ring: signed areas, containment, and joining holes to an
/// outline by bridges so that one ear clipping (``EarClipping``) triangulates a polygon with
/// holes. Polygons are index lists into a point array, counter-clockwise outlines, clockwise holes.
/// Cost: a bridge tests at most 64 candidate corners against every edge of the outline and the
/// holes still to come, so O(64 · e) per hole for e edges.
enum Polygons2D {
    /// Twice the signed area of the polygon `polygon` (indices into `points`).
    static func area(_ polygon: [Int32], _ points: [SIMD2<Double>]) -> Double {
        var s = 0.0
        for i in polygon.indices {
            let a = points[Int(polygon[i])], b = points[Int(polygon[(i + 1) % polygon.count])]
            s += a.x * b.y - a.y * b.x
        }
        return s
    }

    /// Joins each hole (clockwise) to `outline` (counter-clockwise) by a bridge from one of its
    /// corners to the nearest corner of the outline so far that it sees without crossing an edge:
    /// the outline then visits the hole and comes back along the bridge. False when a hole finds
    /// no such corner.
    static func bridge(_ outline: inout [Int32], holes: [[Int32]], points: [SIMD2<Double>]) -> Bool {
        // Holes in order of their rightmost corner, rightmost first (each bridge then lies right
        // of the holes still to come, and those see the outline through it).
        let order = holes.indices.sorted { a, b in
            let xa = holes[a].map { points[Int($0)].x }.max()!, xb = holes[b].map { points[Int($0)].x }.max()!
            return xa != xb ? xa > xb : a < b
        }
        var pending = Set(holes.indices)
        for hIndex in order {
            pending.remove(hIndex)
            let hole = holes[hIndex]
            // Every edge that a bridge must not cross: the outline so far and the holes to come.
            var edges: [(Int32, Int32)] = []
            for i in outline.indices { edges.append((outline[i], outline[(i + 1) % outline.count])) }
            for other in pending {
                let o = holes[other]
                for i in o.indices { edges.append((o[i], o[(i + 1) % o.count])) }
            }
            for i in hole.indices { edges.append((hole[i], hole[(i + 1) % hole.count])) }
            // Outline corners visited once (a bridge's ends are visited twice).
            var seen: [Int32: Int] = [:]
            for v in outline { seen[v, default: 0] += 1 }
            var candidates: [(distance: Double, slot: Int, corner: Int)] = []
            // From the hole's rightmost corner and a few more, to the nearest outline corners.
            let stride = max(1, hole.count / 8)
            var corners = Array(Swift.stride(from: 0, to: hole.count, by: stride))
            let rightmost = hole.indices.max { points[Int(hole[$0])].x < points[Int(hole[$1])].x }!
            corners.insert(rightmost, at: 0)
            for hc in corners {
                let hp = points[Int(hole[hc])]
                for (slot, v) in outline.enumerated() where seen[v] == 1 {
                    let d = points[Int(v)] - hp
                    candidates.append(((d * d).sum(), slot, hc))
                }
            }
            candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.slot < $1.slot }
            var joined = false
            for candidate in candidates.prefix(64) {
                let a = outline[candidate.slot], b = hole[candidate.corner]
                guard sees(a, b, edges: edges, points: points, outline: outline, slot: candidate.slot) else { continue }
                var loop: [Int32] = []
                for k in 0...hole.count { loop.append(hole[(candidate.corner + k) % hole.count]) }
                outline.insert(contentsOf: loop + [a], at: candidate.slot + 1)
                joined = true
                break
            }
            guard joined else { return false }
        }
        return true
    }

    /// Whether the segment from outline corner `a` (at `slot`) to hole corner `b` crosses or
    /// touches no edge other than at its ends, and leaves `a` into the polygon (inside the corner
    /// the outline makes there).
    static func sees(
        _ a: Int32, _ b: Int32, edges: [(Int32, Int32)], points: [SIMD2<Double>], outline: [Int32], slot: Int
    ) -> Bool {
        let pa = points[Int(a)], pb = points[Int(b)]
        let prev = points[Int(outline[(slot + outline.count - 1) % outline.count])]
        let next = points[Int(outline[(slot + 1) % outline.count])]
        // Inside the corner prev → a → next (counter-clockwise polygon: the interior is on the left).
        let convex = EarClipping.orient(prev, pa, next) > 0
        let leftOfIn = EarClipping.orient(prev, pa, pb) > 0, leftOfOut = EarClipping.orient(pa, next, pb) > 0
        guard convex ? (leftOfIn && leftOfOut) : (leftOfIn || leftOfOut) else { return false }
        for (u, v) in edges {
            if u == a || v == a || u == b || v == b { continue }
            if segmentsTouch(pa, pb, points[Int(u)], points[Int(v)]) { return false }
        }
        return true
    }

    static func segmentsTouch(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>, _ s: SIMD2<Double>) -> Bool {
        let d1 = EarClipping.orient(p, q, r), d2 = EarClipping.orient(p, q, s)
        let d3 = EarClipping.orient(r, s, p), d4 = EarClipping.orient(r, s, q)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        func on(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Bool {
            min(a.x, b.x) <= c.x && c.x <= max(a.x, b.x) && min(a.y, b.y) <= c.y && c.y <= max(a.y, b.y)
        }
        return (d1 == 0 && on(p, q, r)) || (d2 == 0 && on(p, q, s)) || (d3 == 0 && on(r, s, p))
            || (d4 == 0 && on(r, s, q))
    }

    /// Whether `p` lies inside the polygon (even–odd rule).
    static func contains(_ polygon: [Int32], _ p: SIMD2<Double>, _ points: [SIMD2<Double>]) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = points[Int(polygon[i])], b = points[Int(polygon[j])]
            if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
