#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A shell whose wall is as thick as asked everywhere: its back is the level set of the distance to
/// the front, so where the face folds more tightly than the thickness (a nose wing around its
/// nostril, the corner of a mouth) the part is solid instead of two back sheets meeting.
///
/// Recipe (front in printing position: rim on the bed z = 0, the face looking +z):
/// 1. **Field** on a grid of spacing ``Constants/spacing`` × thickness whose first layer is the
///    bed: a point is inside the part's hull when the front, crossed upwards from it, winds around
///    it (vertical rays per grid column, the crossings sorted once). Inside, the field is the
///    distance to the front (``TriangleBVH``) minus a margin × thickness; outside it is negative.
///    Going down a column the distance falls by at most one spacing per layer, so far inside it
///    is bounded, not measured.
/// 2. **Opening**: the hollow keeps only what a ball reaches without touching the wall, so slots
///    narrower than the ball (between a nostril's tube and its wing) fill up.
/// 3. **Back**: the zero set by marching tetrahedra on grid points ``Constants/extraction``
///    thicknesses apart (every other point: the back is decimated far below that resolution
///    anyway), each cell cut into the six tetrahedra around its main diagonal, so neighbouring
///    cells agree and the surface is closed and manifold with no case table ambiguity; facing
///    the hollow. Closed pieces (pockets sealed inside a thick nose)
///    are dropped: the part is solid there. Then decimated (quadric collapses, every k-th vertex
///    of its loops on the bed locked) to at most the front's vertex count.
/// 4. **Ring**: the bed between the rim and the back's loops on it, triangulated by ear clipping
///    with the loops bridged to the rim, facing −z.
/// 5. **Checks**: where the back crosses the front it is pushed off; what still crosses is
///    refused. Margins and balls are tried in turn (see ``shell(_:rim:thickness:backVertices:)``)
///    until the back keeps clear of the front.
///
/// Returns nil (the caller moves the cut forward, then refuses) when the grid would be too large,
/// a step cannot be done cleanly, or the result is not a closed, clean solid.
enum LevelSetShell {
    enum Constants {
        /// Grid spacing, in thicknesses.
        static let spacing = 0.5
        /// Distances of the back from the front tried, in thicknesses: a little over one, so that
        /// the back's flat triangles between level-set points stay at least the thickness away
        /// where the back is curved; more where a coarse back cuts corners.
        static let margins = [1.04, 1.2, 1.4, 1.7]
        /// Share of the back's area allowed within 0.9 thickness of the front before a larger
        /// margin is tried.
        static let thinShare = 0.004
        /// Largest grid, in points (about 50 MB of distances, 50 MB per field tried); a larger
        /// part gets a coarser spacing.
        static let maximumGridPoints = 12_000_000
        /// Spacing the back is extracted at, in thicknesses, when the grid is finer (a whole
        /// multiple of the grid's spacing): the field and the opening are computed at the grid's.
        static let extraction = 1.0
        /// Coarsest grid spacing, in thicknesses: a shell that needs a coarser grid is refused.
        static let coarsestSpacing = 1.0
        /// Down to this fraction of the marching-tetrahedra vertices the back is always decimated
        /// (marching tetrahedra leave slivers; the collapses' shape term removes them).
        static let decimation = 0.35
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

    /// Front + level-set back + ring on the bed; the back has at most `backVertices` vertices.
    /// Tried in turn until the back keeps at most ``Constants/thinShare`` of its area within
    /// 0.9 thickness of the front, else the one that comes closest: the level set
    /// ``Constants/margins`` thicknesses behind the front, the hollow opened by a ball of
    /// ``Constants/opening`` thickness; then, for a coarse back (a back decimated hard cuts
    /// corners behind tight curves and crosses itself in narrow parts of the hollow), the larger
    /// margins again with the ball as wide as half the back's edges.
    static func shell(_ front: Mesh, rim: [UInt32], thickness: Double, backVertices: Int) -> Mesh? {
        guard thickness > 0, front.triangleCount > 0, rim.count >= 3 else { return nil }
        let bvh = TriangleBVH(front)
        var frontArea = 0.0
        for t in 0..<front.triangleCount {
            let (i, j, k) = front.triangle(t)
            let a = SIMD3<Double>(front.positions[Int(i)]), b = SIMD3<Double>(front.positions[Int(j)])
            frontArea += 0.5 * norm3(cross3(b - a, SIMD3<Double>(front.positions[Int(k)]) - a))
        }
        let edge = (1.155 * frontArea / Double(max(backVertices, 1))).squareRoot()
        let small = Constants.opening * thickness, wide = Constants.coarseOpening * edge
        var tries = Constants.margins.map { ($0, small) }
        if wide > 1.1 * small { tries += Constants.margins.dropFirst().map { ($0, wide) } }
        // The margin a back this coarse usually needs first (its flat triangles cut corners by
        // about their edge length past one thickness), then the others by nearness to it: most
        // parts need one try.
        let likely = min(Constants.margins.max()!, 1.04 + 0.8 * max(0, edge / thickness - 1))
        tries = tries.enumerated().sorted { a, b in
            let da = abs(a.element.0 - likely), db = abs(b.element.0 - likely)
            return da != db ? da < db : a.offset < b.offset
        }.map(\.element)
        // The distance to the front, measured once for every try (out to the largest margin).
        guard
            let grid = DistanceGrid(front, thickness: thickness, level: Constants.margins.max()! * thickness, bvh: bvh)
        else { return nil }
        var best: (solid: Mesh, share: Double)? = nil
        for (margin, opening) in tries {
            if Cancellation.requested { return nil }  // the caller throws
            guard
                let solid = shell(
                    front, rim: rim, thickness: thickness, margin: margin, opening: opening,
                    backVertices: backVertices, grid: grid, bvh: bvh)
            else { continue }
            let share = thinShare(solid, front: front, wall: 0.9 * thickness, bvh: bvh)
            if best == nil || share < best!.share { best = (solid, share) }
            if share <= Constants.thinShare { break }
        }
        return best?.solid
    }

    /// The share of the back's area (triangles after the front's) nearer the front than `wall`:
    /// each back triangle measured at its centroid and half way to its corners, a quarter of its
    /// area each.
    static func thinShare(_ solid: Mesh, front: Mesh, wall: Double, bvh: TriangleBVH) -> Double {
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var thin = 0.0, total = 0.0
        for t in front.triangleCount..<solid.triangleCount {
            if t & 1023 == 0 && Cancellation.requested { return 1 }  // the caller throws
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

    static func shell(
        _ front: Mesh, rim: [UInt32], thickness: Double, margin: Double, opening: Double, backVertices: Int,
        grid: DistanceGrid, bvh: TriangleBVH
    ) -> Mesh? {
        // Extracted at one thickness's spacing (every other point of the finest grid): the back
        // is decimated far below that anyway, and a quarter of the vertices decimate 4x faster.
        let stride = max(1, Int((Constants.extraction * thickness / grid.h * (1 + 1e-9)).rounded(.down)))
        guard var back = backSurface(grid, level: margin * thickness, opening: opening, stride: stride)
        else { return nil }
        // Decimated with its loops on the bed kept in shape: every k-th loop vertex stays, k as
        // small as the budget allows (the loops take at most a third of it).
        let budget = min(backVertices, Int(Double(back.vertexCount) * Constants.decimation))
        if back.vertexCount > budget {
            let loops = BoundaryLoops(
                back, adjacency: Adjacency(triangles: back.triangles, vertexCount: back.vertexCount))
            let loopVertices = loops.loops.reduce(0) { $0 + $1.count }
            let every = max(1, Int((Double(3 * loopVertices) / Double(max(budget, 1))).rounded(.up)))
            var keep = [Bool](repeating: false, count: back.vertexCount)
            for loop in loops.loops {
                for (k, v) in loop.enumerated() where k % every == 0 { keep[Int(v)] = true }
            }
            back = Decimation.simplify(back, toward: budget, keeping: keep)
            guard back.vertexCount <= backVertices else { return nil }
        }
        let n = front.vertexCount
        let adjacency = Adjacency(triangles: back.triangles, vertexCount: back.vertexCount)
        let loops = BoundaryLoops(back, adjacency: adjacency)
        var onLoop = [Bool](repeating: false, count: back.vertexCount)
        for loop in loops.loops { for v in loop { onLoop[Int(v)] = true } }
        // A vertex the extraction's straight interpolation or the collapses left nearer the front
        // than the level moves straight away from its nearest front point onto the level: the
        // wall only thickens. Off the bed, above the floor.
        if Cancellation.requested { return nil }
        let floor = Float(Constants.bedMargin * thickness)
        let level = margin * thickness
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        for v in 0..<back.vertexCount {
            if onLoop[v] {
                guard back.positions[v].z == 0 else { return nil }
                continue
            }
            let q = SIMD3<Double>(back.positions[v])
            if let c = bvh.closestPoint(to: q, stack: &stack, within: level) {
                let d = norm3(q - c)
                if d > 0 && d < level { back.positions[v] = SIMD3<Float>(c + (level / d) * (q - c)) }
            }
            back.positions[v].z = max(back.positions[v].z, floor)
        }
        // Ring: the bed under the wall. Its pieces: the rim's inside with every outermost loop of
        // the back as a hole, and each loop nested once more (tissue reaching the bed inside the
        // hollow) with the loops directly inside it as holes. Outlines counter-clockwise, holes
        // clockwise, bridged in.
        var points = rim.map { SIMD2<Double>(Double(front.positions[Int($0)].x), Double(front.positions[Int($0)].y)) }
        var ids = rim
        var polygons: [[Int32]] = []
        for loop in loops.loops {
            var polygon: [Int32] = []
            for v in loop {
                polygon.append(Int32(points.count))
                points.append(SIMD2(Double(back.positions[Int(v)].x), Double(back.positions[Int(v)].y)))
                ids.append(UInt32(n) + v)
            }
            polygons.append(polygon)
        }
        let rimOutline = (0..<Int32(rim.count)).map { $0 }
        guard area(rimOutline, points) > 0 else { return nil }
        // Which loops hold which: loop i inside loop j when a corner of i is.
        let count = polygons.count
        var container = [Int](repeating: -1, count: count)  // innermost loop around it, −1: the rim
        var depth = [Int](repeating: 0, count: count)
        for i in 0..<count {
            var smallest = Double.infinity
            for j in 0..<count where j != i && contains(polygons[j], points[Int(polygons[i][0])], points) {
                depth[i] += 1
                let a = abs(area(polygons[j], points))
                if a < smallest {
                    smallest = a
                    container[i] = j
                }
            }
        }
        var pieces: [(outline: [Int32], holes: [[Int32]])] = [(rimOutline, [])]
        var pieceOf = [Int](repeating: -1, count: count)
        for i in 0..<count where depth[i] % 2 == 1 {
            var outline = polygons[i]
            if area(outline, points) < 0 { outline.reverse() }
            pieceOf[i] = pieces.count
            pieces.append((outline, []))
        }
        for i in 0..<count where depth[i] % 2 == 0 {
            var hole = polygons[i]
            if area(hole, points) > 0 { hole.reverse() }
            let piece = container[i] < 0 ? 0 : pieceOf[container[i]]
            guard piece >= 0 else { return nil }
            pieces[piece].holes.append(hole)
        }
        var ring: [SIMD3<Int32>] = []
        for piece in pieces {
            var outline = piece.outline
            guard bridge(&outline, holes: piece.holes, points: points),
                let triangles = EarClipping.triangulate(points, polygon: outline)
            else { return nil }
            ring += triangles
        }
        // Assemble: front, back (facing the hollow), ring (facing the bed).
        var triangles = front.triangles
        triangles.reserveCapacity(front.triangles.count + back.triangles.count + 3 * ring.count)
        for i in back.triangles { triangles.append(UInt32(n) + i) }
        for t in ring { triangles += [ids[Int(t.x)], ids[Int(t.z)], ids[Int(t.y)]] }
        let uvs = front.uvs.map { $0 + [SIMD2<Float>](repeating: .zero, count: back.vertexCount) }
        var solid = Mesh(uncheckedPositions: front.positions + back.positions, triangles: triangles, uvs: uvs)
        if Cancellation.requested { return nil }
        let check = MeshCheck(solid)
        guard check.isWatertight, check.isClean else { return nil }
        // Where the back crosses the front, it is pushed off; what still crosses is refused.
        var added = [Bool](repeating: false, count: solid.triangleCount)
        for t in front.triangleCount..<solid.triangleCount { added[t] = true }
        let before = SelfIntersection.pairs(solid, only: added).count
        if before > 0 {
            pushOut(
                &solid, front: front, backTriangles: front.triangleCount..<(front.triangleCount + back.triangleCount),
                fixed: onLoop, thickness: thickness, bvh: bvh)
            guard SelfIntersection.pairs(solid, only: added, limit: 1).isEmpty else { return nil }
        }
        return solid
    }

    /// Where a back triangle crosses the front (a coarse back's flat triangle over a bump of the
    /// front, as behind a mouth's corner), its vertices move away from their nearest front points
    /// by ``Constants/pushStep`` thickness, for at most ``Constants/pushRounds`` rounds, each
    /// looking only at the triangles around what the last one moved: the wall only thickens.
    static func pushOut(
        _ solid: inout Mesh, front: Mesh, backTriangles: Range<Int>, fixed: [Bool], thickness: Double,
        bvh: TriangleBVH
    ) {
        let n = front.vertexCount
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var flags = [Bool](repeating: false, count: solid.triangleCount)
        for t in backTriangles { flags[t] = true }
        for _ in 0..<Constants.pushRounds {
            var push = [SIMD3<Double>](repeating: .zero, count: solid.vertexCount - n)
            var amount = [Double](repeating: 0, count: push.count)
            // Crossing: a quarter thickness away from the front at each vertex.
            for pair in SelfIntersection.pairs(solid, only: flags) {
                let (a, b) = (Int(min(pair.x, pair.y)), Int(max(pair.x, pair.y)))
                guard a < front.triangleCount, backTriangles.contains(b) else { continue }
                for c in 0..<3 {
                    let v = Int(solid.triangles[3 * b + c]) - n
                    guard v >= 0, !fixed[v] else { continue }
                    let q = SIMD3<Double>(solid.positions[n + v])
                    let d = q - bvh.closestPoint(to: q, stack: &stack)
                    let l = norm3(d)
                    let by = Constants.pushStep * thickness
                    if l > 0 && by > amount[v] {
                        amount[v] = by
                        push[v] = (by / l) * d
                    }
                }
            }
            var moved = [Bool](repeating: false, count: push.count)
            var any = false
            for v in push.indices where amount[v] > 0 {
                var q = SIMD3<Double>(solid.positions[n + v]) + push[v]
                q.z = max(q.z, Constants.bedMargin * thickness)
                solid.positions[n + v] = SIMD3<Float>(q)
                moved[v] = true
                any = true
            }
            guard any else { return }
            for t in backTriangles {
                flags[t] = false
                for c in 0..<3 where moved[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
            // A moved vertex's neighbours' triangles tilt as well.
            var near = moved
            for t in backTriangles where flags[t] {
                for c in 0..<3 { near[Int(solid.triangles[3 * t + c]) - n] = true }
            }
            for t in backTriangles {
                for c in 0..<3 where near[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
        }
    }

    /// Whether `p` lies inside the polygon (even–odd rule).
    static func contains(_ polygon: [Int32], _ p: SIMD2<Double>, _ points: [SIMD2<Double>]) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = points[Int(polygon[i])], b = points[Int(polygon[j])]
            if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    // MARK: Field and marching tetrahedra

    /// The distance to the front on a grid whose first layer is the bed, inside the part's hull
    /// (outside: 0, the wall); measured out to `level` and a few spacings, beyond that bounded
    /// from below (so any level up to `level` has the right sign everywhere).
    struct DistanceGrid {
        var distance: [Float]
        var nx: Int, ny: Int, nz: Int
        var x0: Double, y0: Double, h: Double
        /// Whether the grid point lies inside the hull (the front winds around it).
        var inside: [Bool]

        /// The grid spacing for `front` and `thickness`: ``Constants/spacing`` thicknesses, coarser
        /// (up to ``Constants/coarsestSpacing`` thicknesses) when the grid would exceed
        /// ``Constants/maximumGridPoints``; nil when even that would.
        static func spacing(_ front: Mesh, thickness: Double) -> Double? {
            let (lo, hi) = front.bounds
            let volume = Double(hi.x - lo.x) * Double(hi.y - lo.y) * Double(hi.z)
            let budget = Double(Constants.maximumGridPoints) * 0.8
            let h = max(Constants.spacing * thickness, cbrt(max(volume, 0) / budget))
            return h <= Constants.coarsestSpacing * thickness ? h : nil
        }

        /// nil when nothing lies inside. The spacing is ``Constants/spacing`` thicknesses, or
        /// coarser when that grid would exceed ``Constants/maximumGridPoints``.
        init?(_ front: Mesh, thickness: Double, level: Double, bvh: TriangleBVH) {
            let (lo, hi) = front.bounds
            guard let h = DistanceGrid.spacing(front, thickness: thickness) else { return nil }
            // Columns off the mesh's Float grid (an irrational fraction of a spacing), so a
            // vertical ray practically never meets an edge; the first layer is the bed.
            let x0 = Double(lo.x) - 1.318_309_886 * h, y0 = Double(lo.y) - 1.318_309_886 * h
            let nx = Int(((Double(hi.x) - x0) / h).rounded(.up)) + 2
            let ny = Int(((Double(hi.y) - y0) / h).rounded(.up)) + 2
            let nz = Int((Double(hi.z) / h).rounded(.up)) + 2
            guard nx > 2, ny > 2, nz > 2, nx * ny * nz <= Constants.maximumGridPoints else { return nil }
            (self.nx, self.ny, self.nz, self.x0, self.y0, self.h) = (nx, ny, nz, x0, y0, h)
            let columnCount = nx * ny
            // 1. Upward crossings of every column by the front: (column, z, ±1 = facing up/down).
            var hits: [(column: Int32, z: Double, sign: Int8)] = []
            hits.reserveCapacity(2 * columnCount)
            for t in 0..<front.triangleCount {
                let (i0, i1, i2) = front.triangle(t)
                let a = SIMD3<Double>(front.positions[Int(i0)])
                let b = SIMD3<Double>(front.positions[Int(i1)])
                let c = SIMD3<Double>(front.positions[Int(i2)])
                let area2 = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
                guard area2 != 0 else { continue }  // vertical: no column crosses it
                let iLo = max(0, Int(((min(a.x, b.x, c.x) - x0) / h).rounded(.up)))
                let iHi = min(nx - 1, Int(((max(a.x, b.x, c.x) - x0) / h).rounded(.down)))
                let jLo = max(0, Int(((min(a.y, b.y, c.y) - y0) / h).rounded(.up)))
                let jHi = min(ny - 1, Int(((max(a.y, b.y, c.y) - y0) / h).rounded(.down)))
                guard iLo <= iHi, jLo <= jHi else { continue }
                let s: Double = area2 > 0 ? 1 : -1
                for j in jLo...jHi {
                    let y = y0 + Double(j) * h
                    for i in iLo...iHi {
                        let x = x0 + Double(i) * h
                        let wa = ((b.x - x) * (c.y - y) - (b.y - y) * (c.x - x)) * s
                        let wb = ((c.x - x) * (a.y - y) - (c.y - y) * (a.x - x)) * s
                        let wc = ((a.x - x) * (b.y - y) - (a.y - y) * (b.x - x)) * s
                        guard wa >= 0, wb >= 0, wc >= 0 else { continue }
                        let z = (wa * a.z + wb * b.z + wc * c.z) / (wa + wb + wc)
                        hits.append((Int32(j * nx + i), z, Int8(s)))
                    }
                }
            }
            guard !hits.isEmpty else { return nil }
            guard !Cancellation.requested else { return nil }
            hits.sort { $0.column != $1.column ? $0.column < $1.column : $0.z > $1.z }
            // 2. The distance, layer-major (index (k · ny + j) · nx + i); the columns in rounds of
            // a 32nd of the crossings, each round in two halves on two threads, each writing
            // only its own columns. Between rounds the calling thread asks whether to stop (the
            // other thread has no task to ask).
            var distance = [Float](repeating: 0, count: nx * ny * nz)
            var inside = [Bool](repeating: false, count: nx * ny * nz)
            let count = hits.count
            func columnStart(_ at: Int) -> Int {
                var b = at
                while b > 0 && b < count && hits[b].column == hits[b - 1].column { b += 1 }
                return b
            }
            var stopped = false
            distance.withUnsafeMutableBufferPointer { d in
                inside.withUnsafeMutableBufferPointer { inside in
                    let grid = ColumnFill(
                        hits: hits, bvh: bvh, distance: DisjointSlots(base: d), inside: DisjointSlots(base: inside),
                        nx: nx, ny: ny, nz: nz, x0: x0, y0: y0, h: h, level: level)
                    var start = 0
                    for round in 1...Constants.fieldRounds where start < count {
                        let end = columnStart(count * round / Constants.fieldRounds)
                        let (lo, mid, hi) = (start, columnStart((start + end) / 2), end)
                        Parallel.both { side in grid.fill(side == 0 ? lo..<mid : mid..<hi) }
                        start = end
                        if Cancellation.requested {
                            stopped = true
                            break
                        }
                    }
                }
            }
            if stopped { return nil }
            self.distance = distance
            self.inside = inside
        }
    }

    /// The distances of a run of columns of a ``DistanceGrid`` (their crossings `hits[range]`,
    /// sorted by column, then downwards): down each column from the top, inside the hull only,
    /// measured out to the level and a few spacings, beyond that bounded from below.
    struct ColumnFill: Sendable {
        let hits: [(column: Int32, z: Double, sign: Int8)]
        let bvh: TriangleBVH
        let distance: DisjointSlots<Float>, inside: DisjointSlots<Bool>
        let nx: Int, ny: Int, nz: Int
        let x0: Double, y0: Double, h: Double, level: Double

        func fill(_ range: Range<Int>) {
            var stack = TriangleBVH.makeStack(depth: bvh.depth)
            let reach = level + 6 * h  // measured out to here; beyond, bounded
            let diagonal = 3.0.squareRoot() * h
            var start = range.lowerBound
            while start < range.upperBound {
                let column = Int(hits[start].column)
                var end = start
                while end < range.upperBound && Int(hits[end].column) == column { end += 1 }
                let i = column % nx, j = column / nx
                let x = x0 + Double(i) * h, y = y0 + Double(j) * h
                var winding = 0
                var next = start
                var lowerBound = 0.0  // of the distance at the layer above
                for k in stride(from: nz - 1, through: 0, by: -1) {
                    let z = Double(k) * h
                    while next < end && hits[next].z > z {
                        winding += Int(hits[next].sign)
                        next += 1
                    }
                    lowerBound -= h
                    guard winding > 0 else {
                        lowerBound = 0
                        continue
                    }
                    let d: Double
                    if lowerBound > level + diagonal {
                        d = lowerBound
                    } else {
                        let found = bvh.nearest(to: SIMD3(x, y, z), stack: &stack, bound: reach * reach)
                        d = found.distanceSquared.squareRoot()
                        lowerBound = d
                    }
                    distance.base[(k * ny + j) * nx + i] = Float(d)
                    inside.base[(k * ny + j) * nx + i] = true
                }
                start = end
            }
        }
    }

    /// The level set `level` behind the front's back surface, facing the hollow, the hollow
    /// opened by a ball of `opening`, closed pieces dropped, extracted on every `step`-th grid
    /// point along each axis (the bed layer included); nil when nothing lies inside.
    static func backSurface(_ grid: DistanceGrid, level: Double, opening: Double, stride step: Int = 1) -> Mesh? {
        var (nx, ny, nz, h) = (grid.nx, grid.ny, grid.nz, grid.h)
        let (x0, y0) = (grid.x0, grid.y0)
        var field = [Float](repeating: Float(-level), count: nx * ny * nz)
        var anyHollow = false
        let tiny = Float(-1e-6 * h)
        grid.distance.withUnsafeBufferPointer { d in
            grid.inside.withUnsafeBufferPointer { inside in
                field.withUnsafeMutableBufferPointer { f in
                    for index in 0..<f.count where inside[index] {
                        let v = d[index] - Float(level)
                        // Never exactly zero: a cut point on a grid point would give a flat triangle.
                        f[index] = v == 0 ? tiny : v
                        if v > 0 { anyHollow = true }
                    }
                }
            }
        }
        guard anyHollow, !Cancellation.requested else { return nil }
        opened(&field, nx: nx, ny: ny, nz: nz, h: h, radius: opening)
        if Cancellation.requested { return nil }
        if step > 1 {
            let mx = (nx - 1) / step + 1, my = (ny - 1) / step + 1, mz = (nz - 1) / step + 1
            let fine = field
            field = [Float](repeating: 0, count: mx * my * mz)
            fine.withUnsafeBufferPointer { src in
                field.withUnsafeMutableBufferPointer { out in
                    for k in 0..<mz {
                        for j in 0..<my {
                            let from = (k * step * ny + j * step) * nx, to = (k * my + j) * mx
                            for i in 0..<mx { out[to + i] = src[from + i * step] }
                        }
                    }
                }
            }
            (nx, ny, nz, h) = (mx, my, mz, h * Double(step))
        }
        // 3. Marching tetrahedra.
        var extractor = Extractor(
            field: field, nx: nx, ny: ny, origin: SIMD3(x0, y0, 0), spacing: h)
        let corner = (0..<8).map { c in (c & 1) + ((c >> 1) & 1) * nx + ((c >> 2) & 1) * nx * ny }
        let tets = kuhnTetrahedra().map { t in SIMD4(corner[t.0], corner[t.1], corner[t.2], corner[t.3]) }
        var stopped = false
        field.withUnsafeBufferPointer { f in
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
        }
        let (positions, triangles) = (extractor.positions, extractor.triangles)
        guard !stopped, !triangles.isEmpty else { return nil }
        let surface = Mesh(uncheckedPositions: positions, triangles: triangles)
        return withoutClosedPieces(surface)
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

        mutating func add(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
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
        let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
        let piece = PlaneTrim.pieces(mesh)
        var open = [Bool](repeating: false, count: mesh.vertexCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            for (u, v) in [(a, b), (b, c), (c, a)] where BoundaryLoops.isBoundaryEdge(adjacency, u, v) {
                open[piece[Int(u)]] = true
            }
        }
        var kept: [UInt32] = []
        kept.reserveCapacity(mesh.triangles.count)
        for t in 0..<mesh.triangleCount where open[piece[Int(mesh.triangles[3 * t])]] {
            kept += [mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]]
        }
        var out = mesh
        out.triangles = kept
        return Decimation.referencedOnly(out)
    }

    // MARK: Ring

    /// Twice the signed area of the polygon `polygon` (indices into `points`).
    static func area(_ polygon: [Int32], _ points: [SIMD2<Double>]) -> Double {
        var s = 0.0
        for i in polygon.indices {
            let a = points[Int(polygon[i])], b = points[Int(polygon[(i + 1) % polygon.count])]
            s += a.x * b.y - a.y * b.x
        }
        return s
    }

    /// Joins each hole (clockwise) to `outline` (counter-clockwise) by a bridge from one of its
    /// corners to the nearest corner of the outline so far that it sees without crossing an edge:
    /// the outline then visits the hole and comes back along the bridge. False when a hole finds
    /// no such corner.
    static func bridge(_ outline: inout [Int32], holes: [[Int32]], points: [SIMD2<Double>]) -> Bool {
        // Holes in order of their rightmost corner, rightmost first (each bridge then lies right
        // of the holes still to come, and those see the outline through it).
        let order = holes.indices.sorted { a, b in
            let xa = holes[a].map { points[Int($0)].x }.max()!, xb = holes[b].map { points[Int($0)].x }.max()!
            return xa != xb ? xa > xb : a < b
        }
        var pending = Set(holes.indices)
        for hIndex in order {
            pending.remove(hIndex)
            let hole = holes[hIndex]
            // Every edge that a bridge must not cross: the outline so far and the holes to come.
            var edges: [(Int32, Int32)] = []
            for i in outline.indices { edges.append((outline[i], outline[(i + 1) % outline.count])) }
            for other in pending {
                let o = holes[other]
                for i in o.indices { edges.append((o[i], o[(i + 1) % o.count])) }
            }
            for i in hole.indices { edges.append((hole[i], hole[(i + 1) % hole.count])) }
            // Outline corners visited once (a bridge's ends are visited twice).
            var seen: [Int32: Int] = [:]
            for v in outline { seen[v, default: 0] += 1 }
            var candidates: [(distance: Double, slot: Int, corner: Int)] = []
            // From the hole's rightmost corner and a few more, to the nearest outline corners.
            let stride = max(1, hole.count / 8)
            var corners = Array(Swift.stride(from: 0, to: hole.count, by: stride))
            let rightmost = hole.indices.max { points[Int(hole[$0])].x < points[Int(hole[$1])].x }!
            corners.insert(rightmost, at: 0)
            for hc in corners {
                let hp = points[Int(hole[hc])]
                for (slot, v) in outline.enumerated() where seen[v] == 1 {
                    let d = points[Int(v)] - hp
                    candidates.append(((d * d).sum(), slot, hc))
                }
            }
            candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.slot < $1.slot }
            var joined = false
            for candidate in candidates.prefix(64) {
                let a = outline[candidate.slot], b = hole[candidate.corner]
                guard sees(a, b, edges: edges, points: points, outline: outline, slot: candidate.slot) else { continue }
                var loop: [Int32] = []
                for k in 0...hole.count { loop.append(hole[(candidate.corner + k) % hole.count]) }
                outline.insert(contentsOf: loop + [a], at: candidate.slot + 1)
                joined = true
                break
            }
            guard joined else { return false }
        }
        return true
    }

    /// Whether the segment from outline corner `a` (at `slot`) to hole corner `b` crosses or
    /// touches no edge other than at its ends, and leaves `a` into the polygon (inside the corner
    /// the outline makes there).
    static func sees(
        _ a: Int32, _ b: Int32, edges: [(Int32, Int32)], points: [SIMD2<Double>], outline: [Int32], slot: Int
    ) -> Bool {
        let pa = points[Int(a)], pb = points[Int(b)]
        let prev = points[Int(outline[(slot + outline.count - 1) % outline.count])]
        let next = points[Int(outline[(slot + 1) % outline.count])]
        // Inside the corner prev → a → next (counter-clockwise polygon: the interior is on the left).
        let convex = EarClipping.orient(prev, pa, next) > 0
        let leftOfIn = EarClipping.orient(prev, pa, pb) > 0, leftOfOut = EarClipping.orient(pa, next, pb) > 0
        guard convex ? (leftOfIn && leftOfOut) : (leftOfIn || leftOfOut) else { return false }
        for (u, v) in edges {
            if u == a || v == a || u == b || v == b { continue }
            if segmentsTouch(pa, pb, points[Int(u)], points[Int(v)]) { return false }
        }
        return true
    }

    static func segmentsTouch(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>, _ s: SIMD2<Double>) -> Bool {
        let d1 = EarClipping.orient(p, q, r), d2 = EarClipping.orient(p, q, s)
        let d3 = EarClipping.orient(r, s, p), d4 = EarClipping.orient(r, s, q)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        func on(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Bool {
            min(a.x, b.x) <= c.x && c.x <= max(a.x, b.x) && min(a.y, b.y) <= c.y && c.y <= max(a.y, b.y)
        }
        return (d1 == 0 && on(p, q, r)) || (d2 == 0 && on(p, q, s)) || (d3 == 0 && on(r, s, p))
            || (d4 == 0 && on(r, s, q))
    }
}
