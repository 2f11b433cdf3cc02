/// Per-triangle planes and per-corner neighbours for ``DecimationCore/classifyAndAccumulate(_:origin:)``:
/// each thread writes its own range of slots.
struct ClassifyScratch: @unchecked Sendable {
    let planes: UnsafeMutablePointer<SIMD4<Double>>
    let normals: UnsafeMutablePointer<SIMD3<Float>>
    let nextOf: UnsafeMutablePointer<UInt32>
    let prevOf: UnsafeMutablePointer<UInt32>
}

/// The input a refined mesh was subdivided from (see ``QuadricSimplifier/init(_:origin:)``).
struct Origin: @unchecked Sendable {
    let positions: UnsafeBufferPointer<SIMD3<Float>>
    let triangles: UnsafeBufferPointer<UInt32>
    let levels: Int

    /// The input triangle and its edge (`k`: corner `k` → corner `k + 1`) that half-edge `k` of
    /// refined triangle `t` lies on, or `nil` for a half-edge inside an input triangle. Child `j`
    /// (< 3) of a triangle keeps corner `j`; its half-edge 0 lies on parent edge `j`, its half-edge
    /// 2 on parent edge `j + 2 (mod 3)`; child 3 and every half-edge 1 are inside.
    @inline(__always)
    func edge(_ t: Int, _ k: Int) -> (triangle: Int, edge: Int)? {
        var t = t, k = k
        for _ in 0..<levels {
            let j = t & 3
            if j == 3 || k == 1 { return nil }
            k = k == 0 ? j : (j + 2) % 3
            t >>= 2
        }
        return (t, k)
    }
}

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
    func classifyAndAccumulate(_ triangleSlots: Int, origin: Origin?) {
        let s = self
        let corners = 3 * triangleSlots
        // The scratch lives in `cand`'s memory (candidates come later).
        var take = ScratchArena.Cursor(base: s.candBytes, byteCount: Self.classifyScratchBytes(triangles: triangleSlots))
        let planes = take.take(SIMD4<Double>.self, triangleSlots)
        let normals = take.take(SIMD3<Float>.self, triangleSlots)
        let nextOf = take.take(UInt32.self, corners + 8)
        let prevOf = take.take(UInt32.self, corners + 8)
        take.finish()
        (nextOf + corners).initialize(repeating: 0, count: 8)
        (prevOf + corners).initialize(repeating: 0, count: 8)
        defer { _ = s.candBytes.bindMemory(to: Candidate.self, capacity: max(corners, 1)) }
        let scratch = ClassifyScratch(planes: planes, normals: normals, nextOf: nextOf, prevOf: prevOf)
        let parallel = triangleSlots >= Tuning.parallelTriangles
        s.inHalves(triangleSlots, parallel: parallel) { lo, hi in
            s.facePlanes(lo, hi, origin: origin, scratch)
        }
        // The fan check's marks: `mark` for the first half of the vertices, `touched` for the
        // second (each thread its own), cleared for the passes afterwards.
        s.inHalves(s.vertexCount, parallel: parallel) { lo, hi in
            s.classifyVertices(lo, hi, origin: origin, scratch, seen: lo == 0 ? s.mark : s.touched)
        }
        s.mark.update(repeating: 0, count: s.vertexCount)
        s.touched.update(repeating: 0, count: s.vertexCount)
    }

    /// Step 1 of ``classifyAndAccumulate(_:origin:)`` for triangles `lo..<hi`: the plane scaled so
    /// that its quadric is area-weighted (`(n, d)·√(area)`; zero for a degenerate triangle) and the
    /// area-weighted normal.
    func facePlanes(_ lo: Int, _ hi: Int, origin: Origin?, _ out: ClassifyScratch) {
        let s = self
        let tri = s.tri
        // The input triangle's plane, shared by its 4^levels consecutive children: computed once.
        var cachedOrigin = -1
        var originPlane: (unit: SIMD3<Double>, anchor: SIMD3<Double>)? = nil
        for t in lo..<hi {
            let base = 3 * t
            let i0 = tri[base], i1 = tri[base + 1], i2 = tri[base + 2]
            let p0 = s.local(i0)
            let nrm = Self.cross(s.local(i1) - p0, s.local(i2) - p0)
            let len = Self.dot(nrm, nrm).squareRoot()
            out.normals[t] = SIMD3<Float>(nrm)
            guard len > 0 else {
                out.planes[t] = .zero
                continue
            }
            var unit = nrm / len
            var anchor = p0
            if let origin {
                // The plane of the input triangle this one was subdivided from.
                let ot = t >> (2 * origin.levels)
                if ot != cachedOrigin {
                    cachedOrigin = ot
                    let ob = 3 * ot
                    let o0 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob])]) - s.centre
                    let o1 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 1])]) - s.centre
                    let o2 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 2])]) - s.centre
                    let on = Self.cross(o1 - o0, o2 - o0)
                    let ol = Self.dot(on, on).squareRoot()
                    originPlane = ol > 0 ? (on / ol, o0) : nil
                }
                if let originPlane {
                    unit = originPlane.unit
                    anchor = originPlane.anchor
                }
            }
            let w = (0.5 * len).squareRoot()
            out.planes[t] = SIMD4(unit.x * w, unit.y * w, unit.z * w, -Self.dot(unit, anchor) * w)
        }
    }

    /// Step 2 of ``classifyAndAccumulate(_:origin:)`` for vertices `lo..<hi`. `seen`: a mark per
    /// vertex for ``isClosedManifoldFan(_:_:count:seen:stamp:)``, all zero (vertex `a` stamps
    /// `2a + 1` and `2a + 2`, above every earlier vertex's).
    func classifyVertices(_ lo: Int, _ hi: Int, origin: Origin?, _ scratch: ClassifyScratch, seen: UnsafeMutablePointer<UInt32>) {
        let s = self
        let adj = s.adj, off = s.adjOffsets
        let nextOf = scratch.nextOf, prevOf = scratch.prevOf
        let lanes = SIMD8<UInt32>(0, 1, 2, 3, 4, 5, 6, 7), zero = SIMD8<UInt32>()
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
            if !Self.isClosedManifoldFan(nextOf + first, prevOf + first, count: last - first,
                                         seen: seen, stamp: UInt32(truncatingIfNeeded: 2 * a + 1)) {
                var outgoingBoundary = 0
                for i in first..<last {
                    let b = nextOf[i], p = prevOf[i]
                    // `a → b` has an opposite when some triangle of `a` has `b → a` (b precedes
                    // a); an edge used twice in one direction (b or p repeated) is not manifold.
                    // Counted 8 fan slots at a time, lanes past the fan masked off.
                    let vb = SIMD8<UInt32>(repeating: b), vp = SIMD8<UInt32>(repeating: p)
                    var outB = SIMD8<UInt32>(), inB = SIMD8<UInt32>(), outP = SIMD8<UInt32>(), inP = SIMD8<UInt32>()
                    var j = first
                    while j < last {
                        let live = lanes .< SIMD8<UInt32>(repeating: UInt32(truncatingIfNeeded: last - j))
                        let nv = UnsafeRawPointer(nextOf + j).loadUnaligned(as: SIMD8<UInt32>.self)
                        let pv = UnsafeRawPointer(prevOf + j).loadUnaligned(as: SIMD8<UInt32>.self)
                        outB &+= zero.replacing(with: 1, where: live .& (nv .== vb))
                        inB &+= zero.replacing(with: 1, where: live .& (pv .== vb))
                        outP &+= zero.replacing(with: 1, where: live .& (nv .== vp))
                        inP &+= zero.replacing(with: 1, where: live .& (pv .== vp))
                        j += 8
                    }
                    let nOutB = outB.wrappedSum(), nInB = inB.wrappedSum()
                    let nOutP = outP.wrappedSum(), nInP = inP.wrappedSum()
                    if nOutB > 1 || nInB > 1 || nOutP > 1 || nInP > 1 { flag |= Flag.locked }
                    let t = Int(adj[i])
                    if nInB == 0 {
                        outgoingBoundary += 1
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: va, to: b, origin: origin) { q.add(bq) }
                    }
                    if nOutP == 0 {
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: p, to: va, origin: origin) { q.add(bq) }
                    }
                }
                // Two boundary fans touching at one vertex: not a manifold vertex, keep it.
                if outgoingBoundary > 1 { flag |= Flag.locked }
            }
            s.quad[a] = q
            s.refNormal[a] = normal
            s.flags[a] = flag
        }
    }

    /// Whether a fan (corner `i` follows the vertex by `next[i]` and precedes it by `prev[i]`)
    /// closes around its vertex as one manifold disc: no neighbour repeats among `next`, and each
    /// `prev` is a `next` not yet matched (then, both being `count` distinct values, the two sets
    /// are equal: every half-edge has its opposite). The common case of
    /// ``classifyVertices(_:_:origin:_:seen:)``: a mark per neighbour instead of four counts per
    /// corner; `false` sends the fan to the corner-by-corner classification.
    /// `seen`: marks per vertex, none equal to `stamp` (it leaves `stamp` and `stamp + 1`).
    @inline(__always)
    static func isClosedManifoldFan(_ next: UnsafeMutablePointer<UInt32>, _ prev: UnsafeMutablePointer<UInt32>, count: Int,
                                    seen: UnsafeMutablePointer<UInt32>, stamp: UInt32) -> Bool {
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
    /// perpendicular to the triangle (to the input's edge and triangle it lies on, after
    /// refinement), weighted by the squared edge length.
    @inline(__always)
    func boundaryQuadric(_ t: Int, from a: UInt32, to b: UInt32, origin: Origin?) -> Quadric? {
        let s = self
        let base = 3 * t
        var c0 = s.local(tri[base]), c1 = s.local(tri[base + 1]), c2 = s.local(tri[base + 2])
        var pa = s.local(a), pb = s.local(b)
        let k = tri[base] == a ? 0 : (tri[base + 1] == a ? 1 : 2)
        if let origin, let (ot, oe) = origin.edge(t, k) {
            // The input's boundary edge this one lies on, and its triangle.
            let ob = 3 * ot
            c0 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob])]) - s.centre
            c1 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 1])]) - s.centre
            c2 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 2])]) - s.centre
            pa = oe == 0 ? c0 : (oe == 1 ? c1 : c2)
            pb = oe == 0 ? c1 : (oe == 1 ? c2 : c0)
        }
        let nrm = Self.cross(c1 - c0, c2 - c0)
        let m = Self.cross(pb - pa, nrm)
        let ml = Self.dot(m, m).squareRoot()
        guard ml > 0 else { return nil }
        let mu = m / ml
        let own = s.local(b) - s.local(a)
        return Quadric(plane: mu, d: -Self.dot(mu, pa), weight: Tuning.boundaryWeight * Self.dot(own, own))
    }
}
