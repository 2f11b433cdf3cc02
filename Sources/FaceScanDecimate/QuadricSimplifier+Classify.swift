import FaceScanCore

extension DecimationCore {
    /// Accumulates area-weighted face quadrics; marks boundary vertices and adds heavy boundary
    /// quadrics (plane through the boundary edge, perpendicular to its face); locks vertices the
    /// simplifier must not touch. Needs a current adjacency.
    ///
    /// Two steps, each split over two threads for large meshes and each writing only its own
    /// slots, so the result is the same bytes on one or two threads: (1) every triangle's scaled
    /// plane and normal; (2) every vertex sums the planes of its triangles in ascending triangle
    /// order and classifies itself from its own triangle list alone: half-edge `a → b` has an
    /// opposite when `b` precedes `a` in another triangle of `a`, and incoming half-edge `p → a`
    /// is a boundary edge when no triangle of `a` has `a → p`.
    func classifyAndAccumulate(_ triangleSlots: Int) {
        let s = self
        // The scratch lives in `cand`'s memory (candidates come later).
        let scratch = s.classifyScratch(triangleSlots)
        defer { s.endClassifyScratch(triangleSlots) }
        let parallel = triangleSlots >= Tuning.parallelTriangles
        s.inHalves(triangleSlots, parallel: parallel) { lo, hi in
            s.facePlanes(lo, hi, scratch)
        }
        // The fan check's marks: `mark` for the first half of the vertices, `touched` for the
        // second (each thread its own), cleared for the passes afterwards.
        s.inHalves(s.vertexCount, parallel: parallel) { lo, hi in
            s.classifyVertices(lo, hi, scratch, seen: lo == 0 ? s.mark : s.touched)
        }
        s.mark.update(repeating: 0, count: s.vertexCount)
        s.touched.update(repeating: 0, count: s.vertexCount)
    }

    /// Step 1 of ``classifyAndAccumulate(_:)`` for triangles `lo..<hi`: the plane scaled so
    /// that its quadric is area-weighted (`(n, d)·√(area)`; zero for a degenerate triangle) and the
    /// area-weighted normal.
    func facePlanes(_ lo: Int, _ hi: Int, _ out: ClassifyScratch) {
        let s = self
        let tri = s.tri
        for t in lo..<hi {
            let base = 3 * t
            let i0 = tri[base], i1 = tri[base + 1], i2 = tri[base + 2]
            let p0 = s.local(i0)
            let nrm = cross3(s.local(i1) - p0, s.local(i2) - p0)
            let len = dot3(nrm, nrm).squareRoot()
            out.normals[t] = SIMD3<Float>(nrm)
            guard len > 0 else {
                out.planes[t] = .zero
                continue
            }
            let unit = nrm / len
            let w = (0.5 * len).squareRoot()
            out.planes[t] = SIMD4(unit.x * w, unit.y * w, unit.z * w, -dot3(unit, p0) * w)
        }
    }

    /// Step 2 of ``classifyAndAccumulate(_:)`` for vertices `lo..<hi`. `seen`: a mark per
    /// vertex for ``isClosedManifoldFan(_:_:count:seen:stamp:)``, all zero (vertex `a` stamps
    /// `2a + 1` and `2a + 2`, above every earlier vertex's), and for
    /// ``countNeighbours(_:_:count:into:)`` when a fan is not a closed disc.
    func classifyVertices(_ lo: Int, _ hi: Int, _ scratch: ClassifyScratch, seen: ScratchRun<UInt32>) {
        let s = self
        let adj = s.adj, off = s.adjOffsets
        let nextOf = scratch.nextOf, prevOf = scratch.prevOf
        for a in lo..<hi {
            let first = Int(off[a]), last = Int(off[a + 1])
            let va = UInt32(a)
            var q = Quadric()
            var normal = SIMD3<Float>.zero
            var flag: UInt8 = 0
            for i in first..<last {
                let t = Int(adj[i])
                let (n, p) = s.around(va, in: t)
                nextOf[i] = n
                prevOf[i] = p
                q.add(Quadric(scaledPlane: scratch.planes[t]))
                normal += scratch.normals[t]
            }
            if !Self.isClosedManifoldFan(
                nextOf + first, prevOf + first, count: last - first,
                seen: seen, stamp: UInt32(truncatingIfNeeded: 2 * a + 1))
            {
                // How often each neighbour follows and precedes `a`: linear in the fan, however
                // many triangles share `a`.
                Self.countNeighbours(nextOf + first, prevOf + first, count: last - first, into: seen)
                var outgoingBoundary = 0
                for i in first..<last {
                    let b = nextOf[i], p = prevOf[i]
                    // `a → b` has an opposite when some triangle of `a` has `b → a` (b precedes
                    // a); an edge used twice in one direction (b or p repeated) is not manifold.
                    let cb = seen[Int(b)], cp = seen[Int(p)]
                    let nOutB = cb & 3, nInB = cb >> 2, nOutP = cp & 3, nInP = cp >> 2
                    if nOutB > 1 || nInB > 1 || nOutP > 1 || nInP > 1 { flag |= Flag.locked }
                    let t = Int(adj[i])
                    if nInB == 0 {
                        outgoingBoundary += 1
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: va, to: b) { q.add(bq) }
                    }
                    if nOutP == 0 {
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: p, to: va) { q.add(bq) }
                    }
                }
                // Two boundary fans touching at one vertex: not a manifold vertex, keep it.
                if outgoingBoundary > 1 { flag |= Flag.locked }
                Self.clearNeighbours(nextOf + first, prevOf + first, count: last - first, in: seen)
            }
            s.quad[a] = q
            s.refNormal[a] = normal
            s.flags[a] = flag
        }
    }

    /// Counts, per neighbour `v` of a fan, how many of its corners it follows (`next[i] == v`,
    /// bits 0–1 of `seen[v]`) and precedes (`prev[i] == v`, bits 2–3), each up to 2 (all that
    /// classification asks: none, one, more). Overwrites whatever marks the neighbours had.
    @inline(__always)
    static func countNeighbours(
        _ next: ScratchRun<UInt32>, _ prev: ScratchRun<UInt32>, count: Int,
        into seen: ScratchRun<UInt32>
    ) {
        clearNeighbours(next, prev, count: count, in: seen)
        for i in 0..<count {
            let b = Int(next[i])
            seen[b] = (seen[b] & ~3) | min((seen[b] & 3) + 1, 2)
            let p = Int(prev[i])
            seen[p] = (seen[p] & 3) | (min((seen[p] >> 2) + 1, 2) << 2)
        }
    }

    /// Sets the marks of a fan's neighbours back to zero (below every stamp) after
    /// ``countNeighbours(_:_:count:into:)``.
    @inline(__always)
    static func clearNeighbours(
        _ next: ScratchRun<UInt32>, _ prev: ScratchRun<UInt32>, count: Int,
        in seen: ScratchRun<UInt32>
    ) {
        for i in 0..<count {
            seen[Int(next[i])] = 0
            seen[Int(prev[i])] = 0
        }
    }

    /// Whether a fan (corner `i` follows the vertex by `next[i]` and precedes it by `prev[i]`)
    /// closes around its vertex as one manifold disc: no neighbour repeats among `next`, and each
    /// `prev` is a `next` not yet matched (then, both being `count` distinct values, the two sets
    /// are equal: every half-edge has its opposite). The common case of
    /// ``classifyVertices(_:_:_:seen:)``: a mark per neighbour instead of four counts per
    /// corner; `false` sends the fan to the corner-by-corner classification.
    /// `seen`: marks per vertex, none equal to `stamp` (it leaves `stamp` and `stamp + 1`).
    @inline(__always)
    static func isClosedManifoldFan(
        _ next: ScratchRun<UInt32>, _ prev: ScratchRun<UInt32>, count: Int,
        seen: ScratchRun<UInt32>, stamp: UInt32
    ) -> Bool {
        let isNext = stamp, matched = stamp &+ 1
        var bad: UInt32 = 0
        for i in 0..<count {
            let b = Int(next[i])
            bad |= seen[b] == isNext ? 1 : 0
            seen[b] = isNext
        }
        for i in 0..<count {
            let p = Int(prev[i])
            bad |= seen[p] != isNext ? 1 : 0
            seen[p] = matched
        }
        return bad == 0
    }

    /// The heavy quadric of boundary half-edge `a → b` of triangle `t`: the plane through the edge
    /// perpendicular to the triangle, weighted by the squared edge length.
    @inline(__always)
    func boundaryQuadric(_ t: Int, from a: UInt32, to b: UInt32) -> Quadric? {
        let s = self
        let base = 3 * t
        let c0 = s.local(tri[base]), c1 = s.local(tri[base + 1]), c2 = s.local(tri[base + 2])
        let pa = s.local(a), pb = s.local(b)
        let nrm = cross3(c1 - c0, c2 - c0)
        let m = cross3(pb - pa, nrm)
        let ml = dot3(m, m).squareRoot()
        guard ml > 0 else { return nil }
        let mu = m / ml
        let own = s.local(b) - s.local(a)
        return Quadric(plane: mu, d: -dot3(mu, pa), weight: Tuning.boundaryWeight * dot3(own, own))
    }
}
