// 1-to-4 triangle subdivision: Loop's smooth scheme and the plain midpoint scheme.
//
// Papers:
// - Charles Loop. "Smooth Subdivision Surfaces Based on Triangles". Master's thesis, University of
//   Utah, 1987. (Edge points 3/8–3/8–1/8–1/8, vertex points with weight β over the one-ring.)
// - Joe Warren. "Subdivision Methods for Geometric Design". 1995. (β = 3/(8n), 3/16 for n = 3.)
// - Henning Biermann, Adi Levin, Denis Zorin. "Piecewise Smooth Subdivision Surfaces with Normal
//   Control". SIGGRAPH 2000. (Boundary rules: edge midpoints 1/2–1/2, vertices 1/8–3/4–1/8.)
//
// Recipe: vertex adjacency (CSR) → number every undirected edge once → accumulate the opposite
// corners of each edge → edge points → vertex points → four triangles per input triangle.

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
    /// neighbours, keep their position under ``Scheme/loop``.
    /// - Complexity: O(t · valence) for t triangles.
    public static func subdivide(_ mesh: Mesh, scheme: Scheme) -> Mesh {
        let n = mesh.vertexCount
        let tc = mesh.triangleCount
        let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: n)
        let offsets = adjacency.offsets
        let neighbors = adjacency.neighbors

        // 1. Edge ids: entry j of vertex a's neighbour list names the edge {a, neighbors[j]}.
        var edgeOf = [UInt32](repeating: 0, count: neighbors.count)
        var edgeCount = 0
        var ends: [UInt32] = []
        ends.reserveCapacity(neighbors.count)
        for a in 0..<n {
            for j in Int(offsets[a])..<Int(offsets[a + 1]) where Int(neighbors[j]) > a {
                edgeOf[j] = UInt32(edgeCount)
                ends.append(UInt32(a))
                ends.append(neighbors[j])
                edgeCount += 1
            }
        }
        for a in 0..<n {
            for j in Int(offsets[a])..<Int(offsets[a + 1]) where Int(neighbors[j]) < a {
                let b = Int(neighbors[j])
                edgeOf[j] = edgeOf[slot(of: UInt32(a), in: b, offsets, neighbors)]
            }
        }

        // 2. Per triangle corner: the edge it starts; per edge, the sum and count of opposite corners.
        let positions = mesh.positions
        var cornerEdge = [UInt32](repeating: 0, count: 3 * tc)
        var oppositeSum = [SIMD3<Double>](repeating: .zero, count: edgeCount)
        var oppositeCount = [UInt8](repeating: 0, count: edgeCount)
        mesh.triangles.withUnsafeBufferPointer { t in
            for f in 0..<tc {
                for k in 0..<3 {
                    let a = t[3 * f + k], b = t[3 * f + (k + 1) % 3], c = t[3 * f + (k + 2) % 3]
                    let e = Int(edgeOf[slot(of: b, in: Int(a), offsets, neighbors)])
                    cornerEdge[3 * f + k] = UInt32(e)
                    oppositeSum[e] += SIMD3<Double>(positions[Int(c)])
                    oppositeCount[e] &+= 1
                }
            }
        }

        // 3. Edge points.
        var out = [SIMD3<Float>]()
        out.reserveCapacity(n + edgeCount)
        // 4. Vertex points (old vertices first).
        switch scheme {
        case .midpoint:
            out.append(contentsOf: positions)
        case .loop:
            for v in 0..<n {
                let p = SIMD3<Double>(positions[v])
                let bLo = Int(adjacency.boundaryOffsets[v]), bHi = Int(adjacency.boundaryOffsets[v + 1])
                if adjacency.isBoundary[v] {
                    if bHi - bLo == 2 {
                        let b0 = SIMD3<Double>(positions[Int(adjacency.boundaryNeighbors[bLo])])
                        let b1 = SIMD3<Double>(positions[Int(adjacency.boundaryNeighbors[bLo + 1])])
                        out.append(SIMD3<Float>(0.75 * p + 0.125 * (b0 + b1)))
                    } else {
                        out.append(positions[v])
                    }
                    continue
                }
                let lo = Int(offsets[v]), hi = Int(offsets[v + 1])
                let valence = hi - lo
                guard valence >= 3 else {
                    out.append(positions[v])
                    continue
                }
                var sum = SIMD3<Double>.zero
                for j in lo..<hi { sum += SIMD3<Double>(positions[Int(neighbors[j])]) }
                let beta = valence == 3 ? 3.0 / 16.0 : 3.0 / (8.0 * Double(valence))
                out.append(SIMD3<Float>((1 - Double(valence) * beta) * p + beta * sum))
            }
        }
        for e in 0..<edgeCount {
            let a = SIMD3<Double>(positions[Int(ends[2 * e])]), b = SIMD3<Double>(positions[Int(ends[2 * e + 1])])
            if scheme == .loop && oppositeCount[e] == 2 {
                out.append(SIMD3<Float>(0.375 * (a + b) + 0.125 * oppositeSum[e]))
            } else {
                out.append(SIMD3<Float>(0.5 * (a + b)))
            }
        }
        var uvs: [SIMD2<Float>]? = nil
        if let old = mesh.uvs {
            var u = old
            u.reserveCapacity(n + edgeCount)
            for e in 0..<edgeCount { u.append(0.5 * (old[Int(ends[2 * e])] + old[Int(ends[2 * e + 1])])) }
            uvs = u
        }

        // 5. Four triangles per triangle: three corners and the middle one.
        var tris = [UInt32]()
        tris.reserveCapacity(12 * tc)
        let base = UInt32(n)
        for f in 0..<tc {
            let a = mesh.triangles[3 * f], b = mesh.triangles[3 * f + 1], c = mesh.triangles[3 * f + 2]
            let ab = base + cornerEdge[3 * f], bc = base + cornerEdge[3 * f + 1], ca = base + cornerEdge[3 * f + 2]
            tris.append(a)
            tris.append(ab)
            tris.append(ca)
            tris.append(b)
            tris.append(bc)
            tris.append(ab)
            tris.append(c)
            tris.append(ca)
            tris.append(bc)
            tris.append(ab)
            tris.append(bc)
            tris.append(ca)
        }
        return Mesh(positions: out, triangles: tris, uvs: uvs)
    }

    /// Loop subdivision (see ``subdivide(_:scheme:)``).
    public static func loop(_ mesh: Mesh) -> Mesh { subdivide(mesh, scheme: .loop) }

    /// Midpoint subdivision (see ``subdivide(_:scheme:)``).
    public static func midpoint(_ mesh: Mesh) -> Mesh { subdivide(mesh, scheme: .midpoint) }

    /// Index into `neighbors` of `b` within vertex `a`'s sorted neighbour list.
    @inline(__always)
    static func slot(of b: UInt32, in a: Int, _ offsets: [Int32], _ neighbors: [UInt32]) -> Int {
        var lo = Int(offsets[a]), hi = Int(offsets[a + 1])
        while lo < hi {
            let mid = (lo + hi) >> 1
            if neighbors[mid] < b { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
