import FaceScanCore

// 1-to-4 midpoint subdivision: every edge split at its middle, the same surface with more
// vertices (benchmarks and tests build their finer meshes with it).
//
// Recipe: number every undirected edge once with the half-edges using it → old vertices, then
// edge midpoints → four triangles per input triangle.

/// Subdivision of an indexed triangle mesh into four triangles per triangle.
public enum Subdivision {
    /// One subdivision step. The output keeps the input's vertices first (indices `0..<V`), then one
    /// vertex per undirected edge; triangle `t` becomes triangles `4t ..< 4t + 4`, with the same
    /// winding. UVs, when present, are kept at old vertices and averaged at edge points.
    /// A triangle that repeats a corner
    /// stays degenerate: the point "between" the repeated corner and itself is that corner.
    /// - Complexity: O(t + V) for t triangles and V vertices.
    public static func midpoint(_ mesh: Mesh) -> Mesh {
        let n = mesh.vertexCount
        let tc = mesh.triangleCount
        // 1. The edges: numbered in (a, b) order with a < b, each with the half-edges (corner k of
        //    triangle t → the next corner) using it in triangle and corner order, and per half-edge
        //    its edge.
        let edges = MeshTopology(mesh)
        let edgeCount = edges.edgeCount
        let edgeOfHalf = edges.edgeOfHalf, low = edges.low, high = edges.high

        var positions: [SIMD3<Float>] = []
        var tris: [UInt32] = []
        let pos = mesh.positions.flat
        let t = mesh.triangles.flat
        positions = [SIMD3<Float>](unsafeUninitializedCapacity: n + edgeCount) { out, outCount in
            // 2. The old vertices first, then 3. a point per edge: its midpoint.
            for v in 0..<n { out[v] = pos[v] }
            for e in 0..<edgeCount {
                let a = SIMD3<Double>(pos[Int(low[e])]), b = SIMD3<Double>(pos[Int(high[e])])
                out[n + e] = SIMD3<Float>(0.5 * (a + b))
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

        // UVs: kept at old vertices, averaged at edge points.
        var uvs: [SIMD2<Float>]? = nil
        if let old = mesh.uvs {
            uvs = [SIMD2<Float>](unsafeUninitializedCapacity: n + edgeCount) { out, outCount in
                let uv = old.flat
                for v in 0..<n { out[v] = uv[v] }
                for e in 0..<edgeCount { out[n + e] = 0.5 * (uv[Int(low[e])] + uv[Int(high[e])]) }
                outCount = n + edgeCount
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris, uvs: uvs)
    }
}
