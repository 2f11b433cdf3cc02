// 1-to-4 triangle subdivision: Loop's smooth scheme and the plain midpoint scheme.
//
// Papers:
// - Charles Loop. "Smooth Subdivision Surfaces Based on Triangles". Master's thesis, University of
//   Utah, 1987. (Edge points 3/8–3/8–1/8–1/8, vertex points with weight β over the one-ring.)
// - Joe Warren. "Subdivision Methods for Geometric Design". 1995. (β = 3/(8n), 3/16 for n = 3.)
// - Henning Biermann, Adi Levin, Denis Zorin. "Piecewise Smooth Subdivision Surfaces with Normal
//   Control". SIGGRAPH 2000. (Boundary rules: edge midpoints 1/2–1/2, vertices 1/8–3/4–1/8.)
//
// Recipe: vertex adjacency (CSR), numbering every undirected edge once with the half-edges using it
// → vertex points → edge points (summing each edge's opposite corners) → four triangles per input
// triangle.

/// Subdivision of an indexed triangle mesh into four triangles per triangle.
public enum Subdivision {
    public enum Scheme: Sendable {
        /// Loop's approximating scheme with boundary rules: a smooth surface that shrinks slightly.
        case loop
        /// Edge midpoints, vertices unchanged: the same surface with more vertices.
        case midpoint
    }

    /// One subdivision step. The output keeps the input's vertices first (indices `0..<V`), then one
    /// vertex per undirected edge; triangle `t` becomes triangles `4t ..< 4t + 4`, with the same
    /// winding. UVs, when present, are kept at old vertices and averaged at edge points.
    /// Vertices on non-manifold edges, and boundary vertices without exactly two boundary
    /// neighbours, keep their position under ``Scheme/loop``. A triangle that repeats a corner
    /// stays degenerate: the point "between" the repeated corner and itself is that corner.
    /// - Complexity: O(t + V) for t triangles and V vertices.
    public static func subdivide(_ mesh: Mesh, scheme: Scheme) -> Mesh {
        let n = mesh.vertexCount
        let tc = mesh.triangleCount
        // 1. The edges: numbered in (a, b) order with a < b, each with the half-edges (corner k of
        //    triangle t → the next corner) using it in triangle and corner order, and per half-edge
        //    its edge; under Loop, the vertex adjacency built from them.
        let edges = EdgeNumbering(triangles: mesh.triangles, vertexCount: n)
        let edgeCount = edges.edgeCount
        let loop = scheme == .loop
        let adjacency = loop ? Adjacency(triangles: mesh.triangles, vertexCount: n, edges: edges) : nil
        let edgeOfHalf = edges.edgeOfHalf, low = edges.low, high = edges.high
        let halfStart = edges.halfStart, uses = edges.uses, halves = edges.halves

        var positions: [SIMD3<Float>] = []
        var tris: [UInt32] = []
        mesh.positions.withUnsafeBufferPointer { pos in
            mesh.triangles.withUnsafeBufferPointer { t in
                positions = [SIMD3<Float>](unsafeUninitializedCapacity: n + edgeCount) { out, outCount in
                    // 2. Vertex points (old vertices first).
                    if let adjacency {
                        loopVertexPoints(adjacency, pos, into: out)
                    } else {
                        for v in 0..<n { out[v] = pos[v] }
                    }
                    // 3. Edge points: under Loop, 3/8–3/8–1/8–1/8 on an edge of two triangles (the
                    //    opposite corners summed in Double in triangle and corner order); otherwise the
                    //    midpoint.
                    for e in 0..<edgeCount {
                        let a = SIMD3<Double>(pos[Int(low[e])]), b = SIMD3<Double>(pos[Int(high[e])])
                        let hLo = Int(halfStart[e]), hHi = hLo + Int(uses[e])
                        if loop && hHi - hLo == 2 {
                            var oppositeSum = SIMD3<Double>.zero
                            for q in hLo..<hHi {
                                oppositeSum += SIMD3<Double>(pos[Int(t[opposite(of: Int(halves[q]))])])
                            }
                            out[n + e] = SIMD3<Float>(0.375 * (a + b) + 0.125 * oppositeSum)
                        } else {
                            out[n + e] = SIMD3<Float>(0.5 * (a + b))
                        }
                    }
                    outCount = n + edgeCount
                }

                // 4. Four triangles per triangle: three corners and the middle one. The "edge point"
                //    of a corner repeated in a degenerate triangle is that corner.
                tris = [UInt32](unsafeUninitializedCapacity: 12 * tc) { out, outCount in
                    let base = UInt32(n)
                    for f in 0..<tc {
                        let a = t[3 * f], b = t[3 * f + 1], c = t[3 * f + 2]
                        let ab = a == b ? a : base + edgeOfHalf[3 * f], bc = b == c ? b : base + edgeOfHalf[3 * f + 1]
                        let ca = c == a ? c : base + edgeOfHalf[3 * f + 2]
                        let o = 12 * f
                        out[o] = a
                        out[o + 1] = ab
                        out[o + 2] = ca
                        out[o + 3] = b
                        out[o + 4] = bc
                        out[o + 5] = ab
                        out[o + 6] = c
                        out[o + 7] = ca
                        out[o + 8] = bc
                        out[o + 9] = ab
                        out[o + 10] = bc
                        out[o + 11] = ca
                    }
                    outCount = 12 * tc
                }
            }
        }

        // UVs: kept at old vertices, averaged at edge points.
        var uvs: [SIMD2<Float>]? = nil
        if let old = mesh.uvs {
            uvs = [SIMD2<Float>](unsafeUninitializedCapacity: n + edgeCount) { out, outCount in
                old.withUnsafeBufferPointer { uv in
                    for v in 0..<n { out[v] = uv[v] }
                    for e in 0..<edgeCount { out[n + e] = 0.5 * (uv[Int(low[e])] + uv[Int(high[e])]) }
                }
                outCount = n + edgeCount
            }
        }
        return Mesh(positions: positions, triangles: tris, uvs: uvs)
    }

    /// Loop subdivision (see ``subdivide(_:scheme:)``).
    public static func loop(_ mesh: Mesh) -> Mesh { subdivide(mesh, scheme: .loop) }

    /// Midpoint subdivision (see ``subdivide(_:scheme:)``).
    public static func midpoint(_ mesh: Mesh) -> Mesh { subdivide(mesh, scheme: .midpoint) }

    /// Loop's vertex points of the old vertices into `out[0..<n]`: a boundary vertex with two
    /// boundary neighbours 3/4 itself + 1/8 each, other boundary vertices and those of valence
    /// below 3 unchanged, an interior vertex (1 − nβ) itself + β its neighbours' sum.
    static func loopVertexPoints(_ adjacency: Adjacency, _ pos: UnsafeBufferPointer<SIMD3<Float>>,
                                 into out: UnsafeMutableBufferPointer<SIMD3<Float>>) {
        let offsets = adjacency.offsets, neighbors = adjacency.neighbors
        let bOffsets = adjacency.boundaryOffsets, bNeighbors = adjacency.boundaryNeighbors
        let isBoundary = adjacency.isBoundary
        for v in 0..<adjacency.vertexCount {
            let p = SIMD3<Double>(pos[v])
            if isBoundary[v] {
                let bLo = Int(bOffsets[v]), bHi = Int(bOffsets[v + 1])
                if bHi - bLo == 2 {
                    let b0 = SIMD3<Double>(pos[Int(bNeighbors[bLo])])
                    let b1 = SIMD3<Double>(pos[Int(bNeighbors[bLo + 1])])
                    out[v] = SIMD3<Float>(0.75 * p + 0.125 * (b0 + b1))
                } else {
                    out[v] = pos[v]
                }
                continue
            }
            let lo = Int(offsets[v]), hi = Int(offsets[v + 1])
            let valence = hi - lo
            guard valence >= 3 else {
                out[v] = pos[v]
                continue
            }
            var sum = SIMD3<Double>.zero
            for j in lo..<hi { sum += SIMD3<Double>(pos[Int(neighbors[j])]) }
            let beta = valence == 3 ? 3.0 / 16.0 : 3.0 / (8.0 * Double(valence))
            out[v] = SIMD3<Float>((1 - Double(valence) * beta) * p + beta * sum)
        }
    }

    /// The corner opposite half-edge `h` (corner `h` of its triangle → the next corner).
    @inline(__always)
    static func opposite(of h: Int) -> Int {
        h % 3 == 0 ? h + 2 : h - 1
    }
}
