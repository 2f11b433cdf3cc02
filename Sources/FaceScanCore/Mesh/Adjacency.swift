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
        let counts = NeighbourCounts(vertexCount: n)
        defer { counts.deallocate() }
        counts.count(edges: edges, triangles: triangles)
        var offs = [Int32](repeating: 0, count: n + 1)
        var bOffs = [Int32](repeating: 0, count: n + 1)
        let boundary = [Bool](unsafeUninitializedCapacity: n) { isB, count in
            offs.withUnsafeMutableBufferPointer { o in
                bOffs.withUnsafeMutableBufferPointer { bo in counts.offsets(o, bo, isBoundary: isB) }
            }
            count = n
        }
        var bNbrs: [UInt32] = []
        let nbrs = [UInt32](unsafeUninitializedCapacity: Int(offs[n])) { out, outCount in
            bNbrs = [UInt32](unsafeUninitializedCapacity: Int(bOffs[n])) { bOut, bOutCount in
                offs.withUnsafeBufferPointer { o in
                    bOffs.withUnsafeBufferPointer { bo in
                        counts.fill(out, bOut, offsets: o, boundaryOffsets: bo, edges: edges)
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

/// The per-vertex counts `Adjacency.init(triangles:vertexCount:edges:)` builds its CSR from,
/// in scratch buffers allocated once (freed by ``deallocate()``), and its passes in the order
/// they run: count, offsets, fill.
private struct NeighbourCounts {
    let n: Int
    /// Per vertex: higher and lower neighbours, and those of them across a boundary edge (one
    /// block of `4 n`); `fill` turns `lower` and `bLower` into cursors.
    let higher: UnsafeMutablePointer<Int32>
    let lower: UnsafeMutablePointer<Int32>
    let bHigher: UnsafeMutablePointer<Int32>
    let bLower: UnsafeMutablePointer<Int32>
    /// Per vertex: whether a degenerate half-edge v → v occurs.
    let selfLoop: UnsafeMutablePointer<Bool>

    init(vertexCount n: Int) {
        self.n = n
        let counts = UnsafeMutablePointer<Int32>.allocate(capacity: 4 * max(1, n))
        counts.initialize(repeating: 0, count: 4 * max(1, n))
        higher = counts
        lower = counts + n
        bHigher = counts + 2 * n
        bLower = counts + 3 * n
        selfLoop = .allocate(capacity: max(1, n))
        selfLoop.initialize(repeating: false, count: max(1, n))
    }

    func deallocate() {
        higher.deallocate()
        selfLoop.deallocate()
    }

    /// Counts each vertex's higher and lower neighbours (all, and across boundary edges) from the
    /// edges, and marks the vertices of degenerate half-edges v → v from the triangles.
    func count(edges: MeshTopology, triangles: [UInt32]) {
        let edgeLow = edges.low, edgeHigh = edges.high, uses = edges.uses
        for e in 0..<edges.edgeCount {
            let lo = Int(edgeLow[e]), hi = Int(edgeHigh[e])
            higher[lo] += 1
            lower[hi] += 1
            if uses[e] == 1 {
                bHigher[lo] += 1
                bLower[hi] += 1
            }
        }
        let corners = triangles.count
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
    }

    /// The CSR offsets `o` (all neighbours, v itself for a self loop) and `bo` (across boundary
    /// edges) from the counts, and whether each vertex is on the boundary.
    func offsets(
        _ o: UnsafeMutableBufferPointer<Int32>, _ bo: UnsafeMutableBufferPointer<Int32>,
        isBoundary isB: UnsafeMutableBufferPointer<Bool>
    ) {
        for v in 0..<n {
            o[v + 1] = o[v] + lower[v] + (selfLoop[v] ? 1 : 0) + higher[v]
            bo[v + 1] = bo[v] + bLower[v] + bHigher[v]
            isB[v] = bLower[v] + bHigher[v] > 0
        }
    }

    /// Fills the neighbour lists: the edges in order put v's higher neighbours in order, and v at
    /// the high end after the lower neighbours placed so far (`lower`/`bLower` become those
    /// cursors).
    func fill(
        _ out: UnsafeMutableBufferPointer<UInt32>, _ bOut: UnsafeMutableBufferPointer<UInt32>,
        offsets offs: UnsafeBufferPointer<Int32>, boundaryOffsets bOffs: UnsafeBufferPointer<Int32>,
        edges: MeshTopology
    ) {
        for v in 0..<n {
            lower[v] = offs[v]
            bLower[v] = bOffs[v]
        }
        let edgeHigh = edges.high, uses = edges.uses
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
    }
}
