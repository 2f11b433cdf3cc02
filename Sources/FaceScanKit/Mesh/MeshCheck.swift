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
    ///
    /// Recipe: one pass over the triangles counts, per smallest vertex index, the undirected edges
    /// and the (sorted) triangles that start there; a second fills two flat bucketed arrays; each
    /// bucket (about a vertex's valence long) is then sorted on its own, so equal edges and equal
    /// triangles sit side by side.
    /// - Complexity: O(t · log valence) for t triangles.
    public init(_ mesh: Mesh) {
        let n = mesh.vertexCount
        let tc = mesh.triangleCount
        vertexCount = n
        triangleCount = tc
        var nonFinite = 0
        for p in mesh.positions where !(p.x.isFinite && p.y.isFinite && p.z.isFinite) { nonFinite += 1 }
        nonFiniteVertices = nonFinite
        // Bucket of an edge: its smaller end; entry `hi << 1 | forward` (forward: traversed from
        // the smaller end). Bucket of a triangle: its smallest corner; entry `mid << 32 | max`.
        var edgeStart = [Int](repeating: 0, count: n + 1)
        var faceStart = [Int](repeating: 0, count: n + 1)
        var used = [Bool](repeating: false, count: n)
        var outOfRange = 0, repeated = 0, zeroArea = 0
        mesh.triangles.withUnsafeBufferPointer { t in
            for f in 0..<tc {
                let a = t[3 * f], b = t[3 * f + 1], c = t[3 * f + 2]
                guard Int(a) < n, Int(b) < n, Int(c) < n else {
                    outOfRange += 1
                    continue
                }
                used[Int(a)] = true
                used[Int(b)] = true
                used[Int(c)] = true
                if a == b || b == c || a == c {
                    repeated += 1
                } else if mesh.faceNormal(f) == .zero {
                    zeroArea += 1
                }
                faceStart[Int(min(a, b, c)) + 1] += 1
                if a != b { edgeStart[Int(min(a, b)) + 1] += 1 }
                if b != c { edgeStart[Int(min(b, c)) + 1] += 1 }
                if c != a { edgeStart[Int(min(c, a)) + 1] += 1 }
            }
        }
        outOfRangeTriangles = outOfRange
        repeatedCornerTriangles = repeated
        degenerateTriangles = repeated + zeroArea
        unreferencedVertices = used.reduce(0) { $0 + ($1 ? 0 : 1) }
        for v in 0..<n {
            edgeStart[v + 1] += edgeStart[v]
            faceStart[v + 1] += faceStart[v]
        }
        var edges = [UInt64](repeating: 0, count: edgeStart[n])
        var faces = [UInt64](repeating: 0, count: faceStart[n])
        var edgeFill = edgeStart, faceFill = faceStart
        mesh.triangles.withUnsafeBufferPointer { t in
            for f in 0..<tc {
                let a = t[3 * f], b = t[3 * f + 1], c = t[3 * f + 2]
                guard Int(a) < n, Int(b) < n, Int(c) < n else { continue }
                let lo = min(a, b, c), hi = max(a, b, c)
                let mid = a ^ b ^ c ^ lo ^ hi
                faces[faceFill[Int(lo)]] = UInt64(mid) << 32 | UInt64(hi)
                faceFill[Int(lo)] += 1
                for k in 0..<3 {
                    let u = k == 0 ? a : (k == 1 ? b : c), v = k == 0 ? b : (k == 1 ? c : a)
                    if u == v { continue }
                    let e = Int(min(u, v))
                    edges[edgeFill[e]] = UInt64(max(u, v)) << 1 | (u < v ? 1 : 0)
                    edgeFill[e] += 1
                }
            }
        }
        var duplicates = 0, nonManifold = 0, inconsistent = 0
        var boundary: [UInt64] = []
        faces.withUnsafeMutableBufferPointer { fb in
            edges.withUnsafeMutableBufferPointer { eb in
                for v in 0..<n {
                    let fLo = faceStart[v], fHi = faceStart[v + 1]
                    Self.sortBucket(fb, fLo, fHi)
                    if fHi - fLo > 1 {
                        for i in (fLo + 1)..<fHi where fb[i] == fb[i - 1] { duplicates += 1 }
                    }
                    let eHi = edgeStart[v + 1]
                    Self.sortBucket(eb, edgeStart[v], eHi)
                    var i = edgeStart[v]
                    while i < eHi {
                        let other = eb[i] >> 1
                        var j = i, forward = 0
                        while j < eHi && eb[j] >> 1 == other {
                            forward += Int(eb[j] & 1)
                            j += 1
                        }
                        let uses = j - i
                        if uses == 1 { boundary.append(UInt64(v) << 32 | other) }
                        if uses > 2 { nonManifold += 1 }
                        if uses == 2 && forward != 1 { inconsistent += 1 }
                        i = j
                    }
                }
            }
        }
        duplicateTriangles = duplicates
        nonManifoldEdges = nonManifold
        inconsistentEdges = inconsistent
        boundaryEdges = boundary.count
        boundaryLoops = Self.countLoops(boundary, vertexCount: n)
    }

    /// Sorts `b[lo..<hi]` ascending: insertion sort for the short buckets of a mesh, the library
    /// sort past 32 entries.
    @inline(__always)
    static func sortBucket(_ b: UnsafeMutableBufferPointer<UInt64>, _ lo: Int, _ hi: Int) {
        guard hi - lo > 32 else {
            var i = lo + 1
            while i < hi {
                let x = b[i]
                var j = i
                while j > lo && b[j - 1] > x {
                    b[j] = b[j - 1]
                    j -= 1
                }
                b[j] = x
                i += 1
            }
            return
        }
        var part = UnsafeMutableBufferPointer(rebasing: b[lo..<hi])
        part.sort()
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
