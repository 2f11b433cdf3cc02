/// Topology and validity statistics of a mesh: what `facescan inspect` prints and what the tests'
/// invariant checks assert after every stage.
public struct MeshCheck: Sendable, Equatable {
    public var vertexCount = 0
    public var triangleCount = 0
    /// Triangles with an index `>= vertexCount` (such a mesh is invalid; other counts skip them).
    public var outOfRangeTriangles = 0
    /// Triangles with a repeated index or zero area (or non-finite corners).
    public var degenerateTriangles = 0
    /// Degenerate triangles that repeat a corner index (the others have zero area).
    public var repeatedCornerTriangles = 0
    /// Triangles using the same three vertices as an earlier one (in any order).
    public var duplicateTriangles = 0
    /// Vertices no triangle uses.
    public var unreferencedVertices = 0
    /// Undirected edges used by exactly one triangle.
    public var boundaryEdges = 0
    /// Closed loops formed by the boundary edges.
    public var boundaryLoops = 0
    /// Undirected edges used by more than two triangles.
    public var nonManifoldEdges = 0
    /// Interior edges whose two triangles traverse them in the same direction (inconsistent winding).
    public var inconsistentEdges = 0
    /// Vertices whose coordinates are NaN or infinite.
    public var nonFiniteVertices = 0

    /// Closed (no boundary), edge-manifold and consistently wound, with no triangle that repeats a
    /// corner (such a triangle closes nothing).
    public var isWatertight: Bool {
        triangleCount > 0 && boundaryEdges == 0 && nonManifoldEdges == 0 && inconsistentEdges == 0 && outOfRangeTriangles == 0
            && repeatedCornerTriangles == 0
    }

    /// No out-of-range index, degenerate or duplicate triangle, non-manifold edge, inconsistent
    /// winding or non-finite coordinate: what every facescan stage must preserve.
    public var isClean: Bool {
        outOfRangeTriangles == 0 && degenerateTriangles == 0 && duplicateTriangles == 0 && nonManifoldEdges == 0
            && inconsistentEdges == 0 && nonFiniteVertices == 0
    }

    public init() {}

    /// Analyses `mesh`.
    /// - Complexity: O(t log t) for t triangles.
    public init(_ mesh: Mesh) {
        let n = mesh.vertexCount
        vertexCount = n
        triangleCount = mesh.triangleCount
        nonFiniteVertices = mesh.positions.reduce(0) { $0 + (($1.x.isFinite && $1.y.isFinite && $1.z.isFinite) ? 0 : 1) }
        var used = [Bool](repeating: false, count: n)
        // Edge keys: (min << 32 | max) with the direction bit kept separately.
        var edges: [(key: UInt64, forward: Bool)] = []
        edges.reserveCapacity(mesh.triangles.count)
        var faces: [SIMD3<UInt32>] = []
        faces.reserveCapacity(mesh.triangleCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            guard Int(a) < n, Int(b) < n, Int(c) < n else {
                outOfRangeTriangles += 1
                continue
            }
            used[Int(a)] = true
            used[Int(b)] = true
            used[Int(c)] = true
            if a == b || b == c || a == c {
                repeatedCornerTriangles += 1
                degenerateTriangles += 1
            } else if mesh.faceNormal(t) == .zero {
                degenerateTriangles += 1
            }
            var s = [a, b, c]
            s.sort()
            faces.append(SIMD3(s[0], s[1], s[2]))
            for (u, v) in [(a, b), (b, c), (c, a)] where u != v {
                edges.append((UInt64(min(u, v)) << 32 | UInt64(max(u, v)), u < v))
            }
        }
        unreferencedVertices = used.reduce(0) { $0 + ($1 ? 0 : 1) }
        faces.sort { ($0.x, $0.y, $0.z) < ($1.x, $1.y, $1.z) }
        for i in faces.indices.dropFirst() where faces[i] == faces[i - 1] { duplicateTriangles += 1 }
        edges.sort { $0.key < $1.key }
        var boundary: [UInt64] = []
        var i = 0
        while i < edges.count {
            var j = i
            var fwd = 0
            while j < edges.count && edges[j].key == edges[i].key {
                if edges[j].forward { fwd += 1 }
                j += 1
            }
            let uses = j - i
            if uses == 1 { boundary.append(edges[i].key) }
            if uses > 2 { nonManifoldEdges += 1 }
            if uses == 2 && fwd != 1 { inconsistentEdges += 1 }
            i = j
        }
        boundaryEdges = boundary.count
        boundaryLoops = Self.countLoops(boundary, vertexCount: n)
    }

    /// Connected components of the boundary-edge graph (each a loop on a manifold surface).
    static func countLoops(_ edges: [UInt64], vertexCount: Int) -> Int {
        guard !edges.isEmpty else { return 0 }
        var parent = Array(0..<vertexCount)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        var onBoundary = [Bool](repeating: false, count: vertexCount)
        for e in edges {
            let a = Int(e >> 32), b = Int(e & 0xffff_ffff)
            onBoundary[a] = true
            onBoundary[b] = true
            let ra = find(a), rb = find(b)
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var loops = 0
        for v in 0..<vertexCount where onBoundary[v] && find(v) == v { loops += 1 }
        return loops
    }

    /// One-line summary for messages and test failures.
    public var summary: String {
        "\(vertexCount) v, \(triangleCount) t, degenerate \(degenerateTriangles), duplicate \(duplicateTriangles), non-manifold edges \(nonManifoldEdges), inconsistent edges \(inconsistentEdges), boundary edges \(boundaryEdges) in \(boundaryLoops) loops, out of range \(outOfRangeTriangles), non-finite \(nonFiniteVertices)"
    }
}
