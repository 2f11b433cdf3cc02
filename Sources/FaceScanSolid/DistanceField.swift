import FaceScanCore
import FaceScanMeasure

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A shell's distance field: the distance to the front on a grid whose first layer is the bed,
/// measured inside the part's hull only.
///
/// A point is inside the hull when the front, crossed upwards from it, winds around it (vertical
/// rays per grid column, the crossings sorted once). Inside, the field is the distance to the
/// front (``TriangleBVH``), measured out to the deepest level asked and a few spacings; going down
/// a column the distance falls by at most one spacing per layer, so farther inside it is bounded,
/// not measured. Cost: at most `LevelSetShell/Constants/maximumGridPoints` points (a larger part
/// gets a coarser spacing, down to one thickness, then is refused), one nearest-point query per
/// point near the front, on two threads.
extension LevelSetShell {
    /// The distance to the front on a grid whose first layer is the bed, inside the part's hull
    /// (outside: 0, the wall, or on a grid coarser than the wall minus the distance near the
    /// front); measured out to `level` and a few spacings, beyond that bounded from below (so any
    /// level up to `level` has the right sign everywhere).
    struct DistanceGrid {
        var distance: [Float]
        var nx: Int, ny: Int, nz: Int
        var x0: Double, y0: Double, h: Double
        /// Whether the grid point lies inside the hull (the front winds around it).
        var inside: [Bool]

        /// The grid spacing for `front` and `thickness`: `Constants/spacing` thicknesses, or
        /// `Constants/edgeSpacing` of `edge` (the back's expected edge length) when that is
        /// coarser, up to `Constants/coarsestSpacing` thicknesses — a back of few vertices over a
        /// large part needs no grid finer than its own edges, so the grid's points follow the
        /// vertex count asked, not the part's size alone; coarser (up to
        /// `Constants/coarsestSpacing` thicknesses) when the grid would
        /// exceed `Constants/maximumGridPoints`; nil when even that would.
        static func spacing(_ front: Mesh, thickness: Double, edge: Double = 0) -> Double? {
            let (lo, hi) = front.bounds
            let volume = Double(hi.x - lo.x) * Double(hi.y - lo.y) * Double(hi.z)
            let budget = Double(Constants.maximumGridPoints) * 0.8
            let bySize = cbrt(max(volume, 0) / budget)
            guard bySize <= Constants.coarsestSpacing * thickness else { return nil }
            // The back's edges coarsen the grid past a thickness too (the points just outside the
            // front then get their signed distance, so the level set is placed within a cell),
            // but never past an eighth of the part's longest side.
            let longest = Double(max(hi.x - lo.x, hi.y - lo.y, hi.z))
            let byEdge = min(Constants.edgeSpacing * edge, max(Constants.coarsestSpacing * thickness, longest / 8))
            return max(Constants.spacing * thickness, byEdge, bySize)
        }

        /// How far outside the front the distance is measured (stored negative): on a grid coarser
        /// than `Constants/coarsestSpacing` thicknesses, as far as a point joined by an
        /// extraction's edge (`stride` spacings along each axis, see
        /// `LevelSetShell/extractionStride(h:area:thickness:share:)`) to a point beyond the
        /// nearest level; 0 (none: outside stays 0) on a finer grid, whose extraction keeps the
        /// samples' parts as they were.
        static func outsideReach(h: Double, thickness: Double, stride: Int) -> Double {
            guard h > Constants.coarsestSpacing * thickness * (1 + 1e-9) else { return 0 }
            return max(0, 3.0.squareRoot() * Double(stride) * h - Constants.margins.min()! * thickness)
        }

        /// Where the front crosses every grid column: (column, z, +1 facing up / −1 down).
        static func crossings(_ front: Mesh, x0: Double, y0: Double, h: Double, nx: Int, ny: Int)
            -> [(column: Int32, z: Double, sign: Int8)]
        {
            let columnCount = nx * ny
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
            return hits
        }

        /// The spacing is ``spacing(_:thickness:edge:)``'s for the back's expected `edge`; the back's
        /// `share` and the front's `area` give the extraction's stride, so how far outside the front
        /// distances are measured (``outsideReach(h:thickness:stride:)``). Throws `SolidError/gridTooLarge(size:thickness:points:)`
        /// (sizes in mesh units), `SolidError/backNotClosed(depth:)` when nothing lies inside
        /// (depth 0: the caller names it), or cancelled.
        init(
            _ front: Mesh, thickness: Double, level: Double, edge: Double = 0, share: Int = .max, area: Double = 0,
            bvh: TriangleBVH
        ) throws(SolidError) {
            let (lo, hi) = front.bounds
            guard let h = DistanceGrid.spacing(front, thickness: thickness, edge: edge) else {
                throw .gridTooLarge(
                    size: SIMD3<Double>(hi - lo), thickness: thickness, points: Constants.maximumGridPoints)
            }
            // Columns off the mesh's Float grid (an irrational fraction of a spacing), so a
            // vertical ray practically never meets an edge; the first layer is the bed.
            let x0 = Double(lo.x) - 1.318_309_886 * h, y0 = Double(lo.y) - 1.318_309_886 * h
            let nx = Int(((Double(hi.x) - x0) / h).rounded(.up)) + 2
            let ny = Int(((Double(hi.y) - y0) / h).rounded(.up)) + 2
            let nz = Int((Double(hi.z) / h).rounded(.up)) + 2
            guard nx * ny * nz <= Constants.maximumGridPoints else {
                throw .gridTooLarge(
                    size: SIMD3<Double>(hi - lo), thickness: thickness, points: Constants.maximumGridPoints)
            }
            guard nx > 2, ny > 2, nz > 2 else { throw .backNotClosed(depth: 0) }
            (self.nx, self.ny, self.nz, self.x0, self.y0, self.h) = (nx, ny, nz, x0, y0, h)
            var hits = DistanceGrid.crossings(front, x0: x0, y0: y0, h: h, nx: nx, ny: ny)
            guard !hits.isEmpty else { throw .backNotClosed(depth: 0) }
            try SolidError.checkCancelled()
            hits.sort { $0.column != $1.column ? $0.column < $1.column : $0.z > $1.z }
            // 2. The distance, layer-major (index (k · ny + j) · nx + i); the columns in rounds of
            // a 32nd of the crossings, each round in two halves on two threads, each writing
            // only its own columns. Between rounds the calling thread asks whether to stop (the
            // other thread has no task to ask).
            let distance = SharedSlots<Float>(repeating: 0, count: nx * ny * nz)
            let inside = SharedSlots<Bool>(repeating: false, count: nx * ny * nz)
            let count = hits.count
            func columnStart(_ at: Int) -> Int {
                var b = at
                while b > 0 && b < count && hits[b].column == hits[b - 1].column { b += 1 }
                return b
            }
            var stopped = false
            let stride = LevelSetShell.extractionStride(h: h, area: area, thickness: thickness, share: share)
            let grid = ColumnFill(
                hits: hits, bvh: bvh, distance: distance, inside: inside,
                nx: nx, ny: ny, nz: nz, x0: x0, y0: y0, h: h, level: level,
                outsideReach: DistanceGrid.outsideReach(h: h, thickness: thickness, stride: stride),
                outsideStride: stride)
            var start = 0
            // One second thread for all the rounds (joined when the field is done).
            let pair = Parallel.Pair()
            for round in 1...Constants.fieldRounds where start < count {
                let end = columnStart(count * round / Constants.fieldRounds)
                let (lo, mid, hi) = (start, columnStart((start + end) / 2), end)
                Parallel.both(on: pair) { side in grid.fill(side == 0 ? lo..<mid : mid..<hi) }
                start = end
                if Cancellation.requested {
                    stopped = true
                    break
                }
            }
            if !stopped && grid.outsideReach > 0 { grid.fillOutsideColumns() }
            if stopped { throw .cancelled }
            self.distance = distance.array
            self.inside = inside.array
        }
    }

    /// The distances of a run of columns of a ``DistanceGrid`` (their crossings `hits[range]`,
    /// sorted by column, then downwards): down each column from the top, inside the hull only,
    /// measured out to the level and a few spacings, beyond that bounded from below.
    struct ColumnFill: Sendable {
        let hits: [(column: Int32, z: Double, sign: Int8)]
        let bvh: TriangleBVH
        let distance: SharedSlots<Float>, inside: SharedSlots<Bool>
        let nx: Int, ny: Int, nz: Int
        let x0: Double, y0: Double, h: Double, level: Double
        /// See ``DistanceGrid/outsideReach(h:thickness:)``.
        let outsideReach: Double
        /// The extraction's step (in grid points): outside the front only the points it samples
        /// (every `outsideStride`-th along each axis) are measured, the others stay 0 — nothing but
        /// the extraction reads an outside distance (the opening fills only the hollow), so a
        /// coarse grid's outside band costs 1/stride³ of its points' nearest-point queries.
        let outsideStride: Int

        /// The columns without a crossing within ``outsideReach`` of one with a crossing: their
        /// points' distances, out to ``outsideReach`` (on the calling thread).
        func fillOutsideColumns() {
            var crossed = [Bool](repeating: false, count: nx * ny)
            for hit in hits { crossed[Int(hit.column)] = true }
            var stack = TriangleBVH.makeStack(depth: bvh.depth)
            for j in 0..<ny {
                for i in 0..<nx where !crossed[j * nx + i] && i % outsideStride == 0 && j % outsideStride == 0 {
                    var near = false
                    let w = max(1, Int((outsideReach / h).rounded(.up)))
                    for b in max(0, j - w)...min(ny - 1, j + w) {
                        for a in max(0, i - w)...min(nx - 1, i + w) where crossed[b * nx + a] { near = true }
                    }
                    guard near else { continue }
                    var bound = 0.0
                    for k in stride(from: nz - 1, through: 0, by: -1) {
                        outside(i, j, k, bound: &bound, stack: &stack)
                    }
                }
            }
        }

        /// The outside point (`i`, `j`, `k`): its distance stored negative when within
        /// ``outsideReach``; `bound`, a lower bound of the distance at the layer above (a column
        /// is walked downwards), skips points it shows too far.
        @inline(__always)
        func outside(_ i: Int, _ j: Int, _ k: Int, bound: inout Double, stack: inout [(node: Int32, distance: Double)])
        {
            bound -= h
            guard bound <= outsideReach, k % outsideStride == 0, i % outsideStride == 0, j % outsideStride == 0 else {
                return
            }
            let far = outsideReach + 3 * h
            let p = SIMD3(x0 + Double(i) * h, y0 + Double(j) * h, Double(k) * h)
            let d = bvh.nearest(to: p, stack: &stack, bound: far * far).distanceSquared.squareRoot()
            bound = d
            if d <= outsideReach { distance[(k * ny + j) * nx + i] = -Float(d) }
        }

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
                var outsideBound = 0.0  // the same outside the front
                for k in stride(from: nz - 1, through: 0, by: -1) {
                    let z = Double(k) * h
                    while next < end && hits[next].z > z {
                        winding += Int(hits[next].sign)
                        next += 1
                    }
                    lowerBound -= h
                    guard winding > 0 else {
                        lowerBound = 0
                        if outsideReach > 0 { outside(i, j, k, bound: &outsideBound, stack: &stack) }
                        continue
                    }
                    outsideBound = 0
                    let d: Double
                    if lowerBound > level + diagonal {
                        d = lowerBound
                    } else {
                        let found = bvh.nearest(to: SIMD3(x, y, z), stack: &stack, bound: reach * reach)
                        d = found.distanceSquared.squareRoot()
                        lowerBound = d
                    }
                    distance[(k * ny + j) * nx + i] = Float(d)
                    inside[(k * ny + j) * nx + i] = true
                }
                start = end
            }
        }
    }
}
