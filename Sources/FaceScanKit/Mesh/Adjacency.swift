/// Vertex → neighbouring-vertex adjacency in compressed sparse row form, built once per topology.
///
/// Neighbours of vertex `v` are `neighbors[offsets[v] ..< offsets[v + 1]]`, sorted ascending and
/// unique. `isBoundary[v]` is true when `v` lies on an edge used by exactly one triangle;
/// `boundaryNeighbors` lists, in the same CSR layout, only the neighbours joined to `v` by such an edge.
/// - Complexity: O(triangles + vertices) to build.
package struct Adjacency: Sendable, Equatable {
    package let offsets: [Int32]
    package let neighbors: [UInt32]
    package let boundaryOffsets: [Int32]
    package let boundaryNeighbors: [UInt32]
    package let isBoundary: [Bool]

    package init(triangles: [UInt32], vertexCount: Int) {
        self.init(
            triangles: triangles, vertexCount: vertexCount,
            edges: EdgeNumbering(triangles: triangles, vertexCount: vertexCount))
    }

    /// The adjacency of `triangles`, whose undirected edges `edges` numbered (see ``EdgeNumbering``).
    /// v's neighbour list is its lower neighbours (the edges whose high end is v, in edge order, so
    /// ascending), v itself when a degenerate half-edge v → v exists, and its higher neighbours
    /// (its own edges, ascending).
    init(triangles: [UInt32], vertexCount: Int, edges: EdgeNumbering) {
        let n = vertexCount
        let corners = triangles.count
        // Per vertex: higher and lower neighbours, and those of them across a boundary edge; whether
        // v → v occurs.
        let counts = UnsafeMutablePointer<Int32>.allocate(capacity: 4 * max(1, n))
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 4 * max(1, n))
        let higher = counts, lower = counts + n, bHigher = counts + 2 * n, bLower = counts + 3 * n
        let selfLoop = UnsafeMutablePointer<Bool>.allocate(capacity: max(1, n))
        defer { selfLoop.deallocate() }
        selfLoop.initialize(repeating: false, count: max(1, n))
        let edgeCount = edges.edgeCount
        let edgeLow = edges.low, edgeHigh = edges.high, uses = edges.uses
        for e in 0..<edgeCount {
            let lo = Int(edgeLow[e]), hi = Int(edgeHigh[e])
            higher[lo] += 1
            lower[hi] += 1
            if uses[e] == 1 {
                bHigher[lo] += 1
                bLower[hi] += 1
            }
        }
        triangles.withUnsafeBufferPointer { t in
            var f = 0
            while f < corners {
                let a = t[f], b = t[f + 1], c = t[f + 2]
                if a == b { selfLoop[Int(a)] = true }
                if b == c { selfLoop[Int(b)] = true }
                if c == a { selfLoop[Int(c)] = true }
                f += 3
            }
        }

        var offs = [Int32](repeating: 0, count: n + 1)
        var bOffs = [Int32](repeating: 0, count: n + 1)
        let boundary = [Bool](unsafeUninitializedCapacity: n) { isB, count in
            offs.withUnsafeMutableBufferPointer { o in
                bOffs.withUnsafeMutableBufferPointer { bo in
                    for v in 0..<n {
                        o[v + 1] = o[v] + lower[v] + (selfLoop[v] ? 1 : 0) + higher[v]
                        bo[v + 1] = bo[v] + bLower[v] + bHigher[v]
                        isB[v] = bLower[v] + bHigher[v] > 0
                    }
                }
            }
            count = n
        }
        // Fill: the edges in order put v's higher neighbours in order, and v at the high end after
        // the lower neighbours placed so far (lower/bLower become those cursors).
        for v in 0..<n {
            lower[v] = offs[v]
            bLower[v] = bOffs[v]
        }
        var bNbrs: [UInt32] = []
        let nbrs = [UInt32](unsafeUninitializedCapacity: Int(offs[n])) { out, outCount in
            bNbrs = [UInt32](unsafeUninitializedCapacity: Int(bOffs[n])) { bOut, bOutCount in
                var e = 0
                for v in 0..<n {
                    var up = Int(offs[v + 1] - higher[v])
                    var bUp = Int(bOffs[v + 1] - bHigher[v])
                    if selfLoop[v] { out[up - 1] = UInt32(v) }
                    let eEnd = e + Int(higher[v])
                    while e < eEnd {
                        let hi = edgeHigh[e]
                        out[up] = hi
                        up += 1
                        let at = lower[Int(hi)]
                        out[Int(at)] = UInt32(truncatingIfNeeded: v)
                        lower[Int(hi)] = at &+ 1
                        if uses[e] == 1 {
                            bOut[bUp] = hi
                            bUp += 1
                            let bAt = bLower[Int(hi)]
                            bOut[Int(bAt)] = UInt32(truncatingIfNeeded: v)
                            bLower[Int(hi)] = bAt &+ 1
                        }
                        e += 1
                    }
                }
                bOutCount = Int(bOffs[n])
            }
            outCount = Int(offs[n])
        }
        offsets = offs
        neighbors = nbrs
        boundaryOffsets = bOffs
        boundaryNeighbors = bNbrs
        isBoundary = boundary
    }

    package var vertexCount: Int { offsets.count - 1 }

    /// Number of undirected boundary edges.
    package var boundaryEdgeCount: Int { boundaryNeighbors.count / 2 }
}

/// The undirected edges of a triangle list, numbered in ascending (low, high) order, low < high
/// — the order of the entries `high > low` of ``Adjacency/neighbors``, which is built from them —
/// with the half-edges using each one: for `Adjacency`, ``Subdivision`` and ``MeshCheck``.
/// Half-edge `h` runs from corner `h` to the next corner of its triangle. Owns its buffers.
final class EdgeNumbering {
    /// Per half-edge, its edge; 0 (not an edge of it) for a degenerate half-edge v → v.
    let edgeOfHalf: UnsafeMutablePointer<UInt32>
    /// Per edge, its ends.
    let low: UnsafeMutablePointer<UInt32>
    let high: UnsafeMutablePointer<UInt32>
    /// Edge `e` is used by half-edges `halves[halfStart[e] ..< halfStart[e] + uses[e]]`, ascending.
    let halfStart: UnsafeMutablePointer<Int32>
    let uses: UnsafeMutablePointer<Int32>
    let halves: UnsafeMutablePointer<UInt32>
    private(set) var edgeCount = 0

    /// Numbers the edges of `triangles` (every index below `vertexCount`).
    ///
    /// Half-edge h runs from corner h to the next corner of its triangle. Its ends, low and high,
    /// are sorted by two stable counting passes (by high, then by low), so the half-edges of each
    /// low vertex come out by high vertex and, within one undirected edge, in half-edge order. A
    /// run of equal (low, high) is one edge, used by as many triangles as the run is long (a run of
    /// one is a boundary edge); a run with low = high is a degenerate half-edge, no edge.
    /// - Complexity: O(triangles + vertices).
    init(triangles: [UInt32], vertexCount n: Int) {
        let corners = triangles.count
        precondition(corners % 3 == 0, "triangle index count must be a multiple of 3")
        let c = max(1, corners)
        edgeOfHalf = .allocate(capacity: c)
        low = .allocate(capacity: c)
        high = .allocate(capacity: c)
        halfStart = .allocate(capacity: c)
        uses = .allocate(capacity: c)
        halves = .allocate(capacity: c)
        // Per vertex: bucket starts (the counting passes advance them to bucket ends).
        let byHighStart = UnsafeMutablePointer<Int32>.allocate(capacity: n + 1)
        defer { byHighStart.deallocate() }
        byHighStart.initialize(repeating: 0, count: n + 1)
        let byLowStart = UnsafeMutablePointer<Int32>.allocate(capacity: n + 1)
        defer { byLowStart.deallocate() }
        byLowStart.initialize(repeating: 0, count: n + 1)
        // Half-edges by high end: their low end and the half-edge.
        let byHighLow = UnsafeMutablePointer<UInt32>.allocate(capacity: c)
        defer { byHighLow.deallocate() }
        let byHighHalf = UnsafeMutablePointer<UInt32>.allocate(capacity: c)
        defer { byHighHalf.deallocate() }
        // Half-edges by low end, then high end: their high end (the half-edge is in `halves`).
        let byLowHigh = UnsafeMutablePointer<UInt32>.allocate(capacity: c)
        defer { byLowHigh.deallocate() }

        let halves = halves, edgeOfHalf = edgeOfHalf
        triangles.withUnsafeBufferPointer { t in
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
            f = 0
            while f < corners {
                for k in 0..<3 {
                    let h = f + k
                    let a = t[h], b = t[k == 2 ? f : h + 1]
                    let hi = Int(max(a, b))
                    let at = byHighStart[hi]
                    byHighLow[Int(at)] = min(a, b)
                    byHighHalf[Int(at)] = UInt32(truncatingIfNeeded: h)
                    byHighStart[hi] = at &+ 1
                    if a == b { edgeOfHalf[h] = 0 }  // no edge; see edgeOfHalf
                }
                f += 3
            }
        }
        // byHighStart[v] is now the end of v's bucket, i.e. the start of v + 1's.
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
        // Runs of equal high end within each low vertex's bucket: the edges, in (low, high) order.
        var count = 0
        q = 0
        for v in 0..<n {
            let end = Int(byLowStart[v])
            while q < end {
                let hi = byLowHigh[q]
                let runStart = q
                q += 1
                while q < end && byLowHigh[q] == hi { q += 1 }
                if Int(hi) == v { continue }
                let e = UInt32(truncatingIfNeeded: count)
                for r in runStart..<q { edgeOfHalf[Int(halves[r])] = e }
                low[count] = UInt32(truncatingIfNeeded: v)
                high[count] = hi
                halfStart[count] = Int32(truncatingIfNeeded: runStart)
                uses[count] = Int32(truncatingIfNeeded: q - runStart)
                count += 1
            }
        }
        edgeCount = count
    }

    deinit {
        edgeOfHalf.deallocate()
        low.deallocate()
        high.deallocate()
        halfStart.deallocate()
        uses.deallocate()
        halves.deallocate()
    }
}
