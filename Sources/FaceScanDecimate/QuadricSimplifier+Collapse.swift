extension DecimationCore {
    /// Collapses the sorted candidates in order, each vertex at most once per pass, at most
    /// `budget` of them. Returns the number of collapses (= vertices removed).
    /// With `endpointFallback`, a candidate refused at its placement is tried at the kept
    /// vertex's position (a half-edge collapse).
    func collapsePass(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, endpointFallback: Bool = false)
        -> Int
    {
        resetMarksIfNeeded(count, stamp: &stamp)
        return collapseRange(
            count, budget: budget, pass: pass, stamp: &stamp, only: Self.anyRegion, endpointFallback: endpointFallback)
    }

    /// Restarts the mark stamps before they could wrap around within the coming pass.
    func resetMarksIfNeeded(_ count: Int, stamp: inout UInt32) {
        if UInt64(stamp) + 4 * UInt64(count) + 8 >= UInt64(UInt32.max) {
            mark.update(repeating: 0, count: vertexCount)
            stamp = 0
        }
    }

    /// Collapses, in order, the sorted candidates that `only` selects: those whose `side` is
    /// `only` (0 or 1: both ends tagged with that half; `Self.seam`: at least one end on the
    /// seam), or all (`Self.anyRegion`); each vertex at most once per pass, at most `budget`
    /// collapses.
    func collapseRange(
        _ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, only: UInt8,
        endpointFallback: Bool = false
    ) -> Int {
        ScratchRun<UInt32>.withTemporary(count: 2 * ShapeBatch.slots) { batches in
            collapseRange(
                count, budget: budget, pass: pass, stamp: &stamp, only: only, endpointFallback: endpointFallback,
                batches: batches)
        }
    }

    /// `batches`: room for the two ``ShapeBatch``es of ``canCollapse(drop:keep:to:stamp:batches:)``.
    func collapseRange(
        _ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, only: UInt8,
        endpointFallback: Bool, batches: ScratchRun<UInt32>
    ) -> Int {
        let order = self.order, side = self.side
        var done = 0
        var i = 0
        while i < count && done < budget {
            if only != Self.anyRegion && side[i] != only {
                i += 1
                continue
            }
            let r = order[i]
            i += 1
            if tryCollapse(r, pass: pass, stamp: &stamp, endpointFallback: endpointFallback, batches: batches) {
                done += 1
            }
        }
        return done
    }

    /// Both halves' steps of ``collapsePassSplit(_:budget:pass:stamp:)`` in one scan of the sorted
    /// candidates, on the calling thread: each entry of half `k` goes, in cost order, to half
    /// `k`'s collapses (its own stamps, `stamps[k]`) until that half has made `budgets[k]`. The
    /// halves touch disjoint memory, so this makes exactly the collapses of the two steps one
    /// after the other (or on two threads), with one pass over `side` instead of two. Returns each
    /// half's count.
    func collapseHalves(
        _ count: Int, budgets: (Int, Int), pass: UInt32, stamps: inout (UInt32, UInt32)
    ) -> (Int, Int) {
        ScratchRun<UInt32>.withTemporary(count: 2 * ShapeBatch.slots) { batches in
            let order = self.order, side = self.side
            var done0 = 0, done1 = 0
            var open0 = budgets.0 > 0, open1 = budgets.1 > 0
            var i = 0
            // One call site of `tryCollapse` (inlined), with the half's stamp and count selected.
            while i < count && (open0 || open1) {
                let k = side[i]
                let r = order[i]
                i += 1
                guard k == 0 ? open0 : (k == 1 && open1) else { continue }
                var stamp = k == 0 ? stamps.0 : stamps.1
                let made = tryCollapse(r, pass: pass, stamp: &stamp, endpointFallback: false, batches: batches)
                if k == 0 {
                    stamps.0 = stamp
                    done0 += made ? 1 : 0
                    open0 = done0 < budgets.0
                } else {
                    stamps.1 = stamp
                    done1 += made ? 1 : 0
                    open1 = done1 < budgets.1
                }
            }
            return (done0, done1)
        }
    }

    /// Collapses sorted entry `r` unless one of its ends was already taken this pass or the
    /// checks refuse it (with `endpointFallback`, a candidate refused at its placement is tried
    /// at the kept vertex's position). True when it collapsed.
    @inline(__always)
    func tryCollapse(
        _ r: Ranked, pass: UInt32, stamp: inout UInt32, endpointFallback: Bool,
        batches: ScratchRun<UInt32>
    ) -> Bool {
        let touched = self.touched
        let u = r.drop, v = r.keep
        if touched[Int(u)] == pass || touched[Int(v)] == pass { return false }
        var p = cand[Int(r.candidate)].position
        if !canCollapse(drop: u, keep: v, to: p, stamp: &stamp, batches: batches) {
            guard endpointFallback, p != pos[Int(v)] else { return false }
            p = pos[Int(v)]
            guard canCollapse(drop: u, keep: v, to: p, stamp: &stamp, batches: batches) else { return false }
        }
        collapse(drop: u, keep: v, to: p)
        touched[Int(u)] = pass
        touched[Int(v)] = pass
        return true
    }

    /// Link condition, pinch, duplicate, flip and sliver checks of collapsing `u` into `v` at `p`,
    /// against the live mesh. Two walks, one per fan: each checks the shape of the triangles that
    /// survive around its vertex while it gathers (u) or tests (v) the neighbours.
    @inline(__always)
    func canCollapse(
        drop u: UInt32, keep v: UInt32, to p: SIMD3<Float>, stamp: inout UInt32,
        batches: ScratchRun<UInt32>
    ) -> Bool {
        let tri = self.tri, adj = self.adj, mark = self.mark
        stamp &+= 2
        let s1 = stamp, s2 = stamp &+ 1
        let uLo = Int(adjOffsets[Int(u)]), uHi = Int(adjOffsets[Int(u) + 1])
        let vLo = Int(adjOffsets[Int(v)]), vHi = Int(adjOffsets[Int(v) + 1])
        let ref = refNormal[Int(u)] + refNormal[Int(v)]
        let moveU = Move(self, u, to: p, reference: ref), moveV = Move(self, v, to: p, reference: ref)
        // 1. Neighbours of u; the triangles on the edge and their opposite vertices; every other
        //    triangle of u must keep its shape with u at p.
        var shared = 0
        var o0 = UInt32.max, o1 = UInt32.max
        var uBatch = ShapeBatch(batches)
        for i in uLo..<uHi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == v || y == v || z == v {
                shared += 1
                let o = x ^ y ^ z ^ u ^ v
                if shared == 1 { o0 = o } else { o1 = o }
            } else if !keepsShape(x, y, z, moveU, &uBatch) {
                return false
            }
            mark[Int(x)] = s1
            mark[Int(y)] = s1
            mark[Int(z)] = s1
        }
        guard flushShapes(&uBatch, moveU) else { return false }
        let bothBoundary = flags[Int(u)] & flags[Int(v)] & Flag.boundary != 0
        if shared == 2 {
            if bothBoundary { return false }  // would pinch the surface at an interior edge
        } else if shared != 1 || !bothBoundary {
            return false
        }
        // 2. Link condition: the common neighbours are exactly the opposite vertices. Every other
        //    triangle of v must keep its shape with v at p, and not be (o0, o1, v) while u has
        //    (o0, o1, u): the two would become copies of one triangle.
        // A neighbour counts once: marked `s2` once seen (u and v beforehand, as they never count).
        mark[Int(u)] = s2
        mark[Int(v)] = s2
        var common = 0
        var vHasOpposites = false
        var vBatch = ShapeBatch(batches + ShapeBatch.slots)
        for i in vLo..<vHi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            common &+= mark[Int(x)] == s1 ? 1 : 0
            mark[Int(x)] = s2
            common &+= mark[Int(y)] == s1 ? 1 : 0
            mark[Int(y)] = s2
            common &+= mark[Int(z)] == s1 ? 1 : 0
            mark[Int(z)] = s2
            if x == u || y == u || z == u { continue }
            if shared == 2 && Self.holdsBoth(x, y, z, o0, o1) { vHasOpposites = true }
            if !keepsShape(x, y, z, moveV, &vBatch) { return false }
        }
        if common != shared || !flushShapes(&vBatch, moveV) { return false }
        if vHasOpposites && hasTriangleWithBoth(uLo, uHi, o0, o1, besides: v) { return false }
        // A boundary edge's one triangle dies: its corners must keep a triangle each (a lone
        // triangle, or a fan of one, would leave a vertex behind unreferenced).
        if shared == 1 {
            let oLo = Int(adjOffsets[Int(o0)]), oHi = Int(adjOffsets[Int(o0) + 1])
            guard hasTriangleSurviving(oLo, oHi, u, v),
                hasTriangleSurviving(uLo, uHi, u, v) || hasTriangleSurviving(vLo, vHi, u, v)
            else { return false }
        }
        return true
    }

    /// Whether adjacency slots `lo..<hi` hold a live triangle that does not have both `a` and `b`.
    @inline(__always)
    func hasTriangleSurviving(_ lo: Int, _ hi: Int, _ a: UInt32, _ b: UInt32) -> Bool {
        for i in lo..<hi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if !Self.holdsBoth(x, y, z, a, b) { return true }
        }
        return false
    }

    /// Whether adjacency slots `lo..<hi` hold a live triangle with both `a` and `b` but not `c`.
    @inline(__always)
    func hasTriangleWithBoth(_ lo: Int, _ hi: Int, _ a: UInt32, _ b: UInt32, besides c: UInt32) -> Bool {
        for i in lo..<hi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == c || y == c || z == c { continue }
            if Self.holdsBoth(x, y, z, a, b) { return true }
        }
        return false
    }

    /// Whether triangle `(x, y, z)` has both `a` and `b` as corners.
    @inline(__always)
    static func holdsBoth(_ x: UInt32, _ y: UInt32, _ z: UInt32, _ a: UInt32, _ b: UInt32) -> Bool {
        (x == a || y == a || z == a) && (x == b || y == b || z == b)
    }

    /// Collapses `u` into `v`, which moves to `p`: quadrics add, the UV follows, u's triangles on
    /// the edge die and the others take `v`.
    @inline(__always)
    func collapse(drop u: UInt32, keep v: UInt32, to p: SIMD3<Float>) {
        let tri = self.tri, adj = self.adj
        let iu = Int(u), iv = Int(v)
        quad[iv].add(quad[iu])
        refNormal[iv] += refNormal[iu]
        if hasUVs {
            // The UV of the edge point nearest p.
            let pu = pos[iu], e = pos[iv] - pu
            let ee = (e * e).sum()
            var t: Float = 1
            if ee > 0 { t = min(max(((p - pu) * e).sum() / ee, 0), 1) }
            uv[iv] = uv[iu] + (uv[iv] - uv[iu]) * t
        }
        pos[iv] = p
        flags[iv] |= flags[iu] & Flag.boundary
        for i in Int(adjOffsets[iu])..<Int(adjOffsets[iu + 1]) {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == v || y == v || z == v {
                tri[base] = Self.deadTriangle
            } else if x == u {
                tri[base] = v
            } else if y == u {
                tri[base + 1] = v
            } else {
                tri[base + 2] = v
            }
        }
    }
}
