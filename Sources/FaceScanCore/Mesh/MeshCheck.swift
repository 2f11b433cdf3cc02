/// Topology and validity statistics of a mesh: what `facescan inspect` prints and what the tests'
/// invariant checks assert after every stage.
public struct MeshCheck: Sendable, Equatable {
    /// Vertices in the mesh.
    public var vertexCount = 0
    /// Triangles in the mesh.
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
        triangleCount > 0 && boundaryEdges == 0 && nonManifoldEdges == 0 && inconsistentEdges == 0
            && outOfRangeTriangles == 0
            && repeatedCornerTriangles == 0
    }

    /// No out-of-range index, degenerate or duplicate triangle, non-manifold edge, inconsistent
    /// winding or non-finite coordinate: what every facescan stage must preserve.
    public var isClean: Bool {
        outOfRangeTriangles == 0 && degenerateTriangles == 0 && duplicateTriangles == 0 && nonManifoldEdges == 0
            && inconsistentEdges == 0 && nonFiniteVertices == 0
    }

    /// All counts zero (an empty mesh).
    public init() {}

    /// Analyses `mesh`.
    ///
    /// Recipe: one pass over the triangles checks indices and areas and counts, per smallest
    /// vertex index, the (sorted) triangles that start there; a second fills one flat bucketed
    /// array, each bucket (about a vertex's valence long) then sorted on its own so equal triangles
    /// sit side by side. The edges, their uses and the boundary's parts come from `MeshTopology`.
    /// - Complexity: O(t · log valence) for t triangles.
    public init(_ mesh: Mesh) {
        let n = mesh.vertexCount
        vertexCount = n
        triangleCount = mesh.triangleCount
        var nonFinite = 0
        for p in mesh.positions where !(p.x.isFinite && p.y.isFinite && p.z.isFinite) { nonFinite += 1 }
        nonFiniteVertices = nonFinite
        let scan = Self.scanTriangles(mesh)
        outOfRangeTriangles = scan.outOfRange
        repeatedCornerTriangles = scan.repeated
        degenerateTriangles = scan.repeated + scan.zeroArea
        unreferencedVertices = scan.unreferenced
        // The triangles the other counts look at: those with every index in range.
        let valid = scan.outOfRange == 0 ? mesh.triangles : Self.inRange(mesh.triangles, vertexCount: n)
        duplicateTriangles = Self.duplicateCount(valid, bucketSizes: scan.bucketSizes, vertexCount: n)
        // Edges: a run of half-edges per undirected edge (degenerate half-edges v → v are none).
        let edges = MeshTopology(triangles: valid, vertexCount: n)
        (nonManifoldEdges, inconsistentEdges) = Self.edgeFaults(valid, edges)
        boundaryEdges = edges.boundaryEdgeCount
        boundaryLoops = edges.boundaryPartCount()
    }

    /// The first pass over the triangles: those with an index out of range, with a repeated
    /// corner, with zero area (or non-finite corners); the vertices no triangle uses; and per
    /// vertex the in-range triangles whose smallest corner it is (at `v + 1`, a bucket size).
    static func scanTriangles(
        _ mesh: Mesh
    ) -> (outOfRange: Int, repeated: Int, zeroArea: Int, unreferenced: Int, bucketSizes: [Int]) {
        let n = mesh.vertexCount
        var bucketSizes = [Int](repeating: 0, count: n + 1)
        var used = [Bool](repeating: false, count: n)
        var outOfRange = 0, repeated = 0, zeroArea = 0
        let t = mesh.triangles.flat
        for f in 0..<mesh.triangleCount {
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
            bucketSizes[Int(min(a, b, c)) + 1] += 1
        }
        let unreferenced = used.reduce(0) { $0 + ($1 ? 0 : 1) }
        return (outOfRange, repeated, zeroArea, unreferenced, bucketSizes)
    }

    /// Triangles of `valid` using the same three vertices as an earlier one: bucketed by smallest
    /// corner (`bucketSizes` from ``scanTriangles(_:)``), entry `mid << 32 | max`, each bucket
    /// sorted on its own so equal triangles sit side by side.
    static func duplicateCount(_ valid: [UInt32], bucketSizes: [Int], vertexCount n: Int) -> Int {
        var faceStart = bucketSizes
        for v in 0..<n { faceStart[v + 1] += faceStart[v] }
        var faces = [UInt64](repeating: 0, count: faceStart[n])
        var faceFill = faceStart
        var duplicates = 0
        do {
            var fb = faces.flatMut
            let t = valid.flat
            for f in 0..<(t.count / 3) {
                let a = t[3 * f], b = t[3 * f + 1], c = t[3 * f + 2]
                let lo = min(a, b, c), hi = max(a, b, c)
                fb[faceFill[Int(lo)]] = UInt64(a ^ b ^ c ^ lo ^ hi) << 32 | UInt64(hi)
                faceFill[Int(lo)] += 1
            }
        }
        for v in 0..<n {
            let lo = faceStart[v], hi = faceStart[v + 1]
            Self.sortBucket(&faces, lo, hi)
            if hi - lo > 1 {
                for i in (lo + 1)..<hi where faces[i] == faces[i - 1] { duplicates += 1 }
            }
        }
        return duplicates
    }

    /// Edges of `edges` (the topology of `valid`) used by more than two triangles, and interior
    /// edges whose two triangles traverse them in the same direction.
    static func edgeFaults(_ valid: [UInt32], _ edges: MeshTopology) -> (nonManifold: Int, inconsistent: Int) {
        var nonManifold = 0, inconsistent = 0
        let t = valid.flat
        let lows = edges.low.flat
        let useCounts = edges.uses.flat
        let halfStart = edges.halfStart.flat
        let halves = edges.halves.flat
        for e in 0..<edges.edgeCount {
            let low = lows[e], uses = Int(useCounts[e])
            if uses > 2 { nonManifold += 1 }
            if uses == 2 {
                // Forward: traversed from the smaller end.
                let h0 = Int(halves[Int(halfStart[e])]), h1 = Int(halves[Int(halfStart[e]) + 1])
                if (t[h0] == low) == (t[h1] == low) { inconsistent += 1 }
            }
        }
        return (nonManifold, inconsistent)
    }

    /// `triangles` without those that have an index `>= vertexCount`.
    static func inRange(_ triangles: [UInt32], vertexCount n: Int) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(triangles.count)
        for i in stride(from: 0, to: triangles.count, by: 3)
        where Int(triangles[i]) < n && Int(triangles[i + 1]) < n && Int(triangles[i + 2]) < n {
            out.append(contentsOf: triangles[i..<(i + 3)])
        }
        return out
    }

    /// Sorts `b[lo..<hi]` ascending: insertion sort for the short buckets of a mesh, the library
    /// sort past 32 entries.
    @inline(__always)
    static func sortBucket(_ values: inout [UInt64], _ lo: Int, _ hi: Int) {
        guard hi - lo > 32 else {
            var b = values.flatMut
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
        values[lo..<hi].sort()
    }

    /// One-line summary for messages and test failures.
    public var summary: String {
        "\(vertexCount) v, \(triangleCount) t, degenerate \(degenerateTriangles), duplicate \(duplicateTriangles), non-manifold edges \(nonManifoldEdges), inconsistent edges \(inconsistentEdges), boundary edges \(boundaryEdges) in \(boundaryLoops) loops, out of range \(outOfRangeTriangles), non-finite \(nonFiniteVertices)"
    }
}
