import FaceScanCore

/// Chooses how much smoothing each region of a capture gets from the noise measured in its own
/// frames: per vertex, the (fractional) pass count whose estimated error to the (unknown) true face
/// around that vertex is least, by Stein's unbiased risk estimate (SURE).
///
/// For a smoother f and a mean face y = μ + e, the noise e of covariance Σ,
/// E‖f(y) − μ‖² = E[‖f(y) − y‖² − tr Σ + 2 tr(J Σ)], J the Jacobian of f at y. Everything on the
/// right is known: ‖f(y) − y‖² is how far the smoothing moved the mean face, and tr(J Σ) is
/// estimated from the accumulator's noise samples s (`Accumulator/noiseSamples()`), whose
/// Σₛ sᵀ J s is unbiased for it, with J s carried through the same smoothing alongside y (the
/// operator's derivative in direction s, carried in the lanes of `Taubin.Operator`'s state: the
/// steps are linear, with the mean face's neighbour weights, bilateral term included; the
/// displacement bound is differentiated). The samples
/// keep the noise's spatial correlation: a whole-face wobble that smoothing passes unchanged (J s ≈ s) counts as noise that stays, which a
/// per-vertex variance with independent noise would count as removable.
///
/// Only the component along the surface normal is scored (a surface's distance to the truth is
/// measured across it), each vertex weighted by its share of the surface area (a third of its
/// triangles' area), so the estimate is that of the mean squared surface error, not of the
/// vertex count's distribution.
///
/// The whole face's estimate is a sum of per-vertex terms; pooled over a neighbourhood they
/// estimate the error of that region, and each vertex takes the pass count best for its region
/// (between two counts where the pooled estimate's parabola has its least value): a flat cheek
/// with a noisy mean gets many passes, the nose and the lips, where smoothing's bias outweighs
/// the noise it removes, few. The passes are Taubin's with μ = −λ (each attenuates every
/// frequency but the constant), so many passes do not compound a low-frequency gain.
package enum AutoSmoothing {
    /// The most passes `auto` considers (at most 27: the pooling holds 28 counts per vertex).
    package static let maximumPasses = 24

    /// Rounds of one-ring averaging that pool each vertex's risk estimate with its neighbours'
    /// before the per-vertex choice (about the pooled region's radius in edges).
    package static let poolingRounds = 20

    /// The chosen pass counts and the estimate behind them.
    package struct Choice: Sendable, Equatable {
        /// Passes chosen: the area-weighted median of the per-vertex counts.
        package var passes: Int
        /// Least and most passes any vertex got.
        package var range: ClosedRange<Int>
        /// Estimated RMS surface error (metres, along the normal, area-weighted) after k passes
        /// everywhere, k = 0, 1, … up to where the search stopped; nil when there was no noise
        /// estimate.
        package var estimatedError: [Double]?
        /// Estimated RMS surface error of the per-vertex choice (metres); nil without a noise estimate.
        package var chosenError: Double?
        /// The mean face with each vertex where its chosen pass count put it; nil when no vertex
        /// was smoothed or there was no noise estimate.
        package var smoothed: Mesh?
        /// RMS over vertices of the `perturbation` given to `choose` left after each vertex's
        /// chosen passes, along the normal (metres); nil without one.
        package var residualNoise: Double?

        /// One line for the verbose output: what was chosen and why.
        package var reason: String {
            guard let e = estimatedError, let chosen = chosenError else {
                return "smoothing: \(passes) passes (one averaged frame: no noise estimate, the fixed default)"
            }
            func um(_ x: Double) -> String { "\(Int((x * 1e6).rounded())) µm" }
            func count(_ k: Int) -> String { "\(k) \(k == 1 ? "pass" : "passes")" }
            let best = e.indices.min { e[$0] < e[$1] } ?? 0
            let what =
                range.lowerBound == range.upperBound
                ? count(passes) : "\(range.lowerBound)–\(range.upperBound) passes by region (median \(passes))"
            return "smoothing: \(what) chosen from the measured noise (estimated error \(um(chosen)); "
                + "none \(um(e[0])), best single count \(count(best)) \(um(e[best])))"
        }
    }

    /// The pass count (0 … `maximumPasses`) for each vertex with the least estimated error around
    /// it for `mesh` (the mean face) smoothed with `options` (its `iterations` ignored); `noise`:
    /// the accumulator's noise samples, nil with one frame (then the fixed default of 2 passes);
    /// `perturbation`: a noise-only offset along each vertex normal whose residual after the
    /// chosen passes the choice reports (`NoiseEstimate`).
    ///
    /// Each pass's risk estimate is split into per-vertex terms (the sum of them is the whole
    /// face's estimate); each vertex's terms are pooled with its neighbours' (``poolingRounds``
    /// rounds of one-ring averaging), and the vertex takes the pass count whose pooled estimate is
    /// least: a flat cheek is smoothed more than the nose or the lips, where smoothing's bias
    /// outweighs the noise it removes. The search stops once the whole face's estimate is above
    /// that of no smoothing and three passes past its least value (no region was still gaining).
    package static func choose(
        mesh: Mesh, adjacency: Adjacency, options: TaubinOptions, noise: [[Double]]?,
        perturbation: [Double]? = nil, maximumPasses: Int = maximumPasses
    ) -> Choice {
        precondition(maximumPasses < 28, "at most 27 passes")
        guard let noise, !noise.isEmpty, mesh.vertexCount > 0 else {
            return Choice(
                passes: 2, range: 2...2, estimatedError: nil, chosenError: nil, smoothed: nil, residualNoise: nil)
        }
        let n = mesh.vertexCount
        let area = vertexAreas(mesh)
        let y = mesh.positions.map { SIMD3<Double>($0) }
        // λ = −μ: every pass attenuates every frequency but the constant (1 − k²/4), with no low-frequency
        // gain to compound over the many passes a quiet region may take.
        var options = options
        options.mu = -options.lambda
        let op = Taubin.Operator(mesh, adjacency: adjacency, options: options)
        let normals = op.normals
        // At most two probes z_p = c_p · Σ_g w_p(g) s_g from the G samples: from 4, the balanced
        // ±1 Walsh patterns +−+−, ++−− with c = √((G − 1)/(G·P)) (P = 2); from 3, the Helmert
        // contrasts (s₁ − s₂)/√2 and (s₁ + s₂ − 2s₃)/√6; from 2, (s₁ − s₂)/√2. With equal group
        // weights Σ_p z_p z_pᵀ has the mean's covariance, so Σ_p z_pᵀ J z_p is unbiased for tr(J Σ)
        // as Σ_g s_gᵀ J s_g is (from 3 and 2 it is that very sum: the samples then add up to zero,
        // G − 1 directions hold them all), at fewer carried directions; the pooling over a region
        // (hundreds of vertices) averages out the fewer degrees of freedom. One sample is its own probe.
        let g = noise.count
        precondition(g <= 4, "at most four noise samples")
        for s in noise { precondition(s.count == 3 * n, "one noise sample coordinate per vertex coordinate") }
        let (patterns, scales) = probePatterns(g)
        let probes = patterns.count
        let (along, probed, local0) = project(noise, patterns: patterns, scales: scales, normals: normals, area: area)
        var start = probed
        let trace = local0.reduce(0, +)
        // The perturbation rides in the lane after the probes' when there is one.
        let residualLane = perturbation != nil ? probes + 1 : nil
        if let perturbation, residualLane != nil {
            precondition(perturbation.count == n, "one perturbation per vertex")
            start.append((0..<n).map { perturbation[$0] * normals[$0] })
        }
        var state = op.start(y, carrying: start)
        var passes = Passes(
            vertices: n, rims: op.rimVertex.count, passCounts: max(1, maximumPasses) + 1, trace: trace,
            local0: local0, perturbation: perturbation)
        passes.run(op, &state, along: along, area: area, local0: local0, residualLane: residualLane)
        let (risk, rims, moved, rimMoved, residual) =
            (passes.risk, passes.rims, passes.moved, passes.rimMoved, passes.residual)
        let terms = passes.terms
        let kn = risk.count
        let amounts = pool(terms, adjacency: adjacency)
        let counts = amounts.map { Int($0.rounded()) }
        var chosenRisk = 0.0
        var out = mesh
        var smoothedAny = false
        var left = 0.0
        for v in 0..<n {
            chosenRisk += Double(terms[v, counts[v]])
            // The vertex's (fractional) count t = k + f: its values between those after k and k + 1 passes.
            let t = amounts[v], k = Int(t.rounded(.down)), next = min(k + 1, kn - 1), f = Float(t - Double(k))
            if residualLane != nil {
                let r = Double(lerp(residual[k * n + v], residual[next * n + v], f))
                left += r * r
            }
            guard t > 0 else { continue }
            let slot = Int(op.slot[v]), normal = op.floatNormals[v]
            let d =
                slot >= 0
                ? lerp(rimMoved[k * rims + slot], rimMoved[next * rims + slot], f)
                : lerp(moved[k * n + v] * normal, moved[next * n + v] * normal, f)
            out.positions[v] = SIMD3<Float>(y[v] + SIMD3<Double>(d))
            smoothedAny = true
        }
        return Choice(
            passes: areaMedian(counts, area: area, kinds: kn), range: (counts.min() ?? 0)...(counts.max() ?? 0),
            estimatedError: risk.map { max($0, 0).squareRoot() }, chosenError: max(chosenRisk, 0).squareRoot(),
            smoothed: smoothedAny ? out : nil,
            residualNoise: residualLane == nil ? nil : (left / Double(n)).squareRoot())
    }

    /// At most two probes z_p = c_p · Σ_g w_p(g) s_g from `g` noise samples (see ``choose``):
    /// the weights w_p of each probe and its factor c_p.
    static func probePatterns(_ g: Int) -> (patterns: [[Double]], scales: [Double]) {
        switch g {
        case 1: ([[1]], [1])
        case 3: ([[1, -1, 0], [1, 1, -2]], [(1.0 / 2).squareRoot(), (1.0 / 6).squareRoot()])
        default:
            (
                (0..<g / 2).map { p in (0..<g).map { (($0 & (p + 1)).nonzeroBitCount % 2 == 0 ? 1 : -1) } },
                [Double](repeating: (Double(g - 1) / Double(g * (g / 2))).squareRoot(), count: g / 2)
            )
        }
    }

    /// The probes of the noise samples, per vertex: their normal components in the lanes they are
    /// carried in (`along`, 1…probes; the others 0), each probe's direction (`start`, carried
    /// through the passes with the mean face), and the vertex's share of tr Σ (`local0`, normal
    /// part, area-weighted: its risk with no smoothing).
    static func project(
        _ noise: [[Double]], patterns: [[Double]], scales: [Double], normals: [SIMD3<Double>], area: [Double]
    ) -> (along: [SIMD4<Double>], start: [[SIMD3<Double>]], local0: [Double]) {
        let n = normals.count, probes = patterns.count
        var along = [SIMD4<Double>](repeating: .zero, count: n)
        var start = [[SIMD3<Double>]](repeating: [SIMD3<Double>](repeating: .zero, count: n), count: probes)
        var local0 = [Double](repeating: 0, count: n)
        for v in 0..<n {
            for i in 0..<probes {
                var sv = SIMD3<Double>.zero
                for (j, s) in noise.enumerated() {
                    let weight: Double = patterns[i][j]
                    sv += weight * SIMD3<Double>(s[3 * v], s[3 * v + 1], s[3 * v + 2])
                }
                sv *= scales[i]
                let a = (sv * normals[v]).sum()
                along[v][i + 1] = a
                start[i][v] = sv
                local0[v] += area[v] * a * a
            }
        }
        return (along, start, local0)
    }

    /// The area-weighted median of the per-vertex pass counts (each below `kinds`).
    static func areaMedian(_ counts: [Int], area: [Double], kinds: Int) -> Int {
        var share = [Double](repeating: 0, count: kinds)
        for v in counts.indices { share[counts[v]] += area[v] }
        var median = 0, cumulative = 0.0
        for k in share.indices {
            cumulative += share[k]
            median = k
            if cumulative >= 0.5 { break }
        }
        return median
    }

    /// The passes of ``choose``, run until the risk has not improved for three passes past the
    /// start's: risk_k = ‖f_k(y) − y‖² − tr Σ + 2 tr(J_k Σ), all along the normal and
    /// area-weighted; `terms[v, k]` its per-vertex terms; `moved[k·n + v]` how far k passes moved
    /// vertex v along its normal (a boundary vertex: `rimMoved[k·rims + slot]`, in 3-D),
    /// `residual[k·n + v]` the perturbation left there along the normal (flat: allocated once).
    struct Passes {
        var risk: [Double]
        var terms: RiskTerms
        var moved: [Float]
        var rimMoved: [SIMD3<Float>]
        var residual: [Float]
        let rims: Int
        let passCounts: Int
        let trace: Double

        init(vertices n: Int, rims: Int, passCounts: Int, trace: Double, local0: [Double], perturbation: [Double]?) {
            self.rims = rims
            self.passCounts = passCounts
            self.trace = trace
            risk = [trace]
            terms = RiskTerms(vertices: n)
            for v in 0..<n { terms[v, 0] = Float(local0[v]) }
            moved = [Float](repeating: 0, count: passCounts * n)
            rimMoved = [SIMD3<Float>](repeating: .zero, count: rims)
            rimMoved.reserveCapacity(passCounts * rims)
            residual = [Float](repeating: 0, count: perturbation == nil ? 0 : passCounts * n)
            if let perturbation { for v in 0..<n { residual[v] = Float(perturbation[v]) } }
        }

        mutating func run(
            _ op: Taubin.Operator, _ state: inout Taubin.Operator.State, along: [SIMD4<Double>], area: [Double],
            local0: [Double], residualLane: Int?
        ) {
            let n = local0.count
            var offsets = [SIMD4<Float>](repeating: .zero, count: n)
            var best = 0
            for k in 1..<passCounts {
                if risk[k - 1] > trace && k - 1 - best >= 3 { break }
                op.pass(&state)
                op.normalOffsets(state, into: &offsets)
                let sum = accumulate(pass: k, offsets: offsets, along: along, area: area, local0: local0)
                if let lane = residualLane { for v in 0..<n { residual[k * n + v] = residual[v] + offsets[v][lane] } }
                risk.append(sum)
                op.appendRimMoved(state, to: &rimMoved)
                if risk[k] < risk[best] { best = k }
            }
            terms.count = risk.count
        }

        /// Pass `k`'s per-vertex risk terms and normal moves from its offsets; their sum.
        mutating func accumulate(
            pass k: Int, offsets: [SIMD4<Float>], along: [SIMD4<Double>], area: [Double], local0: [Double]
        ) -> Double {
            Self.accumulate(
                pass: k, offsets: offsets, along: along, area: area, local0: local0, lanes: &terms.lanes,
                moved: &moved)
        }

        /// ``accumulate(pass:offsets:along:area:local0:)`` into `lanes` and `moved`.
        static func accumulate(
            pass k: Int, offsets: [SIMD4<Float>], along: [SIMD4<Double>], area: [Double], local0: [Double],
            lanes: inout [SIMD4<Float>], moved: inout [Float]
        ) -> Double {
            let n = local0.count
            var sum = 0.0
            let offsets = offsets.flat
            let along = along.flat
            let area = area.flat
            let local0 = local0.flat
            var lanes = lanes.flatMut
            var moved = moved.flatMut
            for v in 0..<n {
                let o = SIMD4<Double>(offsets[v]), a = along[v]
                // Lane 0: the face's own offset d; lanes 1…: Σ aᵢ(aᵢ + (J_k zᵢ − zᵢ)·n).
                let r = area[v] * (o[0] * o[0] + 2 * (a * (a + o)).sum()) - local0[v]
                lanes[7 * v + k >> 2][k & 3] = Float(r)
                sum += r
                moved[k * n + v] = offsets[v][0]
            }
            return sum
        }
    }

    /// The value a fraction `f` of the way from `a` to `b`.
    @inline(__always)
    static func lerp(_ a: Float, _ b: Float, _ f: Float) -> Float { a + f * (b - a) }

    @inline(__always)
    static func lerp(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ f: Float) -> SIMD3<Float> { a + f * (b - a) }

    /// Per-vertex risk terms of pass counts 0 … `count` − 1 (at most 28): 28 single-precision
    /// lanes per vertex as seven 4-lane groups, so one pooling round reads each neighbour once.
    /// Single precision: the pooled terms are compared with their neighbours in k, which differ
    /// far above its resolution.
    struct RiskTerms {
        var lanes: [SIMD4<Float>]
        var count = 0

        init(vertices n: Int) { lanes = [SIMD4<Float>](repeating: .zero, count: 7 * n) }

        /// `local[k][v]`: the terms of pass count k at vertex v.
        init(_ local: [[Double]], vertices n: Int) {
            precondition(local.count <= 28, "at most 28 pass counts")
            self.init(vertices: n)
            count = local.count
            for k in local.indices { for v in 0..<n { self[v, k] = Float(local[k][v]) } }
        }

        subscript(v: Int, k: Int) -> Float {
            get { lanes[7 * v + k >> 2][k & 3] }
            set { lanes[7 * v + k >> 2][k & 3] = newValue }
        }
    }

    /// Each vertex's pass count: the k whose risk terms, averaged over the vertex's one-ring and
    /// itself ``poolingRounds`` times, are least (the fewer passes on a tie), refined to the least
    /// of the parabola through its neighbours in k.
    static func pool(_ terms: RiskTerms, adjacency: Adjacency) -> [Double] {
        let kn = terms.count, n = adjacency.vertexCount
        var a = terms
        a.lanes = Taubin.ringAverage(terms.lanes, adjacency: adjacency, rounds: poolingRounds)
        var amounts = [Double](repeating: 0, count: n)
        for v in 0..<n {
            var best = 0
            for k in 1..<kn where a[v, k] < a[v, best] { best = k }
            amounts[v] = Double(best)
            guard best > 0, best < kn - 1 else { continue }
            let lo = Double(a[v, best - 1]), mid = Double(a[v, best]), hi = Double(a[v, best + 1])
            let curvature = lo - 2 * mid + hi
            if curvature > 0 { amounts[v] += min(max((lo - hi) / (2 * curvature), -0.5), 0.5) }
        }
        return amounts
    }

    /// Each vertex's share of the surface (a third of the area of each triangle it is a corner
    /// of), normalised to sum 1; equal shares for a surface without area.
    static func vertexAreas(_ mesh: Mesh) -> [Double] {
        var a = [Double](repeating: 0, count: mesh.vertexCount)
        var total = 0.0
        for t in 0..<mesh.triangleCount {
            let (i, j, k) = mesh.triangle(t)
            let p = SIMD3<Double>(mesh.positions[Int(i)])
            let u = SIMD3<Double>(mesh.positions[Int(j)]) - p, w = SIMD3<Double>(mesh.positions[Int(k)]) - p
            let c = SIMD3(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x)
            let third = (c * c).sum().squareRoot() / 6
            guard third.isFinite else { continue }
            a[Int(i)] += third
            a[Int(j)] += third
            a[Int(k)] += third
            total += 3 * third
        }
        guard total > 0 else { return [Double](repeating: 1 / Double(max(1, a.count)), count: a.count) }
        return a.map { $0 / total }
    }
}
