/// Vertex → neighbouring-vertex adjacency in compressed sparse row form, built from a mesh's
/// `MeshTopology` (its edges in order; `MeshTopology/neighbours()`).
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
            edges: MeshTopology(triangles: triangles, vertexCount: vertexCount))
    }

    /// The adjacency of `triangles`, whose undirected edges `edges` numbered (see `MeshTopology`).
    /// v's neighbour list is its lower neighbours (the edges whose high end is v, in edge order, so
    /// ascending), v itself when a degenerate half-edge v → v exists, and its higher neighbours
    /// (its own edges, ascending).
    init(triangles: [UInt32], vertexCount: Int, edges: MeshTopology) {
        let n = vertexCount
        var counts = NeighbourCounts(vertexCount: n)
        counts.count(edges: edges, triangles: triangles)
        var offs = [Int32](repeating: 0, count: n + 1)
        var bOffs = [Int32](repeating: 0, count: n + 1)
        var boundary = [Bool](repeating: false, count: n)
        counts.offsets(&offs, &bOffs, isBoundary: &boundary)
        var nbrs = [UInt32](repeating: 0, count: Int(offs[n]))
        var bNbrs = [UInt32](repeating: 0, count: Int(bOffs[n]))
        counts.fill(&nbrs, &bNbrs, offsets: offs, boundaryOffsets: bOffs, edges: edges)
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

/// The per-vertex counts `Adjacency.init(triangles:vertexCount:edges:)` builds its CSR from,
/// in scratch arrays allocated once, and its passes in the order they run: count, offsets, fill.
private struct NeighbourCounts {
    let n: Int
    /// Per vertex: higher and lower neighbours, and those of them across a boundary edge (one
    /// block of `4 n`: `higher` from 0, `lower` from `n`, `bHigher` from `2 n`, `bLower` from
    /// `3 n`); `fill` turns `lower` and `bLower` into cursors.
    var counts: [Int32]
    /// Per vertex: whether a degenerate half-edge v → v occurs.
    var selfLoop: [Bool]

    init(vertexCount n: Int) {
        self.n = n
        counts = [Int32](repeating: 0, count: 4 * n)
        selfLoop = [Bool](repeating: false, count: n)
    }

    /// Counts each vertex's higher and lower neighbours (all, and across boundary edges) from the
    /// edges, and marks the vertices of degenerate half-edges v → v from the triangles.
    mutating func count(edges: MeshTopology, triangles: [UInt32]) {
        let edgeLow = edges.low, edgeHigh = edges.high, uses = edges.uses
        let lower = n, bHigher = 2 * n, bLower = 3 * n
        var c = counts.flatMut
        for e in 0..<edges.edgeCount {
            let lo = Int(edgeLow[e]), hi = Int(edgeHigh[e])
            c[lo] += 1
            c[lower + hi] += 1
            if uses[e] == 1 {
                c[bHigher + lo] += 1
                c[bLower + hi] += 1
            }
        }
        let corners = triangles.count
        let t = triangles.flat
        var selfLoop = selfLoop.flatMut
        var f = 0
        while f < corners {
            let a = t[f], b = t[f + 1], c = t[f + 2]
            if a == b { selfLoop[Int(a)] = true }
            if b == c { selfLoop[Int(b)] = true }
            if c == a { selfLoop[Int(c)] = true }
            f += 3
        }
    }

    /// The CSR offsets `o` (all neighbours, v itself for a self loop) and `bo` (across boundary
    /// edges) from the counts, and whether each vertex is on the boundary.
    func offsets(_ o: inout [Int32], _ bo: inout [Int32], isBoundary isB: inout [Bool]) {
        let c = counts.flat, selfLoop = selfLoop.flat
        var o = o.flatMut, bo = bo.flatMut, isB = isB.flatMut
        let lower = n, bHigher = 2 * n, bLower = 3 * n
        for v in 0..<n {
            o[v + 1] = o[v] + c[lower + v] + (selfLoop[v] ? 1 : 0) + c[v]
            bo[v + 1] = bo[v] + c[bLower + v] + c[bHigher + v]
            isB[v] = c[bLower + v] + c[bHigher + v] > 0
        }
    }

    /// Fills the neighbour lists: the edges in order put v's higher neighbours in order, and v at
    /// the high end after the lower neighbours placed so far (`lower`/`bLower` become those
    /// cursors).
    mutating func fill(
        _ out: inout [UInt32], _ bOut: inout [UInt32], offsets: [Int32], boundaryOffsets: [Int32],
        edges: MeshTopology
    ) {
        let loops = selfLoop, n = self.n
        let lower = n, bHigher = 2 * n, bLower = 3 * n
        let offs = offsets.flat, bOffs = boundaryOffsets.flat, selfLoop = loops.flat
        var c = counts.flatMut, out = out.flatMut, bOut = bOut.flatMut
        for v in 0..<n {
            c[lower + v] = offs[v]
            c[bLower + v] = bOffs[v]
        }
        let edgeHigh = edges.high, uses = edges.uses
        var e = 0
        for v in 0..<n {
            var up = Int(offs[v + 1] - c[v])
            var bUp = Int(bOffs[v + 1] - c[bHigher + v])
            if selfLoop[v] { out[up - 1] = UInt32(v) }
            let eEnd = e + Int(c[v])
            while e < eEnd {
                let hi = edgeHigh[e]
                out[up] = hi
                up += 1
                let at = c[lower + Int(hi)]
                out[Int(at)] = UInt32(truncatingIfNeeded: v)
                c[lower + Int(hi)] = at &+ 1
                if uses[e] == 1 {
                    bOut[bUp] = hi
                    bUp += 1
                    let bAt = c[bLower + Int(hi)]
                    bOut[Int(bAt)] = UInt32(truncatingIfNeeded: v)
                    c[bLower + Int(hi)] = bAt &+ 1
                }
                e += 1
            }
        }
    }
}
