/// Vertex → neighbouring-vertex adjacency in compressed sparse row form, built once per topology.
///
/// Neighbours of vertex `v` are `neighbors[offsets[v] ..< offsets[v + 1]]`, sorted ascending and
/// unique. `isBoundary[v]` is true when `v` lies on an edge used by exactly one triangle;
/// `boundaryNeighbors` lists, in the same CSR layout, only the neighbours joined to `v` by such an edge.
/// - Complexity: O(triangles · log(valence)) to build.
public struct Adjacency: Sendable, Equatable {
    public let offsets: [Int32]
    public let neighbors: [UInt32]
    public let boundaryOffsets: [Int32]
    public let boundaryNeighbors: [UInt32]
    public let isBoundary: [Bool]

    public init(triangles: [UInt32], vertexCount: Int) {
        // Every triangle edge is recorded at both ends (count → prefix-sum → fill); an undirected
        // edge that occurs once in the whole mesh is a boundary edge.
        let n = vertexCount
        var counts = [Int32](repeating: 0, count: n + 1)
        let tc = triangles.count
        for i in 0..<tc {
            let a = triangles[i]
            let b = triangles[i % 3 == 2 ? i - 2 : i + 1]
            counts[Int(a) + 1] += 1
            counts[Int(b) + 1] += 1
        }
        for v in 0..<n { counts[v + 1] += counts[v] }
        var fill = counts
        var raw = [UInt32](repeating: 0, count: Int(counts[n]))
        for i in 0..<tc {
            let a = Int(triangles[i])
            let b = Int(triangles[i % 3 == 2 ? i - 2 : i + 1])
            raw[Int(fill[a])] = UInt32(b)
            fill[a] += 1
            raw[Int(fill[b])] = UInt32(a)
            fill[b] += 1
        }
        var offs = [Int32](repeating: 0, count: n + 1)
        var nbrs = [UInt32]()
        nbrs.reserveCapacity(raw.count / 2 + n)
        var bOffs = [Int32](repeating: 0, count: n + 1)
        var bNbrs = [UInt32]()
        var boundary = [Bool](repeating: false, count: n)
        for v in 0..<n {
            let lo = Int(counts[v]), hi = Int(counts[v + 1])
            raw[lo..<hi].sort()
            var k = lo
            while k < hi {
                let w = raw[k]
                var uses = 0
                while k < hi && raw[k] == w {
                    uses += 1
                    k += 1
                }
                nbrs.append(w)
                // Used once: a boundary edge.
                if uses == 1 {
                    bNbrs.append(w)
                    boundary[v] = true
                }
            }
            offs[v + 1] = Int32(nbrs.count)
            bOffs[v + 1] = Int32(bNbrs.count)
        }
        offsets = offs
        neighbors = nbrs
        boundaryOffsets = bOffs
        boundaryNeighbors = bNbrs
        isBoundary = boundary
    }

    public var vertexCount: Int { offsets.count - 1 }

    /// Number of undirected boundary edges.
    public var boundaryEdgeCount: Int { boundaryNeighbors.count / 2 }
}
