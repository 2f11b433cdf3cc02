/// The topology of a triangle mesh, built once per mesh from its triangle list and used by every
/// stage that asks about edges: its undirected edges with the half-edges on each side, each
/// half-edge's twin, the vertex → neighbour CSR (`neighbours()`, an `Adjacency`), the boundary
/// loops (`boundaryLoops()`, MeshTopology+Loops.swift), the boundary's connected parts and the
/// connected pieces. Users: refinement (twins, open edges) and its fairing (`rings(triangles:twin:vertexCount:)`),
/// subdivision (an edge point per edge), hole filling and the level set (loops, neighbours,
/// pieces), plane trim (a cut vertex per edge), ``MeshCheck`` and so `inspect` (edge uses, loops).
///
/// Edges are numbered in ascending (low, high) order, low < high — the order of the entries
/// `high > low` of `Adjacency/neighbors`, which is built from them. Half-edge `h` runs from
/// corner `h` to the next corner of its triangle. Built by counting sorts over flat buffers (no
/// hashing); a value, like the mesh it describes.
package struct MeshTopology: Sendable {
    /// The triangle list it describes (3 indices per triangle).
    let triangles: [UInt32]
    let vertexCount: Int
    /// Per half-edge, its edge; 0 (not an edge of it) for a degenerate half-edge v → v.
    package let edgeOfHalf: [UInt32]
    /// Per half-edge, the other half-edge of its edge it is paired with (the edge's half-edges in
    /// order, paired two by two: on a manifold edge the opposite one), −1 for none (a boundary
    /// edge, or the odd one of a non-manifold edge). Degenerate half-edges v → v pair the same way.
    package let twin: [Int32]
    /// Per edge, its ends.
    package let low: [UInt32]
    package let high: [UInt32]
    /// Edge `e` is used by half-edges `halves[halfStart[e] ..< halfStart[e] + uses[e]]`, ascending:
    /// one use is a boundary edge, two an interior one, more a non-manifold one.
    let halfStart: [Int32]
    let uses: [Int32]
    let halves: [UInt32]
    package let edgeCount: Int
    /// Edges used by exactly one triangle.
    package let boundaryEdgeCount: Int

    package init(_ mesh: Mesh) {
        self.init(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
    }

    /// The topology of `triangles` (every index below `vertexCount`).
    ///
    /// Half-edge h runs from corner h to the next corner of its triangle. Its ends, low and high,
    /// are sorted by two stable counting passes (by high, then by low), so the half-edges of each
    /// low vertex come out by high vertex and, within one undirected edge, in half-edge order. A
    /// run of equal (low, high) is one edge, used by as many triangles as the run is long (a run of
    /// one is a boundary edge); a run with low = high is a degenerate half-edge, no edge.
    /// - Complexity: O(triangles + vertices).
    package init(triangles: [UInt32], vertexCount n: Int) {
        let corners = triangles.count
        precondition(corners % 3 == 0, "triangle index count must be a multiple of 3")
        self.triangles = triangles
        vertexCount = n
        let t = triangles.flat
        var byLowStart = [Int32](repeating: 0, count: n + 1), byHighStart = byLowStart
        HalfEdgeSort.countEnds(t, vertexCount: n, byLow: &byLowStart, byHigh: &byHighStart)
        var byHighLow = [UInt32](repeating: 0, count: corners), byHighHalf = byHighLow
        HalfEdgeSort.placeByHigh(t, starts: &byHighStart, low: &byHighLow, half: &byHighHalf)
        var byLowHigh = byHighLow, halves = byHighLow
        HalfEdgeSort.placeByLow(
            vertexCount: n, byHigh: (byHighStart, byHighLow, byHighHalf), starts: &byLowStart, high: &byLowHigh,
            halves: &halves)
        let runs = HalfEdgeSort.edgeRuns(halves, vertexCount: n, byLowEnd: byLowStart, byLowHigh: byLowHigh)
        edgeOfHalf = runs.edgeOfHalf
        twin = runs.twin
        low = runs.low
        high = runs.high
        halfStart = runs.halfStart
        uses = runs.uses
        self.halves = halves
        edgeCount = runs.count
        boundaryEdgeCount = runs.boundaryCount
    }
}

/// The two stable counting sorts of `MeshTopology.init(triangles:vertexCount:)` over one
/// triangle list, in the order they run; the caller owns the arrays they fill.
private enum HalfEdgeSort {
    /// Counts the half-edges by low and by high end and turns the counts into bucket starts
    /// (`byLow`, `byHigh`: n + 1 zeros).
    static func countEnds(_ t: Span<UInt32>, vertexCount n: Int, byLow: inout [Int32], byHigh: inout [Int32]) {
        var byLowStart = byLow.flatMut, byHighStart = byHigh.flatMut
        let corners = t.count
        var f = 0
        while f < corners {
            let a = t[f], b = t[f + 1], c = t[f + 2]
            precondition(Int(max(a, max(b, c))) < n, "triangle index out of range")
            byLowStart[Int(min(a, b)) + 1] &+= 1
            byHighStart[Int(max(a, b)) + 1] &+= 1
            byLowStart[Int(min(b, c)) + 1] &+= 1
            byHighStart[Int(max(b, c)) + 1] &+= 1
            byLowStart[Int(min(c, a)) + 1] &+= 1
            byHighStart[Int(max(c, a)) + 1] &+= 1
            f += 3
        }
        for v in 0..<n {
            byLowStart[v + 1] &+= byLowStart[v]
            byHighStart[v + 1] &+= byHighStart[v]
        }
    }

    /// First pass: every half-edge into its high end's bucket, in half-edge order: its low end
    /// into `low`, the half-edge into `half` (afterwards `starts[v]` is the end of v's bucket,
    /// i.e. the start of v + 1's).
    static func placeByHigh(
        _ t: Span<UInt32>, starts: inout [Int32], low: inout [UInt32], half: inout [UInt32]
    ) {
        var byHighStart = starts.flatMut, byHighLow = low.flatMut, byHighHalf = half.flatMut
        let corners = t.count
        var f = 0
        while f < corners {
            for k in 0..<3 {
                let h = f + k
                let a = t[h], b = t[k == 2 ? f : h + 1]
                let hi = Int(max(a, b))
                let at = byHighStart[hi]
                byHighLow[Int(at)] = min(a, b)
                byHighHalf[Int(at)] = UInt32(truncatingIfNeeded: h)
                byHighStart[hi] = at &+ 1
            }
            f += 3
        }
    }

    /// Second pass: the half-edges, taken by high end (`byHigh`: the first pass's bucket ends,
    /// low ends and half-edges), into their low end's bucket: `halves` in (low, high, half-edge)
    /// order, `high` their high ends.
    static func placeByLow(
        vertexCount n: Int, byHigh: (ends: [Int32], low: [UInt32], half: [UInt32]), starts: inout [Int32],
        high: inout [UInt32], halves: inout [UInt32]
    ) {
        let byHighStart = byHigh.ends.flat, byHighLow = byHigh.low.flat, byHighHalf = byHigh.half.flat
        var byLowStart = starts.flatMut, byLowHigh = high.flatMut, out = halves.flatMut
        var q = 0
        for hi in 0..<n {
            let end = Int(byHighStart[hi])
            while q < end {
                let lo = Int(byHighLow[q])
                let at = byLowStart[lo]
                byLowHigh[Int(at)] = UInt32(truncatingIfNeeded: hi)
                out[Int(at)] = byHighHalf[q]
                byLowStart[lo] = at &+ 1
                q += 1
            }
        }
    }

    /// The per-half-edge and per-edge arrays of `MeshTopology`, the edge count and the boundary
    /// edges' count.
    typealias Runs = (
        edgeOfHalf: [UInt32], twin: [Int32], low: [UInt32], high: [UInt32], halfStart: [Int32], uses: [Int32],
        count: Int, boundaryCount: Int
    )

    /// Runs of equal high end within each low vertex's bucket of `halves` (sorted by
    /// ``placeByLow(vertexCount:byHigh:starts:high:halves:)``; `byLowEnd` its bucket ends, `byLowHigh`
    /// the high ends): the edges, in (low, high) order.
    static func edgeRuns(_ halves: [UInt32], vertexCount n: Int, byLowEnd: [Int32], byLowHigh: [UInt32]) -> Runs {
        let corners = halves.count
        var edgeOfHalf = [UInt32](repeating: 0, count: corners), twin = [Int32](repeating: 0, count: corners)
        // At most one edge per half-edge: sized so, then cut to the count.
        var low = edgeOfHalf, high = edgeOfHalf, halfStart = twin, uses = twin
        let (count, boundaryCount) = scanRuns(
            halves.flat, vertexCount: n, ends: byLowEnd.flat, highs: byLowHigh.flat, edgeOfHalf: &edgeOfHalf,
            twin: &twin, low: &low, high: &high, halfStart: &halfStart, uses: &uses)
        low.removeSubrange(count...)
        high.removeSubrange(count...)
        halfStart.removeSubrange(count...)
        uses.removeSubrange(count...)
        return (edgeOfHalf, twin, low, high, halfStart, uses, count, boundaryCount)
    }

    /// Walks the runs of `hv` (one per undirected edge, or per degenerate v → v): pairs each run's
    /// half-edges as twins, numbers its edge and records its ends and uses. Returns the edge count
    /// and how many of them are boundary edges (a run of one).
    @inline(__always)
    static func scanRuns(
        _ hv: Span<UInt32>, vertexCount n: Int, ends byLowStart: Span<Int32>, highs byLowHigh: Span<UInt32>,
        edgeOfHalf: inout [UInt32], twin: inout [Int32], low: inout [UInt32], high: inout [UInt32],
        halfStart: inout [Int32], uses: inout [Int32]
    ) -> (edges: Int, boundary: Int) {
        var outTwin = twin.flatMut, outEdge = edgeOfHalf.flatMut
        var outLow = low.flatMut, outHigh = high.flatMut
        var outStart = halfStart.flatMut, outUses = uses.flatMut
        var count = 0, boundary = 0
        var q = 0
        for v in 0..<n {
            let end = Int(byLowStart[v])
            while q < end {
                let hi = byLowHigh[q]
                let runStart = q
                q += 1
                while q < end && byLowHigh[q] == hi { q += 1 }
                // Twins: the run's half-edges paired in order (an odd one out has none).
                var r = runStart
                while r + 1 < q {
                    outTwin[Int(hv[r])] = Int32(truncatingIfNeeded: hv[r + 1])
                    outTwin[Int(hv[r + 1])] = Int32(truncatingIfNeeded: hv[r])
                    r += 2
                }
                if r < q { outTwin[Int(hv[r])] = -1 }
                let degenerate = Int(hi) == v
                let e = degenerate ? 0 : UInt32(truncatingIfNeeded: count)
                for r in runStart..<q { outEdge[Int(hv[r])] = e }
                if degenerate { continue }
                outLow[count] = UInt32(truncatingIfNeeded: v)
                outHigh[count] = hi
                outStart[count] = Int32(truncatingIfNeeded: runStart)
                outUses[count] = Int32(truncatingIfNeeded: q - runStart)
                if q - runStart == 1 { boundary += 1 }
                count += 1
            }
        }
        return (count, boundary)
    }
}

extension MeshTopology {
    var triangleCount: Int { triangles.count / 3 }

    /// Whether half-edge `h` lies on a boundary edge (one used by no other triangle).
    @inline(__always) func isBoundaryHalf(_ h: Int) -> Bool {
        let a = triangles[h], b = triangles[h % 3 == 2 ? h - 2 : h + 1]
        return a != b && uses[Int(edgeOfHalf[h])] == 1
    }

    /// The boundary loops of the mesh (see `BoundaryLoops`).
    package func boundaryLoops() -> BoundaryLoops { BoundaryLoops(self) }

    /// The vertex → neighbour CSR of the mesh.
    package func neighbours() -> Adjacency {
        Adjacency(triangles: triangles, vertexCount: vertexCount, edges: self)
    }

    /// For every vertex, a representative vertex of its connected piece (triangles sharing
    /// vertices): union–find over the triangles, in triangle order.
    /// - Complexity: O(t α(n)) for t triangles.
    package func pieces() -> [Int] { Self.pieces(triangles: triangles, vertexCount: vertexCount) }

    /// `pieces()` without the edges (a union–find needs none).
    package static func pieces(triangles: [UInt32], vertexCount: Int) -> [Int] {
        var sets = UnionFind(count: vertexCount)
        var f = 0
        while f < triangles.count {
            sets.union(Int(triangles[f]), Int(triangles[f + 1]))
            sets.union(Int(triangles[f]), Int(triangles[f + 2]))
            f += 3
        }
        return (0..<vertexCount).map { sets.find($0) }
    }

    /// Whether each vertex's piece has a boundary edge (an open piece), indexed by the
    /// representative `pieces()` gives.
    package func openPieces(_ piece: [Int]) -> [Bool] {
        var open = [Bool](repeating: false, count: vertexCount)
        for e in 0..<edgeCount where uses[e] == 1 { open[piece[Int(low[e])]] = true }
        return open
    }

    /// Connected parts of the boundary-edge graph: on a manifold surface its boundary loops (a
    /// boundary pinched at a vertex is one part).
    func boundaryPartCount() -> Int {
        guard boundaryEdgeCount > 0 else { return 0 }
        var sets = UnionFind(count: vertexCount)
        var onBoundary = [Bool](repeating: false, count: vertexCount)
        for e in 0..<edgeCount where uses[e] == 1 {
            let a = Int(low[e]), b = Int(high[e])
            onBoundary[a] = true
            onBoundary[b] = true
            sets.union(a, b)
        }
        var parts = 0
        for v in 0..<vertexCount where onBoundary[v] && sets.find(v) == v { parts += 1 }
        return parts
    }

    /// The neighbours of every vertex of a triangle list whose half-edges `twin` pairs (−1: a
    /// boundary half-edge), for a mesh being changed in place (refinement keeps its own twins as
    /// it splits): CSR `start` / `neighbours`, in half-edge order — the far end of each half-edge
    /// leaving the vertex, and the near end of each boundary half-edge entering it (so each
    /// neighbour once on a manifold mesh) — and whether each vertex is on the boundary.
    package static func rings(
        triangles: [UInt32], twin: [Int32], vertexCount n: Int
    ) -> (start: [Int32], neighbours: [Int32], boundary: [Bool]) {
        let slots = triangles.count
        var start = [Int32](repeating: 0, count: n + 1)
        var boundary = [Bool](repeating: false, count: n)
        var neighbours: [Int32] = []
        @inline(__always) func next(_ h: Int) -> Int { h % 3 == 2 ? h - 2 : h + 1 }
        let tri = triangles.flat
        let tw = twin.flat
        var st = start.flatMut
        var bd = boundary.flatMut
        // Each interior edge is named by both its half-edges; a boundary edge by
        // one, which then also counts for its other end.
        for h in 0..<slots {
            st[Int(tri[h]) + 1] += 1
            if tw[h] < 0 {
                let b = Int(tri[next(h)])
                st[b + 1] += 1
                bd[Int(tri[h])] = true
                bd[b] = true
            }
        }
        for v in 0..<n { st[v + 1] += st[v] }
        neighbours = [Int32](repeating: 0, count: Int(st[n]))
        var fill = [Int32](repeating: 0, count: n)
        var f = fill.flatMut
        for v in 0..<n { f[v] = st[v] }
        var out = neighbours.flatMut
        for h in 0..<slots {
            let a = Int(tri[h]), b = Int(tri[next(h)])
            out[Int(f[a])] = Int32(b)
            f[a] += 1
            if tw[h] < 0 {
                out[Int(f[b])] = Int32(a)
                f[b] += 1
            }
        }
        return (start, neighbours, boundary)
    }
}
