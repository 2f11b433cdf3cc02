/// Topology of a triangle mesh that is not about any one use of it: connected pieces here, the
/// boundary loops in ``BoundaryLoops`` (MeshTopology+Loops.swift), both from the CSR ``Adjacency``
/// or a union–find built once per mesh.
enum MeshTopology {
    /// For every vertex, a representative vertex of its connected piece (triangles sharing
    /// vertices): union–find over the triangles, in triangle order.
    /// - Complexity: O(t α(n)) for t triangles.
    static func pieces(_ mesh: Mesh) -> [Int] {
        var sets = UnionFind(count: mesh.vertexCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            sets.union(Int(a), Int(b))
            sets.union(Int(a), Int(c))
        }
        return (0..<mesh.vertexCount).map { sets.find($0) }
    }

    /// Whether each vertex's piece has a boundary edge (an open piece), indexed by the
    /// representative ``pieces(_:)`` gives.
    static func openPieces(_ mesh: Mesh, pieces piece: [Int], adjacency: Adjacency) -> [Bool] {
        var open = [Bool](repeating: false, count: mesh.vertexCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            for (u, v) in [(a, b), (b, c), (c, a)] where BoundaryLoops.isBoundaryEdge(adjacency, u, v) {
                open[piece[Int(u)]] = true
            }
        }
        return open
    }
}
