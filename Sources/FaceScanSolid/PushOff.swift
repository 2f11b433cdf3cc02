import FaceScanCore
import FaceScanMeasure

/// Where a shell's back crosses its front, the back is pushed off it: the wall only thickens.
extension LevelSetShell {
    /// Where a back triangle crosses the front (a coarse back's flat triangle over a bump of the
    /// front, as behind a mouth's corner), its vertices move away from their nearest front points
    /// by `Constants/pushStep` thickness, for at most `Constants/pushRounds` rounds, each
    /// looking only at the back triangles around what the last one moved, against the front's
    /// triangles in the cells of a grid built once (``FrontGrid``): the wall only thickens. The
    /// crossing pairs tested are counted into `work` (at most the flagged back triangles' cells'
    /// front triangles per round), and a round that moves nothing ends the push, as does one
    /// after which the vertices still crossing could not all be pushed off in the rounds left at
    /// twice the pace of the rounds so far (a push that stalls is refused sooner, not later).
    static func pushOut(
        _ solid: inout Mesh, front: Mesh, backTriangles: Range<Int>, fixed: [Bool], thickness: Double,
        bvh: TriangleBVH, work: inout PushWork
    ) {
        let n = front.vertexCount
        (work.backVertices, work.backTriangles) = (solid.vertexCount - n, backTriangles.count)
        let grid = FrontGrid(front)
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var flags = [Bool](repeating: false, count: solid.triangleCount)
        for t in backTriangles { flags[t] = true }
        var seen = [Int32](repeating: -1, count: front.triangleCount)
        let by = Constants.pushStep * thickness
        var first = 0  // vertices pushed in the first round
        for round in 0..<Constants.pushRounds {
            if Cancellation.requested { return }
            work.rounds += 1
            var push = [SIMD3<Double>](repeating: .zero, count: solid.vertexCount - n)
            var tried = [Bool](repeating: false, count: push.count), pushed = tried
            var count = 0  // vertices pushed this round
            // Crossing: a quarter thickness away from the front at each vertex (the same step
            // whichever front triangle it crosses, so one crossing per back triangle is enough).
            for b in backTriangles where flags[b] {
                work.triangles += 1
                guard grid.crosses(solid, triangle: b, seen: &seen, tests: &work.pairs) else { continue }
                for c in 0..<3 {
                    let v = Int(solid.triangles[3 * b + c]) - n
                    guard v >= 0, !fixed[v], !tried[v] else { continue }
                    tried[v] = true
                    let q = SIMD3<Double>(solid.positions[n + v])
                    let d = q - bvh.closestPoint(to: q, stack: &stack)
                    let l = norm3(d)
                    if l > 0 {
                        push[v] = (by / l) * d
                        pushed[v] = true
                        count += 1
                    }
                }
            }
            guard count > 0 else { return }
            for v in push.indices where pushed[v] {
                var q = SIMD3<Double>(solid.positions[n + v]) + push[v]
                q.z = max(q.z, Constants.bedMargin * thickness)
                solid.positions[n + v] = SIMD3<Float>(q)
            }
            // A push that cannot finish in the rounds left at twice its pace so far ends here
            // (what still crosses is refused either way).
            if round == 0 { first = count }
            if round >= 2 {
                let pace = Double(first - count) / Double(round)
                if pace <= 0 || Double(count) > 2 * pace * Double(Constants.pushRounds - 1 - round) { return }
            }
            for t in backTriangles {
                flags[t] = false
                for c in 0..<3 where pushed[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
            // A moved vertex's neighbours' triangles tilt as well.
            var near = pushed
            for t in backTriangles where flags[t] {
                for c in 0..<3 { near[Int(solid.triangles[3 * t + c]) - n] = true }
            }
            for t in backTriangles {
                for c in 0..<3 where near[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
        }
    }

    /// What a push-off did, counted: rounds, back triangles looked at, and front–back pairs of
    /// overlapping boxes tested for a crossing.
    package struct PushWork: Sendable, Equatable {
        /// The back's vertices and triangles.
        package var backVertices = 0
        package var backTriangles = 0
        package var rounds = 0
        package var triangles = 0
        package var pairs = 0
    }

    /// The front's triangles listed per cell of a uniform grid (CSR), with their boxes in the
    /// precision of the crossing test: a back triangle is tested only against the front
    /// triangles of the cells its box covers (the front does not move while the back is pushed).
    struct FrontGrid {
        let lo: [SIMD3<Double>], hi: [SIMD3<Double>]
        let p: [SIMD3<Double>]
        let triangles: [UInt32]
        let origin: SIMD3<Double>, cell: Double
        let dims: SIMD3<Int>
        let offsets: [Int32], items: [Int32]

        /// Cells about two mean edges wide, at most 64 along an axis.
        init(_ front: Mesh) {
            p = front.positions.map { SIMD3<Double>($0) }
            triangles = front.triangles
            let tc = front.triangleCount
            var lo = [SIMD3<Double>](repeating: .zero, count: tc), hi = lo
            var edges = 0.0
            var bmin = SIMD3<Double>(repeating: .infinity), bmax = -bmin
            for t in 0..<tc {
                let a = p[Int(triangles[3 * t])], b = p[Int(triangles[3 * t + 1])], c = p[Int(triangles[3 * t + 2])]
                lo[t] = pointwiseMin(a, pointwiseMin(b, c))
                hi[t] = pointwiseMax(a, pointwiseMax(b, c))
                bmin = pointwiseMin(bmin, lo[t])
                bmax = pointwiseMax(bmax, hi[t])
                edges += norm3(b - a) + norm3(c - b) + norm3(a - c)
            }
            (self.lo, self.hi) = (lo, hi)
            if tc == 0 { (bmin, bmax) = (.zero, .zero) }
            let extent = bmax - bmin
            var cell = max(2 * edges / Double(max(3 * tc, 1)), extent.max() / 64, 1e-9)
            if extent.max() / cell > 64 { cell = extent.max() / 64 }
            (origin, self.cell) = (bmin, cell)
            let dims = SIMD3<Int>(Int(extent.x / cell) + 1, Int(extent.y / cell) + 1, Int(extent.z / cell) + 1)
            self.dims = dims
            var counts = [Int32](repeating: 0, count: dims.x * dims.y * dims.z + 1)
            for t in 0..<tc {
                FrontGrid.visit(lo[t], hi[t], origin: bmin, cell: cell, dims: dims) { counts[$0 + 1] += 1 }
            }
            for c in 1..<counts.count { counts[c] += counts[c - 1] }
            var fill = counts
            var items = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
            for t in 0..<tc {
                FrontGrid.visit(lo[t], hi[t], origin: bmin, cell: cell, dims: dims) { c in
                    items[Int(fill[c])] = Int32(t)
                    fill[c] += 1
                }
            }
            (offsets, self.items) = (counts, items)
        }

        /// Calls `body` with every cell the box `lo`…`hi` covers (clamped to the grid).
        static func visit(
            _ lo: SIMD3<Double>, _ hi: SIMD3<Double>, origin: SIMD3<Double>, cell: Double, dims: SIMD3<Int>,
            _ body: (Int) -> Void
        ) {
            let a = SelfIntersection.cellOf(lo, bmin: origin, cell: cell, dims: dims)
            let b = SelfIntersection.cellOf(hi, bmin: origin, cell: cell, dims: dims)
            for z in a.z...b.z {
                for y in a.y...b.y {
                    for x in a.x...b.x { body((z * dims.y + y) * dims.x + x) }
                }
            }
        }

        /// Whether triangle `t` of `solid` (a back triangle: it shares no vertex with the front)
        /// crosses a front triangle whose box overlaps its own; `seen` (per front triangle, the
        /// last back triangle it was tested against) keeps a front triangle listed in several
        /// cells from being tested twice; `tests` counts the pairs tested.
        func crosses(_ solid: Mesh, triangle t: Int, seen: inout [Int32], tests: inout Int) -> Bool {
            let d = SIMD3<Double>(solid.positions[Int(solid.triangles[3 * t])])
            let e = SIMD3<Double>(solid.positions[Int(solid.triangles[3 * t + 1])])
            let f = SIMD3<Double>(solid.positions[Int(solid.triangles[3 * t + 2])])
            let tlo = pointwiseMin(d, pointwiseMin(e, f)), thi = pointwiseMax(d, pointwiseMax(e, f))
            guard !items.isEmpty, all(tlo .<= origin + cell * SIMD3<Double>(dims)), all(origin .<= thi) else {
                return false
            }
            let a = SelfIntersection.cellOf(tlo, bmin: origin, cell: cell, dims: dims)
            let b = SelfIntersection.cellOf(thi, bmin: origin, cell: cell, dims: dims)
            for z in a.z...b.z {
                for y in a.y...b.y {
                    for x in a.x...b.x {
                        let c = (z * dims.y + y) * dims.x + x
                        for k in Int(offsets[c])..<Int(offsets[c + 1]) {
                            let u = Int(items[k])
                            guard seen[u] != Int32(t) else { continue }
                            seen[u] = Int32(t)
                            guard all(lo[u] .<= thi), all(tlo .<= hi[u]) else { continue }
                            tests += 1
                            let i = Int(triangles[3 * u]), j = Int(triangles[3 * u + 1]), l = Int(triangles[3 * u + 2])
                            if SelfIntersection.trianglesIntersect(p[i], p[j], p[l], d, e, f) { return true }
                        }
                    }
                }
            }
            return false
        }
    }
}
