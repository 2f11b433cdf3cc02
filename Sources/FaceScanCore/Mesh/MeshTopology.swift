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
        let sort = HalfEdgeSort(vertexCount: n, corners: corners)
        defer { sort.deallocate() }
        triangles.withUnsafeBufferPointer { t in
            sort.countEnds(t)
            sort.placeByHigh(t)
        }
        let halves = sort.placeByLow()
        let runs = sort.edgeRuns(halves)
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
/// triangle list: its scratch buffers (allocated once, freed by ``deallocate()``) and its passes,
/// in the order they run.
private struct HalfEdgeSort {
    let n: Int
    let corners: Int
    /// Per vertex: bucket starts (the counting passes advance them to bucket ends).
    let byHighStart: UnsafeMutablePointer<Int32>
    let byLowStart: UnsafeMutablePointer<Int32>
    /// Half-edges by high end: their low end and the half-edge.
    let byHighLow: UnsafeMutablePointer<UInt32>
    let byHighHalf: UnsafeMutablePointer<UInt32>
    /// Half-edges by low end, then high end: their high end (the half-edge is in `halves`).
    let byLowHigh: UnsafeMutablePointer<UInt32>

    init(vertexCount n: Int, corners: Int) {
        self.n = n
        self.corners = corners
        let c = max(1, corners)
        byHighStart = .allocate(capacity: n + 1)
        byHighStart.initialize(repeating: 0, count: n + 1)
        byLowStart = .allocate(capacity: n + 1)
        byLowStart.initialize(repeating: 0, count: n + 1)
        byHighLow = .allocate(capacity: c)
        byHighHalf = .allocate(capacity: c)
        byLowHigh = .allocate(capacity: c)
    }

    func deallocate() {
        byHighStart.deallocate()
        byLowStart.deallocate()
        byHighLow.deallocate()
        byHighHalf.deallocate()
        byLowHigh.deallocate()
    }

    /// Counts the half-edges by low and by high end and turns the counts into bucket starts.
    func countEnds(_ t: UnsafeBufferPointer<UInt32>) {
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

    /// First pass: every half-edge into its high end's bucket, in half-edge order (afterwards
    /// `byHighStart[v]` is the end of v's bucket, i.e. the start of v + 1's).
    func placeByHigh(_ t: UnsafeBufferPointer<UInt32>) {
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

    /// Second pass: the half-edges, taken by high end, into their low end's bucket; returns them
    /// in (low, high, half-edge) order (`byLowHigh` holds their high ends).
    func placeByLow() -> [UInt32] {
        [UInt32](unsafeUninitializedCapacity: corners) { halves, halvesCount in
            var q = 0
            for hi in 0..<n {
                let end = Int(byHighStart[hi])
                while q < end {
                    let lo = Int(byHighLow[q])
                    let at = byLowStart[lo]
                    byLowHigh[Int(at)] = UInt32(truncatingIfNeeded: hi)
                    halves[Int(at)] = byHighHalf[q]
                    byLowStart[lo] = at &+ 1
                    q += 1
                }
            }
            halvesCount = corners
        }
    }

    /// The per-half-edge and per-edge arrays of `MeshTopology`, the edge count and the boundary
    /// edges' count.
    typealias Runs = (
        edgeOfHalf: [UInt32], twin: [Int32], low: [UInt32], high: [UInt32], halfStart: [Int32], uses: [Int32],
        count: Int, boundaryCount: Int
    )

    /// Runs of equal high end within each low vertex's bucket of `halves` (sorted by
    /// ``placeByLow()``): the edges, in (low, high) order (at most one per half-edge: the
    /// per-edge arrays are sized so, and hold `count`).
    func edgeRuns(_ halves: [UInt32]) -> Runs {
        var count = 0, boundaryCount = 0
        var twin: [Int32] = [], low: [UInt32] = [], high: [UInt32] = []
        var halfStart: [Int32] = [], uses: [Int32] = []
        let edgeOfHalf = [UInt32](unsafeUninitializedCapacity: corners) { eoh, eohCount in
            twin = [Int32](unsafeUninitializedCapacity: corners) { tw, twCount in
                low = [UInt32](unsafeUninitializedCapacity: corners) { lo, loCount in
                    high = [UInt32](unsafeUninitializedCapacity: corners) { hg, hgCount in
                        halfStart = [Int32](unsafeUninitializedCapacity: corners) { hs, hsCount in
                            uses = [Int32](unsafeUninitializedCapacity: corners) { us, usCount in
                                halves.withUnsafeBufferPointer { hv in
                                    let out = RunOutput(
                                        edgeOfHalf: eoh, twin: tw, low: lo, high: hg, halfStart: hs, uses: us)
                                    (count, boundaryCount) = scanRuns(hv, into: out)
                                }
                                usCount = count
                            }
                            hsCount = count
                        }
                        hgCount = count
                    }
                    loCount = count
                }
                twCount = corners
            }
            eohCount = corners
        }
        return (edgeOfHalf, twin, low, high, halfStart, uses, count, boundaryCount)
    }

    /// Where ``scanRuns(_:into:)`` writes: the uninitialised storage of the arrays of ``Runs``.
    struct RunOutput {
        let edgeOfHalf: UnsafeMutableBufferPointer<UInt32>
        let twin: UnsafeMutableBufferPointer<Int32>
        let low: UnsafeMutableBufferPointer<UInt32>
        let high: UnsafeMutableBufferPointer<UInt32>
        let halfStart: UnsafeMutableBufferPointer<Int32>
        let uses: UnsafeMutableBufferPointer<Int32>
    }

    /// Walks the runs of `hv` (one per undirected edge, or per degenerate v → v): pairs each run's
    /// half-edges as twins, numbers its edge and records its ends and uses. Returns the edge count
    /// and how many of them are boundary edges (a run of one).
    @inline(__always)
    func scanRuns(_ hv: UnsafeBufferPointer<UInt32>, into out: RunOutput) -> (edges: Int, boundary: Int) {
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
                    out.twin[Int(hv[r])] = Int32(truncatingIfNeeded: hv[r + 1])
                    out.twin[Int(hv[r + 1])] = Int32(truncatingIfNeeded: hv[r])
                    r += 2
                }
                if r < q { out.twin[Int(hv[r])] = -1 }
                let degenerate = Int(hi) == v
                let e = degenerate ? 0 : UInt32(truncatingIfNeeded: count)
                for r in runStart..<q { out.edgeOfHalf[Int(hv[r])] = e }
                if degenerate { continue }
                out.low[count] = UInt32(truncatingIfNeeded: v)
                out.high[count] = hi
                out.halfStart[count] = Int32(truncatingIfNeeded: runStart)
                out.uses[count] = Int32(truncatingIfNeeded: q - runStart)
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
        triangles.withUnsafeBufferPointer { tri in
            twin.withUnsafeBufferPointer { tw in
                start.withUnsafeMutableBufferPointer { st in
                    boundary.withUnsafeMutableBufferPointer { bd in
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
                    }
                    neighbours = [Int32](unsafeUninitializedCapacity: Int(st[n])) { out, count in
                        var fill = [Int32](st[0..<n])
                        fill.withUnsafeMutableBufferPointer { f in
                            for h in 0..<slots {
                                let a = Int(tri[h]), b = Int(tri[next(h)])
                                out[Int(f[a])] = Int32(b)
                                f[a] += 1
                                if tw[h] < 0 {
                                    out[Int(f[b])] = Int32(a)
                                    f[b] += 1
                                }
                            }
                        }
                        count = Int(st[n])
                    }
                }
            }
        }
        return (start, neighbours, boundary)
    }
}
