/// Disjoint sets of `0..<count` (union–find with path halving): the connected pieces of a mesh
/// (``MeshCheck``'s boundary loops, the plane trim's pieces). `union(a, b)` hangs `b`'s set under
/// `a`'s root, so the root of a set is decided by the order of the unions alone.
struct UnionFind {
    private(set) var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    /// The root of `x`'s set.
    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    /// Joins `b`'s set to `a`'s (under `a`'s root).
    mutating func union(_ a: Int, _ b: Int) {
        let ra = find(a), rb = find(b)
        if ra != rb { parent[rb] = ra }
    }
}
