extension DecimationCore {

    /// Vertex → triangle CSR over the live triangle slots (count → prefix-sum → fill with the
    /// offsets as cursors → shift back). Triangles of a vertex are listed in ascending order.
    /// Large meshes count and fill on two threads, each over half of the slots (see
    /// ``buildAdjacencyInHalves(_:)``): the same lists.
    func buildAdjacency(_ triangleSlots: Int) {
        if splitsInTwo(triangleSlots) {
            buildAdjacencyInHalves(triangleSlots)
            return
        }
        let s = self
        let n = s.vertexCount
        let off = s.adjOffsets
        off.update(repeating: 0, count: n + 1)
        s.countCorners(0, triangleSlots, into: off + 1)
        for v in 0..<n { off[v + 1] += off[v] }
        s.fillLists(0, triangleSlots, cursors: off)
        s.shiftOffsets(from: off)
    }

    /// ``buildAdjacency(_:)`` on two threads: the first half of the triangle slots counts into
    /// `adjOffsets` and fills from each vertex's start, the second counts into `mark` and fills
    /// from the start plus the first half's count, so each list is still in ascending triangle
    /// order. `mark` is zero afterwards (below every stamp).
    func buildAdjacencyInHalves(_ triangleSlots: Int) {
        let s = self
        let n = s.vertexCount
        let off = s.adjOffsets, second = s.mark
        let half = triangleSlots / 2
        // Per half: the corners of each vertex in its slots; then, as cursors, where the next
        // triangle of the vertex goes.
        s.bothSides(parallel: true) { k in
            let counts = k == 0 ? s.adjOffsets + 1 : s.mark
            counts.update(repeating: 0, count: n)
            s.countCorners(k == 0 ? 0 : half, k == 0 ? half : triangleSlots, into: counts)
        }
        var start: UInt32 = 0
        for v in 0..<n {
            let first = off[v + 1], rest = second[v]
            off[v] = start
            second[v] = start + first
            start += first + rest
        }
        s.bothSides(parallel: true) { k in
            s.fillLists(k == 0 ? 0 : half, k == 0 ? half : triangleSlots, cursors: k == 0 ? s.adjOffsets : s.mark)
        }
        // The second half's cursors stop at the next vertex's start.
        s.shiftOffsets(from: second)
        second.update(repeating: 0, count: n)
    }

    /// Adds one to `counts[v]` for each corner `v` of the live triangles in slots `lo..<hi`.
    @inline(__always)
    func countCorners(_ lo: Int, _ hi: Int, into counts: ScratchRun<UInt32>) {
        let tri = self.tri
        var i = 3 * lo
        let end = 3 * hi
        while i < end {
            if tri[i] != Self.deadTriangle {
                counts[Int(tri[i])] += 1
                counts[Int(tri[i + 1])] += 1
                counts[Int(tri[i + 2])] += 1
            }
            i += 3
        }
    }

    /// Lists each live triangle of slots `lo..<hi` under its corners, at `cursors[v]`, advancing it.
    @inline(__always)
    func fillLists(_ lo: Int, _ hi: Int, cursors: ScratchRun<UInt32>) {
        let tri = self.tri, adj = self.adj
        for t in lo..<hi {
            let base = 3 * t
            if tri[base] == Self.deadTriangle { continue }
            for k in 0..<3 {
                let v = Int(tri[base + k])
                adj[Int(cursors[v])] = UInt32(truncatingIfNeeded: t)
                cursors[v] += 1
            }
        }
    }

    /// `adjOffsets` from the cursors after filling: vertex `v`'s cursor stopped where `v + 1`'s
    /// list starts.
    @inline(__always)
    func shiftOffsets(from cursors: ScratchRun<UInt32>) {
        let off = adjOffsets
        var v = vertexCount
        while v > 0 {
            off[v] = cursors[v - 1]
            v -= 1
        }
        off[0] = 0
    }

    /// True when some live triangle has the directed edge `a → b`: looked up in the shorter of
    /// the two ends' triangle lists (`b` follows `a` in a triangle of `a`, or `a` precedes `b` in
    /// a triangle of `b`), so that the edges of a vertex in very many triangles cost no more than
    /// their other ends' lists.
    @inline(__always)
    func hasHalfEdge(from a: UInt32, to b: UInt32) -> Bool {
        let aLo = Int(adjOffsets[Int(a)]), aHi = Int(adjOffsets[Int(a) + 1])
        let bLo = Int(adjOffsets[Int(b)]), bHi = Int(adjOffsets[Int(b) + 1])
        if aHi - aLo <= bHi - bLo {
            for i in aLo..<aHi where around(a, in: Int(adj[i])).next == b { return true }
        } else {
            for i in bLo..<bHi where around(b, in: Int(adj[i])).prev == a { return true }
        }
        return false
    }

    /// ``compactTriangles(_:)`` then ``buildAdjacency(_:)``; on one thread the corners are
    /// counted while the slots are compacted (one sweep over the triangles fewer). Returns the new
    /// slot count.
    func compactAndList(_ triangleSlots: Int) -> Int {
        let live = compactTriangles(triangleSlots, countingInto: splitsInTwo(triangleSlots) ? nil : adjOffsets)
        if splitsInTwo(live) {
            buildAdjacencyInHalves(live)
            return live
        }
        if splitsInTwo(triangleSlots) {
            // Counted nothing (two threads, now under the size for them): list as usual.
            buildAdjacency(live)
            return live
        }
        let n = vertexCount
        let off = adjOffsets
        for v in 0..<n { off[v + 1] += off[v] }
        fillLists(0, live, cursors: off)
        shiftOffsets(from: off)
        return live
    }

    /// Removes dead triangle slots, keeping order; returns the new slot count. With `counts`,
    /// also sets `counts[v + 1]` to the number of live corners of vertex `v` (and `counts[0]`
    /// to 0), as ``buildAdjacency(_:)`` counts them.
    func compactTriangles(_ triangleSlots: Int, countingInto counts: ScratchRun<UInt32>?) -> Int {
        guard let counts else { return compactTriangles(triangleSlots) }
        let tri = self.tri
        counts.update(repeating: 0, count: vertexCount + 1)
        let c = counts + 1
        var w = 0
        for t in 0..<triangleSlots {
            let r = 3 * t
            let a = tri[r]
            if a == Self.deadTriangle { continue }
            let b = tri[r + 1], d = tri[r + 2]
            tri[w] = a
            tri[w + 1] = b
            tri[w + 2] = d
            c[Int(a)] += 1
            c[Int(b)] += 1
            c[Int(d)] += 1
            w += 3
        }
        return w / 3
    }

    /// Removes dead triangle slots, keeping order; returns the new slot count.
    func compactTriangles(_ triangleSlots: Int) -> Int {
        let tri = self.tri
        var w = 0
        for t in 0..<triangleSlots {
            let r = 3 * t
            if tri[r] == Self.deadTriangle { continue }
            if w != r {
                tri[w] = tri[r]
                tri[w + 1] = tri[r + 1]
                tri[w + 2] = tri[r + 2]
            }
            w += 3
        }
        return w / 3
    }
}
