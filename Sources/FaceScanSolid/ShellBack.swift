import FaceScanCore
import FaceScanDecimate
import FaceScanMeasure

/// A shell whose wall is as thick as asked everywhere: its back is the level set of the distance to
/// the front, so where the face folds more tightly than the thickness (a nose wing around its
/// nostril, the corner of a mouth) the part is solid instead of two back sheets meeting.
///
/// Steps (front in printing position: rim on the bed z = 0, the face looking +z), each in its file:
/// 1. **Distance field** (DistanceField.swift), measured once per front for every choice below.
/// 2. **Opening** (Opening.swift): the hollow keeps only what a ball reaches without touching the
///    wall, so slots narrower than the ball (between a nostril's tube and its wing) fill up.
/// 3. **Marching tetrahedra** (MarchingTetrahedra.swift) on grid points `Constants/extraction`
///    thicknesses apart; then decimated (quadric collapses, every k-th vertex of its loops on the
///    bed locked) to at most the back's share of the vertices.
/// 4. **Kept off the front**: a vertex nearer the front than the level moves onto it.
/// 5. **Bed ring** (BedRing.swift): the bed between the rim and the back's loops on it.
/// 6. **Pushed off** (PushOff.swift) where the back still crosses the front; what still crosses
///    is refused (`SolidError/backCrossesFront(depth:)`).
///
/// A back is made for one ``Choice`` (margin and ball); which choices are tried, in what order,
/// is ``Solidify``'s retry policy, from ``choices(front:thickness:backVertices:)``.
package enum LevelSetShell {
    enum Constants {
        /// Grid spacing, in thicknesses.
        static let spacing = 0.5
        /// Distances of the back from the front tried, in thicknesses: a little over one, so that
        /// the back's flat triangles between level-set points stay at least the thickness away
        /// where the back is curved; more where a coarse back cuts corners.
        static let margins = [1.04, 1.2, 1.4, 1.7]
        /// Most choices one cut offers (``choices(front:thickness:backVertices:)``): every margin
        /// with the small ball, every margin but the first with the wide one.
        static let mostChoices = 2 * margins.count - 1
        /// Share of the back's area allowed within 0.9 thickness of the front before a larger
        /// margin is tried.
        static let thinShare = 0.004
        /// Largest grid, in points (about 50 MB of distances, 50 MB per field tried); a larger
        /// part gets a coarser spacing.
        static let maximumGridPoints = 12_000_000
        /// Spacing the back is extracted at, in thicknesses, when the grid is finer (a whole
        /// multiple of the grid's spacing): the field and the opening are computed at the grid's.
        static let extraction = 1.0
        /// Most marching-tetrahedra vertices per vertex of the back's share: the extraction's
        /// spacing is chosen for it and the count is checked before extracting (see
        /// ``backSurface(_:level:opening:stride:cap:)``), so the decimation's work is bounded by
        /// the share.
        static let extractionRatio = 16.0
        /// Marching-tetrahedra vertices per vertex of the back's share the extraction's spacing
        /// aims at (its area taken as the front's): enough for the decimation to remove the
        /// slivers (`decimation`), few enough that its work follows the share.
        static let extractionAim = 4.5
        /// Coarsest grid spacing a part's size may ask, in thicknesses: a shell that needs a
        /// coarser grid for its size is refused.
        static let coarsestSpacing = 1.0
        /// Grid spacing from the back's expected edge length (``expectedEdge(area:backVertices:)``),
        /// in edges, when coarser than `spacing`: the back's vertices are that far apart anyway.
        static let edgeSpacing = 0.2
        /// Down to this fraction of the marching-tetrahedra vertices the back is always decimated
        /// (marching tetrahedra leave slivers; the collapses' shape term removes them).
        static let decimation = 0.35
        /// A pass of the back's decimation that makes fewer than this share of the collapses left
        /// goes on at any cost: marching tetrahedra's slivers stall the cheap collapses.
        static let decimationStall = 1.0 / 16
        /// Lowest height of a back vertex off the bed (its rim on the bed excepted), in thicknesses.
        static let bedMargin = 0.02
        /// Rounds and step (in thicknesses) of pushing the back off the front where it crosses it.
        static let pushRounds = 12
        static let pushStep = 0.25
        /// Radius of the ball that opens the hollow, in thicknesses.
        static let opening = 0.75
        /// Radius of the ball for a coarse back, in the back's expected edge lengths.
        static let coarseOpening = 0.5
        /// Rounds the distance field's columns are measured in (a cancelled job stops between two).
        static let fieldRounds = 32
    }

    /// One way to make the back: its distance from the front and the radius of the ball that
    /// opens the hollow, both in mesh units.
    struct Choice: Sendable, Equatable {
        var margin: Double
        var opening: Double
    }

    /// What every choice shares: the front's BVH and its distance field, measured out to the
    /// largest margin.
    struct Field {
        let bvh: TriangleBVH
        let grid: DistanceGrid
        /// The front's area, mesh units squared.
        let frontArea: Double

        /// The field of `front` for a back of `backVertices` vertices (its grid no finer than the
        /// back's expected edges allow, see ``DistanceGrid/spacing(_:thickness:edge:)``), those
        /// edges counted for no more vertices than the front's own: the surface has no finer
        /// detail for the back to follow, so a few dozen vertices whose back gets the floor of
        /// `Solidify/Constants/freeBackVertices` get the grid of their own size, not the floor's
        /// (a 48-vertex surface 325 mm across: 52 000 points a field instead of 164 000).
        init(_ front: Mesh, thickness: Double, backVertices: Int) throws(SolidError) {
            bvh = TriangleBVH(front)
            frontArea = LevelSetShell.area(front)
            grid = try DistanceGrid(
                front, thickness: thickness, level: Constants.margins.max()! * thickness,
                edge: LevelSetShell.expectedEdge(area: frontArea, backVertices: min(backVertices, front.vertexCount)),
                share: max(backVertices, 1), area: frontArea, bvh: bvh)
        }
    }

    /// The most vertices a back's extraction makes: `Constants/extractionRatio` per vertex of
    /// its share (on a grid coarser than a wall, the points outside the front have their signed
    /// distance, so a thin wall over a large part needs no finer sampling than its share asks).
    package static func extractionCap(area: Double, thickness: Double, share: Int) -> Int {
        Int(Constants.extractionRatio * Double(max(share, 1)))
    }

    /// The grid step a back is extracted on (in grid points of spacing `h`): one thickness
    /// (every other point of the finest grid: the back is decimated far below that anyway), or
    /// coarser so that a front of `area` gives about `Constants/extractionAim` vertices per vertex
    /// of the back's `share` (the extraction's count is checked before it extracts, see
    /// ``backSurface(_:level:opening:stride:cap:)``).
    static func extractionStride(h: Double, area: Double, thickness: Double, share: Int) -> Int {
        let stride = max(1, Int((Constants.extraction * thickness / h * (1 + 1e-9)).rounded(.down)))
        let spacing = (area / (Constants.extractionAim * Double(max(share, 1)))).squareRoot()
        return max(stride, Int((spacing / h).rounded(.up)))
    }

    /// The edge length of a back of `backVertices` vertices over `area` (equilateral triangles,
    /// two per vertex).
    static func expectedEdge(area: Double, backVertices: Int) -> Double {
        (1.155 * area / Double(max(backVertices, 1))).squareRoot()
    }

    /// The choices to try, most likely first: the level set `Constants/margins` thicknesses
    /// behind the front, the hollow opened by a ball of `Constants/opening` thickness; then, for
    /// a coarse back (a back decimated hard cuts corners behind tight curves and crosses itself in
    /// narrow parts of the hollow), the larger margins again with the ball as wide as half the
    /// back's edges. Ordered by nearness to the margin a back this coarse usually needs (its flat
    /// triangles cut corners by about their edge length past one thickness): most parts need one.
    static func choices(front: Mesh, thickness: Double, backVertices: Int) -> [Choice] {
        let edge = expectedEdge(area: area(front), backVertices: backVertices)
        let small = Constants.opening * thickness, wide = Constants.coarseOpening * edge
        var tries = Constants.margins.map { ($0, small) }
        if wide > 1.1 * small { tries += Constants.margins.dropFirst().map { ($0, wide) } }
        let likely = min(Constants.margins.max()!, 1.04 + 0.8 * max(0, edge / thickness - 1))
        return tries.enumerated().sorted { a, b in
            let da = abs(a.element.0 - likely), db = abs(b.element.0 - likely)
            return da != db ? da < db : a.offset < b.offset
        }.map { Choice(margin: $0.element.0 * thickness, opening: $0.element.1) }
    }

    /// The area of `mesh`, summed in triangle order.
    static func area(_ mesh: Mesh) -> Double {
        var total = 0.0
        for t in 0..<mesh.triangleCount {
            let (i, j, k) = mesh.triangle(t)
            let a = SIMD3<Double>(mesh.positions[Int(i)]), b = SIMD3<Double>(mesh.positions[Int(j)])
            total += 0.5 * norm3(cross3(b - a, SIMD3<Double>(mesh.positions[Int(k)]) - a))
        }
        return total
    }

    /// Front + level-set back + ring on the bed for one `choice`; the back has at most
    /// `backVertices` vertices; the extraction's and the push-off's work are appended to `work`. Throws `SolidError/backNotClosed(depth:)` or
    /// `SolidError/backCrossesFront(depth:)` with depth 0 (the caller names the cut), or cancelled.
    static func shell(
        _ front: Mesh, rim: [UInt32], thickness: Double, choice: Choice, backVertices: Int, field: Field,
        work: inout Solidify.Work
    ) throws(SolidError) -> Mesh {
        let grid = field.grid, bvh = field.bvh
        // Extracted at one thickness's spacing (every other point of the finest grid): the back
        // is decimated far below that anyway, and a quarter of the vertices decimate 4x faster.
        // Coarser still when the back would have more than `Constants/extractionRatio` times
        // its share of vertices (its area about the front's, a vertex per spacing squared), and
        // the extraction checks its count before it extracts (a folded front's back can be many
        // times its area): the decimation's work is bounded by the share, not by the grid.
        let share = max(backVertices, 1)
        let stride = extractionStride(h: grid.h, area: field.frontArea, thickness: thickness, share: share)
        let cap = extractionCap(area: field.frontArea, thickness: thickness, share: share)
        let extraction: (mesh: Mesh, work: ExtractionWork)
        do throws(SolidError) {
            extraction = try backSurface(grid, level: choice.margin, opening: choice.opening, stride: stride, cap: cap)
        } catch {
            // Over the cap at the coarsest sampling: the back needs more than its share.
            if case .backOverBudget = error { throw .backOverBudget(vertices: backVertices) }
            throw error
        }
        work.backs.append((share, extraction.work))
        var back = extraction.mesh
        back = try decimated(back, backVertices: backVertices)
        let loops = MeshTopology(back).boundaryLoops()
        var onLoop = [Bool](repeating: false, count: back.vertexCount)
        for loop in loops.loops { for v in loop { onLoop[Int(v)] = true } }
        try SolidError.checkCancelled()
        try keepOff(&back, onLoop: onLoop, level: choice.margin, thickness: thickness, bvh: bvh)
        let ring = try BedRing.triangles(front: front, rim: rim, back: back, loops: loops.loops)
        // Assemble: front, back (facing the hollow), ring (facing the bed).
        let n = front.vertexCount
        var triangles = front.triangles
        triangles.reserveCapacity(front.triangles.count + back.triangles.count + ring.count)
        for i in back.triangles { triangles.append(UInt32(n) + i) }
        triangles += ring
        let uvs = front.uvs.map { $0 + [SIMD2<Float>](repeating: .zero, count: back.vertexCount) }
        var solid = Mesh(uncheckedPositions: front.positions + back.positions, triangles: triangles, uvs: uvs)
        try SolidError.checkCancelled()
        let check = MeshCheck(solid)
        guard check.isWatertight, check.isClean else { throw .backNotClosed(depth: 0) }
        // Where the back crosses the front, it is pushed off; what still crosses is refused.
        var added = [Bool](repeating: false, count: solid.triangleCount)
        for t in front.triangleCount..<solid.triangleCount { added[t] = true }
        if !SelfIntersection.pairs(solid, only: added, limit: 1).isEmpty {
            var push = PushWork()
            pushOut(
                &solid, front: front, backTriangles: front.triangleCount..<(front.triangleCount + back.triangleCount),
                fixed: onLoop, thickness: thickness, bvh: bvh, work: &push)
            work.pushes.append(push)
            guard SelfIntersection.pairs(solid, only: added, limit: 1).isEmpty else {
                throw .backCrossesFront(depth: 0)
            }
        }
        return solid
    }

    /// `back` decimated with its loops on the bed kept in shape: every k-th loop vertex stays, k as
    /// small as the budget allows (the loops take at most a third of it); always down to
    /// `Constants/decimation` of its vertices, and to at most `backVertices`.
    static func decimated(_ back: Mesh, backVertices: Int) throws(SolidError) -> Mesh {
        let budget = min(backVertices, Int(Double(back.vertexCount) * Constants.decimation))
        guard back.vertexCount > budget else { return back }
        let loops = MeshTopology(back).boundaryLoops()
        let loopVertices = loops.loops.reduce(0) { $0 + $1.count }
        let every = max(1, Int((Double(3 * loopVertices) / Double(max(budget, 1))).rounded(.up)))
        var keep = [Bool](repeating: false, count: back.vertexCount)
        for loop in loops.loops {
            for (k, v) in loop.enumerated() where k % every == 0 { keep[Int(v)] = true }
        }
        let out = Decimation.simplify(back, toward: budget, keeping: keep, stall: Constants.decimationStall)
        try SolidError.checkCancelled()
        guard out.vertexCount <= backVertices else { throw .backOverBudget(vertices: backVertices) }
        return out
    }

    /// A vertex the extraction's straight interpolation or the collapses left nearer the front
    /// than `level` moves straight away from its nearest front point onto the level: the wall
    /// only thickens. Off the bed, above the floor; the loops stay on the bed.
    static func keepOff(_ back: inout Mesh, onLoop: [Bool], level: Double, thickness: Double, bvh: TriangleBVH)
        throws(SolidError)
    {
        let floor = Float(Constants.bedMargin * thickness)
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        for v in 0..<back.vertexCount {
            if onLoop[v] {
                guard back.positions[v].z == 0 else { throw .backNotClosed(depth: 0) }
                continue
            }
            let q = SIMD3<Double>(back.positions[v])
            if let c = bvh.closestPoint(to: q, stack: &stack, within: level) {
                let d = norm3(q - c)
                if d > 0 && d < level { back.positions[v] = SIMD3<Float>(c + (level / d) * (q - c)) }
            }
            back.positions[v].z = max(back.positions[v].z, floor)
        }
    }

    /// The share of the back's area (triangles after the front's) nearer the front than `wall`:
    /// each back triangle measured at its centroid and half way to its corners, a quarter of its
    /// area each.
    static func thinShare(_ solid: Mesh, front: Mesh, wall: Double, bvh: TriangleBVH) throws(SolidError) -> Double {
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var thin = 0.0, total = 0.0
        for t in front.triangleCount..<solid.triangleCount {
            if t & 1023 == 0 { try SolidError.checkCancelled() }
            let (i, j, k) = solid.triangle(t)
            let a = SIMD3<Double>(solid.positions[Int(i)]), b = SIMD3<Double>(solid.positions[Int(j)])
            let c = SIMD3<Double>(solid.positions[Int(k)])
            guard a.z > 0 || b.z > 0 || c.z > 0 else { continue }  // the ring
            let area = 0.5 * norm3(cross3(b - a, c - a))
            let g: SIMD3<Double> = (a + b + c) / 3
            total += area
            // Nearer than the wall or not: the search looks no farther than the wall.
            for q in [g, 0.5 * (g + a), 0.5 * (g + b), 0.5 * (g + c)]
            where bvh.nearest(to: q, stack: &stack, bound: wall * wall).distanceSquared < wall * wall {
                thin += area / 4
            }
        }
        return total > 0 ? thin / total : 0
    }
}
