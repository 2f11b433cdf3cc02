import FaceScanCore
import FaceScanDecimate

/// Puts an open face surface in printing position: cut behind the face by a plane, the rim that
/// stays above the plane carried straight down onto it by a skirt, so that every boundary vertex
/// of the result lies on the plane (the bed).
///
/// Recipe: classify vertices against z = `plane` → keep triangles above, cut the straddling ones along
/// the plane (a cut vertex per cut edge; a kept quad split on its better diagonal) → keep the
/// largest connected piece → fill the holes the cut opened inside it → skirt: under every rim
/// vertex above the plane a column of vertices down to it (rows about one rim edge apart), the
/// columns of neighbouring rim vertices zipped together.
enum PlaneTrim {
    /// The surface cut to z ≥ `plane` and skirted; its boundary loop lies on the plane, in the
    /// same direction as the surface's half-edges (outer rim counter-clockwise seen from +z).
    /// Returns nil when nothing of the surface lies above the plane.
    /// `skirtStart`: the first skirt triangle (the cut surface's come first).
    /// With a `plinth`, the surface is cut that much above the plane and the whole rim carried
    /// down: the part stands on a vertical wall at least that tall all round.
    static func trimAndSkirt(_ surface: Mesh, plane: Float, plinth: Float = 0) -> (mesh: Mesh, skirtStart: Int)? {
        guard let cut = clip(surface, plane: plane + plinth) else { return nil }
        let piece = Solidify.fillHoles(largestPiece(cut))
        guard let skirted = skirt(piece, plane: plane) else { return nil }
        return (skirted, piece.triangleCount)
    }

    // MARK: Clip

    static func clip(_ mesh: Mesh, plane: Float) -> Mesh? {
        let n = mesh.vertexCount
        var positions = mesh.positions
        var uvs = mesh.uvs
        var above = [Bool](repeating: false, count: n)
        var anyAbove = false
        for v in 0..<n {
            above[v] = positions[v].z >= plane
            anyAbove = anyAbove || above[v]
        }
        guard anyAbove else { return nil }
        // The cut vertex of each edge the plane crosses, by the edge's number in the topology.
        let topology = MeshTopology(mesh)
        var cutVertex = [UInt32](repeating: .max, count: topology.edgeCount)
        /// The cut vertex on half-edge `h`, a → b (made at its first use).
        func cutPoint(_ a: UInt32, _ b: UInt32, half h: Int) -> UInt32 {
            let e = Int(topology.edgeOfHalf[h])
            if cutVertex[e] != .max { return cutVertex[e] }
            let lo = min(a, b), hi = max(a, b)
            let p = positions[Int(lo)], q = positions[Int(hi)]
            let t = Double(plane - p.z) / Double(q.z - p.z)
            var c = SIMD3<Float>(SIMD3<Double>(p) + t * SIMD3<Double>(q - p))
            c.z = plane
            let v = UInt32(positions.count)
            positions.append(c)
            if let u = uvs { uvs!.append(u[Int(lo)] + (u[Int(hi)] - u[Int(lo)]) * Float(t)) }
            cutVertex[e] = v
            return v
        }
        var triangles: [UInt32] = []
        triangles.reserveCapacity(mesh.triangles.count)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            let k = (above[Int(a)] ? 1 : 0) + (above[Int(b)] ? 1 : 0) + (above[Int(c)] ? 1 : 0)
            if k == 3 {
                triangles += [a, b, c]
                continue
            }
            if k == 0 { continue }
            // Rotate so the lone vertex (above when k == 1, below when k == 2) comes first; hx, hz:
            // the half-edges x → y and z → x.
            var (x, y, z) = (a, b, c)
            var (hx, hy, hz) = (3 * t, 3 * t + 1, 3 * t + 2)
            let lone = k == 1
            while above[Int(x)] != lone || above[Int(y)] == lone || above[Int(z)] == lone {
                (x, y, z) = (y, z, x)
                (hx, hy, hz) = (hy, hz, hx)
            }
            let xy = cutPoint(x, y, half: hx), zx = cutPoint(z, x, half: hz)
            if lone {
                triangles += [x, xy, zx]
            } else {
                // Quad xy, y, z, zx (x below): split on the diagonal that keeps the better shape.
                let d1 = min(minSine(positions, xy, y, zx), minSine(positions, y, z, zx))
                let d2 = min(minSine(positions, xy, y, z), minSine(positions, xy, z, zx))
                triangles += d1 >= d2 ? [xy, y, zx, y, z, zx] : [xy, y, z, xy, z, zx]
            }
        }
        guard !triangles.isEmpty else { return nil }
        return Decimation.referencedOnly(Mesh(uncheckedPositions: positions, triangles: triangles, uvs: uvs))
    }

    /// Smallest sine of the corner angles of triangle a, b, c (0 when degenerate).
    static func minSine(_ p: [SIMD3<Float>], _ a: UInt32, _ b: UInt32, _ c: UInt32) -> Double {
        let pa = SIMD3<Double>(p[Int(a)]), pb = SIMD3<Double>(p[Int(b)]), pc = SIMD3<Double>(p[Int(c)])
        let ab = pb - pa, bc = pc - pb, ca = pa - pc
        let n = norm3(cross3(ab, -ca))
        let la = dot3(ab, ab), lb = dot3(bc, bc), lc = dot3(ca, ca)
        let worst = max(la * lb, max(lb * lc, lc * la))
        return worst > 0 ? n / worst.squareRoot() : 0
    }

    /// The connected piece (triangles sharing vertices) with the most triangles; ties to the
    /// first in triangle order.
    static func largestPiece(_ mesh: Mesh) -> Mesh {
        let piece = MeshTopology.pieces(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
        var size = [Int](repeating: 0, count: mesh.vertexCount)
        for t in 0..<mesh.triangleCount { size[piece[Int(mesh.triangles[3 * t])]] += 1 }
        var best = 0
        for v in size.indices where size[v] > size[best] { best = v }
        var kept: [UInt32] = []
        for t in 0..<mesh.triangleCount where piece[Int(mesh.triangles[3 * t])] == best {
            kept += [mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]]
        }
        var out = mesh
        out.triangles = kept
        return Decimation.referencedOnly(out)
    }

    // MARK: Skirt

    /// Most rows of a skirt column.
    static let maximumRows = 256
    /// Most vertices a skirt adds.
    static let maximumSkirtVertices = 60_000
    /// Most vertices a skirt adds per vertex of the surface (at least two rows): its cost follows
    /// the surface's.
    static let skirtPerVertex = 4

    static func skirt(_ surface: Mesh, plane: Float) -> Mesh? {
        let loops = MeshTopology(surface).boundaryLoops()
        guard let r = loops.rimIndex(surface.positions) else { return nil }
        let rim = loops.loops[r]
        var out = surface
        // Rows about one rim edge apart, at most ``maximumRows``, ``maximumSkirtVertices`` in all
        // and ``skirtPerVertex`` times the surface's vertices (a rim of tiny edges high above the
        // cut would otherwise take millions, or a small surface's skirt many times its cost).
        let spacing = Float(BoundaryLoops.length(rim, surface.positions) / Double(rim.count))
        let mostVertices = min(maximumSkirtVertices, max(2 * rim.count, skirtPerVertex * surface.vertexCount))
        let mostRows = max(1, min(maximumRows, mostVertices / max(rim.count, 1)))
        // Column under each rim vertex, top (the rim vertex) first.
        var columns: [[UInt32]] = []
        columns.reserveCapacity(rim.count)
        for v in rim {
            let p = surface.positions[Int(v)]
            let h = p.z - plane
            var column = [v]
            if h > 0 {
                let rows = max(1, min(mostRows, Int(min(h / spacing, 1e9).rounded())))
                for k in 1...rows {
                    let z = k == rows ? plane : p.z - h * Float(k) / Float(rows)
                    column.append(UInt32(out.positions.count))
                    out.positions.append(SIMD3(p.x, p.y, z))
                    out.uvs?.append(surface.uvs![Int(v)])
                }
            }
            columns.append(column)
        }
        // Zip each pair of neighbouring columns (rim half-edge a → b): triangles (B[j], A[i], A[i+1])
        // and (B[j], A[i], B[j+1]), advancing the column whose next row is higher up.
        for i in rim.indices {
            let a = columns[i], b = columns[(i + 1) % rim.count]
            var ia = 0, ib = 0
            while ia < a.count - 1 || ib < b.count - 1 {
                let stepA: Bool
                if ia == a.count - 1 {
                    stepA = false
                } else if ib == b.count - 1 {
                    stepA = true
                } else {
                    // Fraction of the way down after each step; ties step A.
                    stepA = (ia + 1) * (b.count - 1) <= (ib + 1) * (a.count - 1)
                }
                if stepA {
                    out.triangles += [b[ib], a[ia], a[ia + 1]]
                    ia += 1
                } else {
                    out.triangles += [b[ib], a[ia], b[ib + 1]]
                    ib += 1
                }
            }
        }
        return out
    }
}
