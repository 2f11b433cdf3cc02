import CSIMD
import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Neighbour weighting of the smoothing Laplacian.
public enum SmoothingWeights: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every neighbour counts the same (umbrella operator).
    case uniform
    /// Cotangent weights of the input surface (clamped at zero), which follow the surface's shape
    /// rather than its triangulation.
    case cotangent
}

/// Taubin λ|μ smoothing parameters.
package struct TaubinOptions: Sendable, Equatable {
    /// Passes; each is one shrinking step (λ) and one inflating step (μ).
    package var iterations = 2
    package var lambda = 0.5
    /// Negative, with |μ| slightly above λ so the pair passes low frequencies unchanged
    /// (pass-band k_PB = 1/λ + 1/μ ≈ 0.113).
    package var mu = -0.53
    package var weights = SmoothingWeights.uniform
    /// Per-vertex bound on how far a vertex may end up from where it started (mesh units), e.g.
    /// a few standard deviations of the estimated noise: smoothing then removes noise but cannot
    /// erode a feature (an ear, the nose tip) by more than that. nil: unbounded.
    package var displacementLimit: [Float]?
    /// Per-vertex height scale (mesh units) of a bilateral range weight: a neighbour whose offset
    /// along the vertex normal is h counts exp(−h²/2s²) as much, so detail standing well above the
    /// noise level (s ≈ a couple of standard errors) is not averaged away. The weights are those of
    /// the mesh the smoothing starts from, kept through every pass (the smoother is linear in the
    /// positions: carried directions cost no weight of their own). nil: plain weights.
    package var featureScale: [Float]?
    package init(iterations: Int = 2, weights: SmoothingWeights = .uniform) {
        self.iterations = iterations
        self.weights = weights
    }
}

/// Taubin's non-shrinking smoothing (G. Taubin, "A signal processing approach to fair surface
/// design", SIGGRAPH 1995).
///
/// Interior vertices move toward the weighted mean of their neighbours (by λ), then away from it
/// (by μ), along their normal only: tangential motion removes no noise but lets vertices drift
/// over features. On an open surface a boundary vertex is smoothed along the boundary only (its
/// two boundary neighbours), so the rim and the eye/mouth openings do not curl inward; boundary
/// vertices with other than two boundary neighbours (pinch points) and corners of the boundary
/// (where it turns by more than ``cornerAngleDegrees``) stay fixed, so corners are not rounded off.
/// - Complexity: O(iterations · edges); memory O(vertices + edges).
package enum Taubin {
    /// `mesh` smoothed by `options.iterations` passes.
    package static func smooth(_ mesh: Mesh, adjacency: Adjacency, options: TaubinOptions) -> Mesh {
        smooth(mesh, adjacency: adjacency, options: options, perturbation: nil).mesh
    }

    /// `mesh` smoothed by `options.iterations` passes and, given `perturbation` (a noise-only
    /// offset along each vertex normal, `NoiseEstimate`), the RMS over vertices of what the passes
    /// leave of it along the normal (carried through the same passes beside the positions).
    package static func smooth(
        _ mesh: Mesh, adjacency: Adjacency, options: TaubinOptions, perturbation: [Double]?
    ) -> (mesh: Mesh, residual: Double?) {
        let n = mesh.vertexCount
        guard options.iterations > 0, n > 0 else {
            return (mesh, perturbation.map { NoiseEstimate.rms($0) })
        }
        let op = Operator(mesh, adjacency: adjacency, options: options)
        var carried: [[SIMD3<Double>]] = []
        if let perturbation {
            precondition(perturbation.count == n, "one perturbation per vertex")
            carried = [(0..<n).map { perturbation[$0] * op.normals[$0] }]
        }
        var s = op.start(mesh.positions.map { SIMD3<Double>($0) }, carrying: carried)
        for _ in 0..<options.iterations { op.pass(&s) }
        var out = mesh
        let p = op.positions(s)
        for v in 0..<n { out.positions[v] = SIMD3<Float>(p[v]) }
        guard let perturbation else { return (out, nil) }
        var offsets = [SIMD4<Float>](repeating: .zero, count: n)
        op.normalOffsets(s, into: &offsets)
        var sum = 0.0
        for v in 0..<n {
            let r = perturbation[v] + Double(offsets[v][1])
            sum += r * r
        }
        return (out, (sum / Double(n)).squareRoot())
    }

    /// The smoothing of one mesh, set up once (neighbour weights, normals, bounds) and run from
    /// any start positions, carrying up to three directions through its derivative (the automatic
    /// smoothing measures the operator's response to noise this way, see `AutoSmoothing`).
    ///
    /// The weights (bilateral range term included) are those of the operator's mesh, so each step
    /// is linear; an interior vertex moves along its normal only and a boundary vertex along the
    /// boundary, each within its displacement bound. A state is therefore the offset of each
    /// interior vertex along its normal and the 3-D offset of each moving boundary vertex, in four
    /// lanes: lane 0 the positions, lanes 1…3 the directions.
    package struct Operator {
        /// Moving interior vertices' neighbours that move along their normal (by vertex): the
        /// neighbour and its weight × the cosine of the two normals.
        let interior: Links<Float>
        /// Moving interior vertices' neighbours on the boundary (by vertex): the neighbour's slot
        /// and its weight × the vertex normal.
        let interiorRim: Links<SIMD3<Float>>
        /// Every vertex's whole weighted neighbour list (for the start's constant terms).
        let all: Links<Double>
        /// Moving boundary vertices' moving boundary neighbours (by slot): slot and weight.
        let rimLinks: Links<Float>
        /// Moving boundary vertices' vertex, and each vertex's slot (−1: none).
        let rimVertex: [UInt32]
        let slot: [Int32]
        let moves: [Bool]
        let normals: [SIMD3<Double>]
        let floatNormals: [SIMD3<Float>]
        let limit: [Float]
        let lambda: Double
        let mu: Double

        package var vertexCount: Int { normals.count }

        package init(_ mesh: Mesh, adjacency: Adjacency, options: TaubinOptions) {
            let n = mesh.vertexCount
            precondition(adjacency.vertexCount == n)
            // Per-vertex neighbour lists and weights (normalised to sum 1): interior vertices use all
            // neighbours, boundary vertices their two boundary neighbours (none at a corner or pinch).
            var all = Links<Double>()
            all.reserve(adjacency.neighbors.count, rows: n)
            let cot = options.weights == .cotangent ? Taubin.cotangentWeights(mesh, adjacency) : nil
            for v in 0..<n {
                if adjacency.isBoundary[v] {
                    let lo = Int(adjacency.boundaryOffsets[v]), hi = Int(adjacency.boundaryOffsets[v + 1])
                    if hi - lo == 2
                        && !Taubin.isCorner(
                            mesh.positions, v, adjacency.boundaryNeighbors[lo], adjacency.boundaryNeighbors[lo + 1])
                    {
                        for k in lo..<hi { all.append(adjacency.boundaryNeighbors[k], 0.5) }
                    }
                } else {
                    let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
                    var sum = 0.0
                    for k in lo..<hi { sum += cot?[k] ?? 1 }
                    if sum > 0 { for k in lo..<hi { all.append(adjacency.neighbors[k], (cot?[k] ?? 1) / sum) } }
                }
                all.endRow()
            }
            let floatNormals = mesh.vertexNormals()
            let normals = floatNormals.map { SIMD3<Double>($0) }
            if let scale = options.featureScale {
                precondition(scale.count == n, "one feature scale per vertex")
                Taubin.rangeWeights(&all, mesh.positions, normals, scale)
            }
            // Who moves: a vertex with weights (a vertex whose weights all vanished stays).
            var moves = [Bool](repeating: false, count: n)
            var slot = [Int32](repeating: -1, count: n)
            var rimVertex: [UInt32] = []
            for v in 0..<n {
                var sum = 0.0
                for k in all.row(v) { sum += all.weight[k] }
                moves[v] = sum > 0
                if moves[v] && adjacency.isBoundary[v] {
                    slot[v] = Int32(rimVertex.count)
                    rimVertex.append(UInt32(v))
                }
            }
            var interior = Links<Float>(), interiorRim = Links<SIMD3<Float>>(), rimLinks = Links<Float>()
            interior.reserve(all.index.count, rows: n)
            interiorRim.reserve(0, rows: n)
            for v in 0..<n {
                let isRim = slot[v] >= 0
                for k in all.row(v) where moves[v] && all.weight[k] > 0 {
                    let u = Int(all.index[k]), w = all.weight[k]
                    guard moves[u] else { continue }
                    if isRim {
                        rimLinks.append(UInt32(slot[u]), Float(w))
                    } else if slot[u] >= 0 {
                        interiorRim.append(UInt32(slot[u]), SIMD3<Float>(w * normals[v]))
                    } else {
                        interior.append(UInt32(u), Float(w * (normals[u] * normals[v]).sum()))
                    }
                }
                interior.endRow()
                interiorRim.endRow()
                if isRim { rimLinks.endRow() }
            }
            self.interior = interior
            self.interiorRim = interiorRim
            self.all = all
            self.rimLinks = rimLinks
            self.rimVertex = rimVertex
            self.slot = slot
            self.moves = moves
            self.normals = normals
            self.floatNormals = floatNormals
            limit = options.displacementLimit ?? [Float](repeating: .infinity, count: n)
            precondition(limit.count == n, "one displacement limit per vertex")
            lambda = options.lambda
            mu = options.mu
        }

        /// Positions being smoothed (lane 0) and up to three directions carried through the
        /// smoothing's derivative (lanes 1…3): each lane's start, and its offset from there — along
        /// the normal for a moving interior vertex (`along`), in 3-D for a moving boundary vertex
        /// (`rim`, x, y and z of the four lanes per slot).
        package struct State {
            package let origin: [SIMD3<Double>]
            fileprivate var along: [SIMD4<Float>]
            fileprivate var alongScratch: [SIMD4<Float>]
            fileprivate var rim: [SIMD4<Float>]
            fileprivate var rimScratch: [SIMD4<Float>]
            /// The steps' constant terms: the weighted mean of each vertex's neighbours' starts,
            /// less its own (along the normal, or in 3-D on the boundary).
            fileprivate let constant: [SIMD4<Float>]
            fileprivate let rimConstant: [SIMD4<Float>]
        }

        /// A state at `start` (one position per vertex) carrying `directions` (up to three, one
        /// vector per vertex each), before any pass.
        package func start(_ start: [SIMD3<Double>], carrying directions: [[SIMD3<Double>]] = []) -> State {
            let n = vertexCount
            precondition(start.count == n && directions.count <= 3)
            for d in directions { precondition(d.count == n, "one direction vector per vertex") }
            // Each vertex's x, y and z of the four lanes (its start, then the directions), once.
            var lx = [SIMD4<Double>](repeating: .zero, count: n), ly = lx, lz = lx
            for v in 0..<n {
                lx[v][0] = start[v].x
                ly[v][0] = start[v].y
                lz[v][0] = start[v].z
            }
            for (j, d) in directions.enumerated() {
                for v in 0..<n {
                    lx[v][j + 1] = d[v].x
                    ly[v][j + 1] = d[v].y
                    lz[v][j + 1] = d[v].z
                }
            }
            var constant = [SIMD4<Float>](repeating: .zero, count: n)
            var rimConstant = [SIMD4<Float>](repeating: .zero, count: 3 * rimVertex.count)
            let xs = lx.flat
            let ys = ly.flat
            let zs = lz.flat
            let index = all.index.flat
            let weight = all.weight.flat
            for v in 0..<n where moves[v] {
                let ox = xs[v], oy = ys[v], oz = zs[v]
                var cx = SIMD4<Double>(repeating: 0), cy = cx, cz = cx
                for k in all.row(v) {
                    let u = Int(index[k])
                    cx += weight[k] * (xs[u] - ox)
                    cy += weight[k] * (ys[u] - oy)
                    cz += weight[k] * (zs[u] - oz)
                }
                let s = Int(slot[v])
                if s >= 0 {
                    rimConstant[3 * s] = SIMD4<Float>(cx)
                    rimConstant[3 * s + 1] = SIMD4<Float>(cy)
                    rimConstant[3 * s + 2] = SIMD4<Float>(cz)
                } else {
                    constant[v] = SIMD4<Float>(
                        normals[v].x * cx + normals[v].y * cy + normals[v].z * cz)
                }
            }
            let along = [SIMD4<Float>](repeating: .zero, count: n)
            let rim = [SIMD4<Float>](repeating: .zero, count: 3 * rimVertex.count)
            return State(
                origin: start, along: along, alongScratch: along, rim: rim,
                rimScratch: rim, constant: constant, rimConstant: rimConstant)
        }

        /// Every vertex's offset from its start along its own normal, in all four lanes, into
        /// `out` (one per vertex).
        package func normalOffsets(_ s: State, into out: inout [SIMD4<Float>]) {
            precondition(out.count == vertexCount)
            for v in 0..<vertexCount { out[v] = s.along[v] }
            for (r, v) in rimVertex.enumerated() {
                let n = floatNormals[Int(v)]
                let x: SIMD4<Float> = n.x * s.rim[3 * r], y: SIMD4<Float> = n.y * s.rim[3 * r + 1]
                let z: SIMD4<Float> = n.z * s.rim[3 * r + 2]
                out[Int(v)] = x + y + z
            }
        }

        /// Appends every vertex's offset from its start in `lane` (0: how far the positions moved;
        /// j: J·dⱼ − dⱼ for direction j) to `out`.
        package func appendMoved(_ s: State, lane: Int = 0, to out: inout [SIMD3<Float>]) {
            let base = out.count
            for v in 0..<vertexCount { out.append(s.along[v][lane] * floatNormals[v]) }
            for (r, v) in rimVertex.enumerated() { out[base + Int(v)] = rimOffset(s, r, lane: lane) }
        }

        /// Appends each moving boundary vertex's offset from its start in lane 0 to `out` (by slot).
        package func appendRimMoved(_ s: State, to out: inout [SIMD3<Float>]) {
            for r in 0..<rimVertex.count { out.append(rimOffset(s, r, lane: 0)) }
        }

        /// The 3-D offset of the moving boundary vertex in `slot` in `lane`.
        private func rimOffset(_ s: State, _ slot: Int, lane: Int) -> SIMD3<Float> {
            SIMD3(s.rim[3 * slot][lane], s.rim[3 * slot + 1][lane], s.rim[3 * slot + 2][lane])
        }

        /// The positions of `s` (lane 0).
        package func positions(_ s: State) -> [SIMD3<Double>] {
            var p = s.origin
            var d: [SIMD3<Float>] = []
            appendMoved(s, to: &d)
            for v in 0..<vertexCount { p[v] += SIMD3<Double>(d[v]) }
            return p
        }

        /// One pass: a λ step and a μ step, each followed by the displacement bound (a clamped
        /// offset does not move with the input: its directions' offsets are projected or zeroed).
        package func pass(_ s: inout State) {
            for f in [Float(lambda), Float(mu)] {
                interiorStep(&s, f)
                rimStep(&s, f)
                swap(&s.along, &s.alongScratch)
                swap(&s.rim, &s.rimScratch)
            }
        }

        /// The step of the interior vertices, each along its normal: t ← t + f·(c + Σ aₖtₖ + Σ bₖ·dₖ − t),
        /// then bounded.
        private func interiorStep(_ s: inout State, _ f: Float) {
            let (along, rimAlong, constant) = (s.along, s.rim, s.constant)
            let src = along.flat
            let rim = rimAlong.flat
            let c = constant.flat
            var dst = s.alongScratch.flatMut
            let off = interior.offsets.flat
            let nb = interior.index.flat
            let a = interior.weight.flat
            let roff = interiorRim.offsets.flat
            let rnb = interiorRim.index.flat
            let b = interiorRim.weight.flat
            let lim = limit.flat
            let moves = moves.flat
            let slot = slot.flat
            let n = src.count
            // One check of every per-vertex array's length, so the loop's own reads need none.
            precondition(
                dst.count == n && c.count == n && lim.count == n && moves.count == n && slot.count == n
                    && off.count == n + 1 && roff.count == n + 1, "interior step: arrays of different lengths")
            for v in 0..<n {
                guard moves[v] && slot[v] < 0 else {
                    dst[v] = src[v]
                    continue
                }
                var m = c[v]
                // A row's weights and neighbours as spans of their own: the loop runs over their
                // indices (no check); only the neighbour's own value is looked up with one.
                let row = Int(off[v])..<Int(off[v + 1])
                let rowWeight = a.extracting(row), rowIndex = nb.extracting(row)
                for k in rowWeight.indices {
                    m += rowWeight[k] * src[Int(rowIndex[k])]
                }
                let rimRow = Int(roff[v])..<Int(roff[v + 1])
                let rimWeight = b.extracting(rimRow), rimIndex = rnb.extracting(rimRow)
                for k in rimWeight.indices {
                    let r = 3 * Int(rimIndex[k])
                    let bk = rimWeight[k]
                    m += bk.x * rim[r]
                    m += bk.y * rim[r + 1]
                    m += bk.z * rim[r + 2]
                }
                var t = src[v] + f * (m - src[v])
                if abs(t[0]) > lim[v] {
                    t = SIMD4(t[0] > 0 ? lim[v] : -lim[v], 0, 0, 0)
                }
                dst[v] = t
            }
        }

        /// The step of the moving boundary vertices, in 3-D along their two boundary neighbours,
        /// then bounded in length (lanes 1…3 by the bound's derivative).
        private func rimStep(_ s: inout State, _ f: Float) {
            for r in 0..<rimVertex.count {
                let v = Int(rimVertex[r])
                var x = s.rimConstant[3 * r], y = s.rimConstant[3 * r + 1], z = s.rimConstant[3 * r + 2]
                for k in rimLinks.row(r) {
                    let u = 3 * Int(rimLinks.index[k]), w = rimLinks.weight[k]
                    x += w * s.rim[u]
                    y += w * s.rim[u + 1]
                    z += w * s.rim[u + 2]
                }
                x = s.rim[3 * r] + f * (x - s.rim[3 * r])
                y = s.rim[3 * r + 1] + f * (y - s.rim[3 * r + 1])
                z = s.rim[3 * r + 2] + f * (z - s.rim[3 * r + 2])
                let len2 = x[0] * x[0] + y[0] * y[0] + z[0] * z[0]
                let lim = limit[v]
                if len2 > lim * lim {
                    let len = len2.squareRoot(), scale = lim / len
                    // Lanes 1…3: the offset less its part along the clamped one, scaled.
                    let rx: SIMD4<Float> = x[0] * x, ry: SIMD4<Float> = y[0] * y, rz: SIMD4<Float> = z[0] * z
                    let radial: SIMD4<Float> = (rx + ry + rz) / len2
                    var nx = (x - radial * x[0]) * scale, ny = (y - radial * y[0]) * scale
                    var nz = (z - radial * z[0]) * scale
                    nx[0] = x[0] * scale
                    ny[0] = y[0] * scale
                    nz[0] = z[0] * scale
                    (x, y, z) = (nx, ny, nz)
                }
                s.rimScratch[3 * r] = x
                s.rimScratch[3 * r + 1] = y
                s.rimScratch[3 * r + 2] = z
            }
        }
    }

    /// A boundary vertex whose boundary turns by more than this is a corner and is not moved.
    package static let cornerAngleDegrees = 30.0

    static func isCorner(_ p: [SIMD3<Float>], _ v: Int, _ a: UInt32, _ b: UInt32) -> Bool {
        let e1 = SIMD3<Double>(p[v] - p[Int(a)]), e2 = SIMD3<Double>(p[Int(b)] - p[v])
        let l = ((e1 * e1).sum() * (e2 * e2).sum()).squareRoot()
        guard l > 0 else { return true }
        return (e1 * e2).sum() / l < cos(cornerAngleDegrees * .pi / 180)
    }

    /// Weighted lists, one row each (a vertex's neighbours, say): row r's entries are
    /// `offsets[r] ..< offsets[r + 1]` of `index` and `weight`.
    struct Links<Weight> {
        var offsets: [Int32] = [0]
        var index: [UInt32] = []
        var weight: [Weight] = []

        mutating func reserve(_ entries: Int, rows: Int) {
            offsets.reserveCapacity(rows + 1)
            index.reserveCapacity(entries)
            weight.reserveCapacity(entries)
        }
        /// Adds an entry to the row being written.
        mutating func append(_ i: UInt32, _ w: Weight) {
            index.append(i)
            weight.append(w)
        }
        /// Closes the row being written.
        mutating func endRow() { offsets.append(Int32(index.count)) }
        func row(_ r: Int) -> Range<Int> { Int(offsets[r])..<Int(offsets[r + 1]) }
    }

    /// Multiplies each weight of `links` (a row per vertex) by the bilateral range term
    /// exp(−h²/2s²) of the neighbour's height h above the vertex along its normal at `positions`
    /// (s = `scale` of the vertex) and renormalises each vertex's weights; a vertex whose weights
    /// all vanish keeps none (it stays where it is).
    fileprivate static func rangeWeights(
        _ links: inout Links<Double>, _ positions: [SIMD3<Float>], _ normals: [SIMD3<Double>], _ scale: [Float]
    ) {
        for v in 0..<links.offsets.count - 1 {
            let row = links.row(v)
            guard !row.isEmpty else { continue }
            let s = Double(scale[v])
            let r = 1 / (2 * s * s + 1e-300)
            let y = SIMD3<Double>(positions[v])
            var sum = 0.0
            for k in row {
                let h = ((SIMD3<Double>(positions[Int(links.index[k])]) - y) * normals[v]).sum()
                links.weight[k] *= exp(-h * h * r)
                sum += links.weight[k]
            }
            for k in row { links.weight[k] = sum > 0 ? links.weight[k] / sum : 0 }
        }
    }

    /// `values` (28 lanes per vertex, as seven 4-lane groups) averaged over each vertex's
    /// one-ring and itself, `rounds` times (each lane on its own, the sums in neighbour order);
    /// eight lanes at a time where the CPU has AVX (`vector`), with the same result.
    package static func ringAverage(
        _ values: [SIMD4<Float>], adjacency: Adjacency, rounds: Int, vector: Bool = true
    ) -> [SIMD4<Float>] {
        let n = adjacency.vertexCount
        precondition(values.count == 7 * n)
        if vector,
            let averaged = VectorKernels.ringAverage(
                values, offsets: adjacency.offsets, neighbors: adjacency.neighbors, rounds: rounds)
        {
            return averaged  // the same rounds, eight lanes at a time (bit-identical)
        }
        var a = values, b = values
        let off = adjacency.offsets.flat
        let nb = adjacency.neighbors.flat
        for _ in 0..<rounds {
            do {
                let src = a.flat
                var dst = b.flatMut
                for v in 0..<n {
                    let lo = Int(off[v]), hi = Int(off[v + 1]), i = 7 * v
                    var s0 = src[i], s1 = src[i + 1], s2 = src[i + 2], s3 = src[i + 3]
                    var s4 = src[i + 4], s5 = src[i + 5], s6 = src[i + 6]
                    for j in lo..<hi {
                        let u = 7 * Int(nb[j])
                        s0 += src[u]
                        s1 += src[u + 1]
                        s2 += src[u + 2]
                        s3 += src[u + 3]
                        s4 += src[u + 4]
                        s5 += src[u + 5]
                        s6 += src[u + 6]
                    }
                    let scale = SIMD4<Float>(repeating: 1 / Float(hi - lo + 1))
                    dst[i] = s0 * scale
                    dst[i + 1] = s1 * scale
                    dst[i + 2] = s2 * scale
                    dst[i + 3] = s3 * scale
                    dst[i + 4] = s4 * scale
                    dst[i + 5] = s5 * scale
                    dst[i + 6] = s6 * scale
                }
            }
            swap(&a, &b)
        }
        return a
    }

    /// Cotangent weight of every adjacency entry (v → neighbors[k]): ½(cot α + cot β) of the angles
    /// opposite the edge, clamped at 0.
    static func cotangentWeights(_ mesh: Mesh, _ adj: Adjacency) -> [Double] {
        var w = [Double](repeating: 0, count: adj.neighbors.count)
        var ws = w.flatMut
        let off = adj.offsets.flat
        let nb = adj.neighbors.flat
        let p = mesh.positions.flat
        let tri = mesh.triangles.flat
        // The entry of b in a's (short, sorted) neighbour list, or −1.
        @inline(__always) func slot(_ a: Int, _ b: UInt32) -> Int {
            for k in Int(off[a])..<Int(off[a + 1]) where nb[k] >= b { return nb[k] == b ? k : -1 }
            return -1
        }
        for t in 0..<tri.count / 3 {
            let i = tri[3 * t], j = tri[3 * t + 1], k = tri[3 * t + 2]
            for corner in 0..<3 {
                let (o, a, b) = corner == 0 ? (i, j, k) : corner == 1 ? (j, k, i) : (k, i, j)
                // Angle at o, opposite edge a–b.
                let u = SIMD3<Double>(p[Int(a)] - p[Int(o)]),
                    v = SIMD3<Double>(p[Int(b)] - p[Int(o)])
                let cr = SIMD3<Double>(
                    u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                let s = (cr * cr).sum().squareRoot()
                guard s > 1e-300 else { continue }
                let c = (u * v).sum() / s
                let ab = slot(Int(a), b), ba = slot(Int(b), a)
                if ab >= 0 { ws[ab] += 0.5 * c }
                if ba >= 0 { ws[ba] += 0.5 * c }
            }
        }
        for k in w.indices where !(w[k] > 0) { w[k] = 0 }
        return w
    }
}
