import FaceScanCore
import FaceScanDecimate

/// A shell's back from its distance field: the zero set of the field less the wall's level, by
/// marching tetrahedra (each grid cell cut into the six tetrahedra around its main diagonal, so
/// neighbouring cells agree and the surface is closed and manifold with no case-table
/// ambiguity), facing the hollow; closed pieces (pockets sealed inside a thick nose) dropped.
/// Cost: linear in the grid's points (each cell once, a vertex per cut grid edge), and at most
/// `cap` vertices extracted: the cut edges are counted first, and the sampling made coarser
/// until they fit.
extension LevelSetShell {
    /// What one extraction did: the work the back's cost follows.
    package struct ExtractionWork: Sendable, Equatable {
        /// The grid step extracted on (in grid points).
        package var stride: Int
        /// Sampled grid points whose cut edges were counted, over every stride tried.
        package var pointsCounted: Int
        /// Cells marching tetrahedra visited.
        package var cellsVisited: Int
        /// Vertices marching tetrahedra made (before closed pieces were dropped).
        package var vertices: Int
    }

    /// The level set `level` behind the front's back surface, facing the hollow, the hollow
    /// opened by a ball of `opening`, closed pieces dropped, extracted on every `step`-th grid
    /// point along each axis (the bed layer included), or a coarser step when that would make
    /// more than `cap` vertices (a vertex per cut grid edge, counted before extracting).
    /// Throws `SolidError/backNotClosed(depth:)` (depth 0: the caller names it) when nothing
    /// lies inside the wall, or cancelled.
    static func backSurface(
        _ grid: DistanceGrid, level: Double, opening: Double, stride first: Int = 1, cap: Int = .max
    ) throws(SolidError) -> (mesh: Mesh, work: ExtractionWork) {
        var (nx, ny, nz, h) = (grid.nx, grid.ny, grid.nz, grid.h)
        let (x0, y0) = (grid.x0, grid.y0)
        guard var field = levelField(grid, level: level) else { throw .backNotClosed(depth: 0) }
        try SolidError.checkCancelled()
        opened(&field, nx: nx, ny: ny, nz: nz, h: h, radius: opening)
        try SolidError.checkCancelled()
        var step = max(1, first)
        var work = ExtractionWork(stride: step, pointsCounted: 0, cellsVisited: 0, vertices: 0)
        while true {
            let (cuts, points) = cutEdges(field, nx: nx, ny: ny, nz: nz, stride: step, limit: cap)
            work.pointsCounted += points
            if cuts <= cap { break }
            // A sampling of one cell along an axis has nothing coarser to offer: over the cap.
            guard (nx - 1) / step >= 2, (ny - 1) / step >= 2, (nz - 1) / step >= 2 else {
                throw .backOverBudget(vertices: cap)
            }
            // Coarser by whole multiples of the first stride: the distance grid measured its
            // outside points only at multiples of it (`DistanceGrid`'s `outsideStride`).
            step += max(1, first)
            try SolidError.checkCancelled()
        }
        work.stride = step
        if step > 1 {
            let mx = (nx - 1) / step + 1, my = (ny - 1) / step + 1, mz = (nz - 1) / step + 1
            field = subsampled(field, nx: nx, ny: ny, step: step, to: (mx, my, mz))
            (nx, ny, nz, h) = (mx, my, mz, h * Double(step))
        }
        // 3. Marching tetrahedra.
        var extractor = Extractor(
            field: field, nx: nx, ny: ny, origin: SIMD3(x0, y0, 0), spacing: h)
        let corner = (0..<8).map { c in (c & 1) + ((c >> 1) & 1) * nx + ((c >> 2) & 1) * nx * ny }
        let tets = kuhnTetrahedra().map { t in SIMD4(corner[t.0], corner[t.1], corner[t.2], corner[t.3]) }
        var stopped = false
        let f = field.flat
        for k in 0..<(nz - 1) {
            if Cancellation.requested {
                stopped = true
                break
            }
            for j in 0..<(ny - 1) {
                for i in 0..<(nx - 1) {
                    let base = (k * ny + j) * nx + i
                    var positive = 0
                    for c in 0..<8 where f[base + corner[c]] > 0 { positive += 1 }
                    guard positive > 0, positive < 8 else { continue }
                    for tet in tets { extractor.emit(SIMD4(repeating: base) &+ tet) }
                }
            }
        }
        let (positions, triangles) = (extractor.positions, extractor.triangles)
        if stopped { throw .cancelled }
        work.cellsVisited = (nx - 1) * (ny - 1) * (nz - 1)
        work.vertices = positions.count
        guard !triangles.isEmpty else { throw .backNotClosed(depth: 0) }
        let surface = Mesh(uncheckedPositions: positions, triangles: triangles)
        return (withoutClosedPieces(surface), work)
    }

    /// The field whose zero set is the back: each inside point's distance less `level` (never
    /// exactly zero), minus `level` and the distance outside (0 where it was not measured); nil when no point lies beyond the level (nothing hollow).
    static func levelField(_ grid: DistanceGrid, level: Double) -> [Float]? {
        var field = [Float](repeating: Float(-level), count: grid.nx * grid.ny * grid.nz)
        var anyHollow = false
        let tiny = Float(-1e-6 * grid.h)
        let d = grid.distance.flat
        let inside = grid.inside.flat
        var f = field.flatMut
        for index in 0..<f.count {
            let v = d[index] - Float(level)
            guard inside[index] else {
                // Outside: minus the distance where it was measured (a coarse grid), else 0.
                f[index] = v
                continue
            }
            // Never exactly zero: a cut point on a grid point would give a flat triangle.
            f[index] = v == 0 ? tiny : v
            if v > 0 { anyHollow = true }
        }
        return anyHollow ? field : nil
    }

    /// Every `step`-th point of `fine` (`nx` × `ny` × …) along each axis: `size.0` × `size.1` × `size.2` points.
    static func subsampled(_ fine: [Float], nx: Int, ny: Int, step: Int, to size: (Int, Int, Int)) -> [Float] {
        let (mx, my, mz) = size
        var field = [Float](repeating: 0, count: mx * my * mz)
        let src = fine.flat
        var out = field.flatMut
        for k in 0..<mz {
            for j in 0..<my {
                let from = (k * step * ny + j * step) * nx, to = (k * my + j) * mx
                for i in 0..<mx { out[to + i] = src[from + i * step] }
            }
        }
        return field
    }

    /// The grid edges of the Kuhn cells (each grid point's 7 edges toward +x, +y, +z and the
    /// diagonals of the faces and the cell at that corner) sampled every `stride` points whose
    /// ends lie on either side of zero — the vertices marching tetrahedra would make there —
    /// counted up to just past `limit`; and the sampled points looked at.
    static func cutEdges(_ field: [Float], nx: Int, ny: Int, nz: Int, stride s: Int, limit: Int) -> (Int, Int) {
        let mx = (nx - 1) / s + 1, my = (ny - 1) / s + 1, mz = (nz - 1) / s + 1
        let dx = s, dy = s * nx, dz = s * nx * ny
        var cuts = 0, points = 0
        let f = field.flat
        for k in 0..<mz {
            for j in 0..<my {
                let row = (k * s * ny + j * s) * nx
                for i in 0..<mx {
                    let g = row + i * s
                    let p = f[g] > 0
                    let hx = i + 1 < mx, hy = j + 1 < my, hz = k + 1 < mz
                    var c = 0
                    if hx && (f[g + dx] > 0) != p { c += 1 }
                    if hy && (f[g + dy] > 0) != p { c += 1 }
                    if hz && (f[g + dz] > 0) != p { c += 1 }
                    if hx && hy && (f[g + dx + dy] > 0) != p { c += 1 }
                    if hx && hz && (f[g + dx + dz] > 0) != p { c += 1 }
                    if hy && hz && (f[g + dy + dz] > 0) != p { c += 1 }
                    if hx && hy && hz && (f[g + dx + dy + dz] > 0) != p { c += 1 }
                    cuts += c
                }
                points += mx
                if cuts > limit { return (cuts, points) }
            }
        }
        return (cuts, points)
    }

    /// The six tetrahedra of a unit cell around its main diagonal (corner bits: 1 = +x, 2 = +y,
    /// 4 = +z), each listed positively oriented.
    static func kuhnTetrahedra() -> [(Int, Int, Int, Int)] {
        var out: [(Int, Int, Int, Int)] = []
        for (a, b) in [(1, 2), (1, 4), (2, 1), (2, 4), (4, 1), (4, 2)] {
            let tet = (0, a, a | b, 7)
            func p(_ c: Int) -> SIMD3<Double> { SIMD3(Double(c & 1), Double((c >> 1) & 1), Double((c >> 2) & 1)) }
            let o = dot3(cross3(p(tet.1) - p(tet.0), p(tet.2) - p(tet.0)), p(tet.3) - p(tet.0))
            out.append(o > 0 ? tet : (tet.0, tet.1, tet.3, tet.2))
        }
        return out
    }

    /// Marching tetrahedra's output so far: a vertex per grid edge the zero set cuts (found again
    /// by the edge's two grid points), triangles facing the positive side.
    struct Extractor {
        let field: [Float]
        let nx: Int, ny: Int
        let origin: SIMD3<Double>
        let spacing: Double
        var positions: [SIMD3<Float>] = []
        var triangles: [UInt32] = []
        /// Grid edge (its two grid points) → its cut vertex. A private map, not `MeshTopology`:
        /// it keys edges of the sampling grid, not of a mesh, and only the few the surface cuts
        /// (a flat array over every grid edge would be seven times the grid).
        var cut: [UInt64: UInt32] = [:]

        init(field: [Float], nx: Int, ny: Int, origin: SIMD3<Double>, spacing: Double) {
            (self.field, self.nx, self.ny, self.origin, self.spacing) = (field, nx, ny, origin, spacing)
        }

        func point(_ g: Int) -> SIMD3<Double> {
            let i = g % nx, j = (g / nx) % ny, k = g / (nx * ny)
            return origin + spacing * SIMD3(Double(i), Double(j), Double(k))
        }

        /// The vertex where the zero set cuts the edge between grid points `g0` and `g1`.
        mutating func vertex(_ g0: Int, _ g1: Int) -> UInt32 {
            let (a, b) = g0 < g1 ? (g0, g1) : (g1, g0)
            let key = UInt64(a) << 32 | UInt64(b)
            if let v = cut[key] { return v }
            let fa = Double(field[a]), fb = Double(field[b])
            let pa = point(a), pb = point(b)
            var q = pa + (fa / (fa - fb)) * (pb - pa)
            if pa.z == 0 && pb.z == 0 { q.z = 0 }  // on the bed exactly
            let v = UInt32(positions.count)
            positions.append(SIMD3<Float>(q))
            cut[key] = v
            return v
        }

        /// The piece of the zero set inside the positively oriented tetrahedron `g` (grid points).
        mutating func emit(_ g: SIMD4<Int>) {
            var inside = SIMD4<Int>.zero, outside = SIMD4<Int>.zero
            var ni = 0, no = 0
            for c in 0..<4 {
                if field[g[c]] > 0 {
                    inside[ni] = c
                    ni += 1
                } else {
                    outside[no] = c
                    no += 1
                }
            }
            switch ni {
            case 1, 3:
                // (s, x, y, z) an even permutation: triangle (sx, sy, sz) faces away from s.
                let s = ni == 1 ? inside[0] : outside[0]
                let order = Self.evenFrom[s]
                let a = vertex(g[s], g[order[1]]), b = vertex(g[s], g[order[2]]), c = vertex(g[s], g[order[3]])
                // Toward the positive side: toward s when s is the positive one.
                if ni == 1 { add(a, c, b) } else { add(a, b, c) }
            case 2:
                // (a, b, c, d) an even permutation with a, b positive: quad ac, bc, bd, ad faces them.
                let a = inside[0], b = inside[1]
                var c = outside[0], d = outside[1]
                if !LevelSetShell.isEven(SIMD4(a, b, c, d)) { swap(&c, &d) }
                let ac = vertex(g[a], g[c]), bc = vertex(g[b], g[c])
                let bd = vertex(g[b], g[d]), ad = vertex(g[a], g[d])
                add(ac, bc, bd)
                add(ac, bd, ad)
            default:
                break
            }
        }

        package mutating func add(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
            triangles.append(a)
            triangles.append(b)
            triangles.append(c)
        }

        /// Even permutations of (0, 1, 2, 3) starting with each corner.
        static let evenFrom: [SIMD4<Int>] = [
            SIMD4(0, 1, 2, 3), SIMD4(1, 0, 3, 2), SIMD4(2, 3, 0, 1), SIMD4(3, 2, 1, 0),
        ]
    }

    static func isEven(_ p: SIMD4<Int>) -> Bool {
        var inversions = 0
        for i in 0..<4 { for j in (i + 1)..<4 where p[i] > p[j] { inversions += 1 } }
        return inversions % 2 == 0
    }

    /// `mesh` without its connected pieces that have no boundary edge.
    static func withoutClosedPieces(_ mesh: Mesh) -> Mesh {
        let topology = MeshTopology(mesh)
        let piece = topology.pieces()
        let open = topology.openPieces(piece)
        var kept: [UInt32] = []
        kept.reserveCapacity(mesh.triangles.count)
        for t in 0..<mesh.triangleCount where open[piece[Int(mesh.triangles[3 * t])]] {
            kept += [mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]]
        }
        var out = mesh
        out.triangles = kept
        return Decimation.referencedOnly(out)
    }
}
