import FaceScanCore

/// The sufficient statistics, gathered in the one streaming pass, of each vertex's linear
/// response to the blend-shape coefficients that vary in a capture (docs/ALGORITHMS.md,
/// "Expressions"): for each coefficient k, its offset from an origin dₖ = cₖ − c⁰ₖ; for each
/// coordinate i, Σ w·xᵢ·dₖ; and, shared by every vertex, Σ w·dₖ, Σ w·dₖ·dₗ and the same Σ w·dₖ per
/// interleaved group of ``Accumulator``. Each frame's coefficients are kept (a few numbers a
/// frame), never its vertices.
///
/// The origin c⁰ₖ is the coefficient's value in the first frame (0 for a coefficient first seen
/// later: a frame without it counts as 0). A coefficient's column of Σ w·x·d is allocated when it
/// first differs from its origin — every earlier frame had dₖ = 0 and added nothing to it — so a
/// capture whose coefficients never change (or that has none) costs nothing and changes nothing.
package struct ExpressionStatistics: Sendable {
    /// Coefficient names in the order they were first seen (a frame's new names sorted).
    package private(set) var names: [String] = []
    private var index: [String: Int] = [:]
    private var origin: [Double] = []
    /// For each name: its column of `cross`, or −1 while the coefficient has not varied.
    private var column: [Int] = []
    /// Σ w·x·d, one column of 3·vertices per varying coefficient.
    private var cross: [Double] = []
    private var sumWD: [Double] = []
    /// Σ w·dₖ·dₗ, row k holding l ≤ k.
    private var sumWDD: [[Double]] = []
    private var groupWD = [[Double]](repeating: [], count: Accumulator.groups)
    /// Every offered frame's d (by name index; a frame's vector is as long as the names were then).
    private var offered: [[Double]] = []
    private let width: Int

    /// Statistics for frames of `vertexCount` vertices.
    package init(vertexCount: Int) { width = 3 * vertexCount }

    /// Frames offered so far (gated frames, outliers included).
    package var offeredCount: Int { offered.count }

    /// The offsets d of a frame's coefficients, registering names not seen before, and keeps
    /// them among the gated frames' coefficients (their medians make the resting face).
    package mutating func offer(_ blendShapes: [String: Double]) -> [Double] {
        var fresh: [String] = []
        for key in blendShapes.keys where index[key] == nil { fresh.append(key) }
        if !fresh.isEmpty {
            fresh.sort()
            let first = offered.isEmpty
            for key in fresh {
                index[key] = names.count
                names.append(key)
                origin.append(first ? blendShapes[key]! : 0)
                column.append(-1)
                sumWD.append(0)
                sumWDD.append([Double](repeating: 0, count: names.count))
                for g in 0..<groupWD.count { groupWD[g].append(0) }
            }
        }
        var d = [Double](repeating: 0, count: names.count)
        for k in 0..<names.count { d[k] = (blendShapes[names[k]] ?? 0) - origin[k] }
        offered.append(d)
        return d
    }

    /// The median over the gated frames so far of each coefficient in `keys` (known ones only).
    package func typical<S: Sequence>(of keys: S) -> [String: Double] where S.Element == String {
        var out: [String: Double] = [:]
        for key in keys {
            guard let k = index[key], !offered.isEmpty else { continue }
            out[key] = Self.median(offered.map { k < $0.count ? $0[k] : 0 - origin[k] }) + origin[k]
        }
        return out
    }

    /// Adds an averaged frame: its flat xyz, the offsets `d` that ``offer(_:)`` returned for it,
    /// its weight and its ``Accumulator`` group.
    package mutating func add(_ xyz: Span<Float>, _ d: [Double], weight: Double, group: Int) {
        let n = width
        precondition(xyz.count == n, "a frame of another vertex count")
        for k in 0..<d.count where d[k] != 0 {
            if column[k] < 0 {
                column[k] = cross.count / n
                cross.append(contentsOf: repeatElement(0, count: n))
            }
            let a = weight * d[k]
            sumWD[k] += a
            groupWD[group][k] += a
            for l in 0...k where d[l] != 0 { sumWDD[k][l] += a * d[l] }
            Self.addScaled(xyz, a, into: &cross, at: column[k] * n)
        }
    }

    /// cross[start + i] += a·xyz[i] for every i of `xyz`.
    @inline(__always)
    private static func addScaled(_ xyz: Span<Float>, _ a: Double, into cross: inout [Double], at start: Int) {
        var c = cross.flatMut
        for i in 0..<xyz.count { c[start + i] += a * Double(xyz[i]) }
    }

    /// A coefficient must spread at least this much (weighted standard deviation over the
    /// averaged frames) to be modelled.
    package static let minimumSpread = 0.005
    /// The resting level of a coefficient: this quantile of its values over the gated frames.
    package static let restQuantile = 0.1
    /// Umbrella passes that smooth the correction field over the mesh.
    package static let smoothingPasses = 8
    /// The least share of the noise variance the smoothed correction is assumed to keep (about
    /// what 8 passes leave of independent per-vertex noise on a regular triangle mesh); the
    /// share is measured on the capture's own noise samples and never taken below this.
    package static let smoothedVarianceRatio = 1.0 / 20
    /// A vertex is corrected when its smoothed correction's χ² (3 degrees of freedom) exceeds this.
    package static let significance = 9.0
    /// The 99.9th percentile over the coordinates of the F ratio (explained variance per
    /// coefficient over residual variance) the coefficients must reach to be used at all.
    package static let minimumF = 15.0
    /// How many times its own noise the raw correction must differ from the smoothed one before
    /// it is taken back (the shrinkage weight's k).
    package static let blendNoiseFactor = 2.0
    /// Umbrella passes that smooth the shrinkage weight.
    package static let blendPasses = 2
    /// Ridge on the coefficients' covariance, relative to its diagonal (collinear coefficients).
    package static let ridge = 1e-3
    /// A coefficient's support: where its smoothed response's squared length exceeds this many
    /// times its ``supportQuantile`` over the face.
    package static let supportFactor = 9.0
    /// The quantile over the vertices of a coefficient's smoothed squared response that sets the
    /// level of noise its support must exceed.
    package static let supportQuantile = 0.25
    /// Rings of neighbours each coefficient's support grows by.
    package static let supportRings = 2
    /// Supports are per-vertex bit masks: with more modelled coefficients than this, every
    /// vertex carries them all.
    static let maximumSupportTerms = 63

    /// Which region a coefficient's name belongs to (ARKit's names, either spelling): eyes
    /// (`eye…`), brows (`brow…`), mouth (`jaw…`, `mouth…`, `tongue…`) or the rest (cheeks, nose).
    package static func region(_ name: String) -> Int {
        let s = name.lowercased()
        if s.hasPrefix("eye") { return 0 }
        if s.hasPrefix("brow") { return 1 }
        if s.hasPrefix("jaw") || s.hasPrefix("mouth") || s.hasPrefix("tongue") { return 2 }
        return 3
    }

    /// The resting face from the plain weighted statistics `acc` (the same frames, weights and
    /// groups) and these, on the mesh of `triangles`: each vertex's mean moved by its (smoothed,
    /// significant) response to the shift from the frames' mean expression to the resting one,
    /// with its standard error and the noise samples to match. Nil when no coefficient varies
    /// enough (the plain mean is the answer, unchanged).
    /// `supportTerms` false fits every modelled coefficient at every vertex (the model before the
    /// supports; for comparison in tests).
    package func resting(_ acc: Accumulator, triangles: [UInt32], supportTerms: Bool = true) -> RestingFace? {
        let count = acc.count, w = acc.weightSum, n = width
        guard count >= 8, w > 0, acc.means.count == n else { return nil }
        let chosen = chosenCoefficients(count: count, w: w)
        let p = chosen.count
        guard p > 0, count - 1 - p >= 4 else { return nil }
        let cov = covariance(chosen, w: w)
        var ridged = cov
        for a in 0..<p { ridged[a * p + a] *= 1 + Self.ridge }
        guard let inverse = Self.inverted(ridged, p) else { return nil }
        let map = mappedShifts(acc, chosen: chosen, cov: cov, inverse: inverse)
        let fit = vertexFields(acc, chosen: chosen, inverse: inverse, mapped: map.mapped, fieldCount: map.fieldCount)
        guard Self.explainsEnough(fit, p: p, n: n) else { return nil }
        let adjacency = Adjacency(triangles: triangles, vertexCount: n / 3)
        var fields = fit.fields
        if supportTerms, p <= Self.maximumSupportTerms {
            let masks = supportMasks(beta: fit.beta, p: p, adjacency: adjacency)
            supportedFields(
                acc, chosen: chosen, ridged: ridged, shifts: map.regionShifts, masks: masks, fields: &fields)
        }
        let smooth = smoothedFields(acc, fields, map: map, adjacency: adjacency)
        let lambda = Self.blendWeights(
            raw: smooth.raw, fields: smooth.fields, sigma2: fit.sigma2, gRegion: map.gRegion, ratios: smooth.ratios,
            adjacency: smooth.adjacency)
        return corrected(acc, chosen: chosen, map: map, sigma2: fit.sigma2, smooth: smooth, lambda: lambda)
    }

    /// The regions' and the groups' shifts mapped through C⁻¹ (`fieldCount` fields of `p`
    /// values), each region's noise scale gᵣ, and the groups that hold frames.
    struct MappedShifts {
        let mapped: [Double]
        let fieldCount: Int
        let gRegion: [Double]
        let filled: [Int]
        let gw: [Double]
        /// Each region's share of the shift to the resting expression (`p` values each).
        let regionShifts: [[Double]]
        /// Eyes, brows, mouth and the rest.
        static let regionCount = 4
    }

    /// The per-coordinate fit: the fields (3 coordinates each), the residual variance and the
    /// explained sum of squares.
    struct VertexFit {
        let fields: [Double]
        let sigma2: [Double]
        let explainedSS: [Double]
        /// Each coordinate's response to each coefficient, C⁻¹·Sₓ (`p` fields of `n` values).
        let beta: [Double]
    }

    /// The smoothed fields, the regions' raw ones, the mesh's adjacency, the measured share of
    /// the noise the smoothing keeps, the noise samples and the groups' scales.
    struct SmoothedFields {
        let fields: [Double]
        let raw: [Double]
        let adjacency: Adjacency
        /// Each region's measured share of the noise its smoothing keeps.
        let ratios: [Double]
        /// Each region's smoothing passes.
        let passes: [Int]
        let noise: [[Double]]?
        let scales: [Double]
    }

    /// Step 1 of ``resting(_:triangles:supportTerms:)``: the coefficients that vary over the `count` averaged
    /// frames (weight sum `w`), widest spread first, at most a third of the frames, in index order.
    private func chosenCoefficients(count: Int, w: Double) -> [Int] {
        var candidates: [(k: Int, spread: Double)] = []
        for k in 0..<names.count where column[k] >= 0 {
            let m = sumWD[k] / w
            let v = sumWDD[k][k] / w - m * m
            if v > Self.minimumSpread * Self.minimumSpread { candidates.append((k, v.squareRoot())) }
        }
        candidates.sort { $0.spread != $1.spread ? $0.spread > $1.spread : $0.k < $1.k }
        let chosen = candidates.prefix(max(0, (count - 2) / 3)).map(\.k).sorted()
        return chosen
    }

    /// Step 2 of ``resting(_:triangles:supportTerms:)``: the weighted covariance C of the `chosen`
    /// coefficients over the averaged frames (weight sum `w`), `p × p`, row after row.
    private func covariance(_ chosen: [Int], w: Double) -> [Double] {
        let p = chosen.count
        // 2. Their weighted covariance C over the averaged frames, with a small ridge (both eyes
        //    blink together: collinear), inverted.
        var cov = [Double](repeating: 0, count: p * p)
        for a in 0..<p {
            for b in 0...a {
                let (ka, kb) = (chosen[a], chosen[b])
                let c = sumWDD[ka][kb] - sumWD[ka] * sumWD[kb] / w
                cov[a * p + b] = c
                cov[b * p + a] = c
            }
        }
        return cov
    }

    /// Step 3 of ``resting(_:triangles:supportTerms:)``: the shift to the resting expression by region and
    /// each group's mean expression against the whole, mapped through C⁻¹, and gᵣ per region.
    private func mappedShifts(_ acc: Accumulator, chosen: [Int], cov: [Double], inverse: [Double]) -> MappedShifts {
        let w = acc.weightSum, p = chosen.count
        // 3. The shift from the frames' weighted mean expression to the resting one, by region
        //    (eyes, brows, mouth, the rest: their sum is the whole shift), mapped through C⁻¹ (a
        //    vertex's correction is Sᵥ·C⁻¹·shift, Sᵥ its centred cross products); for each region
        //    gᵣ = sᵣᵀ C⁻¹ C C⁻¹ sᵣ scales the noise of its correction.
        var shift = [Double](repeating: 0, count: p)
        for a in 0..<p {
            let k = chosen[a]
            let values = offered.map { k < $0.count ? $0[k] : 0 - origin[k] }
            shift[a] = Self.quantile(values, Self.restQuantile) - sumWD[k] / w
        }
        let regionCount = MappedShifts.regionCount
        let gw = acc.groupWeightSums
        let filled = (0..<gw.count).filter { gw[$0] > 0 }
        // The fields to map: each region's share of the shift, each group's mean expression
        // against the whole (for the noise samples).
        var shifts: [[Double]] = []
        for r in 0..<regionCount {
            shifts.append((0..<p).map { Self.region(names[chosen[$0]]) == r ? shift[$0] : 0 })
        }
        for g in filled { shifts.append((0..<p).map { groupWD[g][chosen[$0]] / gw[g] - sumWD[chosen[$0]] / w }) }
        let fieldCount = shifts.count
        var mapped = [Double](repeating: 0, count: fieldCount * p)
        for f in 0..<fieldCount {
            for a in 0..<p {
                var s = 0.0
                for b in 0..<p { s += inverse[a * p + b] * shifts[f][b] }
                mapped[f * p + a] = s
            }
        }
        var gRegion = [Double](repeating: 0, count: regionCount)
        for r in 0..<regionCount {
            for a in 0..<p { for b in 0..<p { gRegion[r] += mapped[r * p + a] * cov[a * p + b] * mapped[r * p + b] } }
        }
        return MappedShifts(
            mapped: mapped, fieldCount: fieldCount, gRegion: gRegion, filled: filled, gw: gw,
            regionShifts: Array(shifts.prefix(regionCount)))
    }

    /// Step 4 of ``resting(_:triangles:supportTerms:)``: each coordinate's fields and the residual variance and
    /// explained sum of squares of its fit on the `chosen` coefficients.
    private func vertexFields(
        _ acc: Accumulator, chosen: [Int], inverse: [Double], mapped: [Double], fieldCount: Int
    ) -> VertexFit {
        let count = acc.count, n = width, p = chosen.count
        // 4. Each vertex: the fields (3 coordinates each) and the residual variance of the fit.
        let means = acc.means, m2 = acc.m2
        var fields = [Double](repeating: 0, count: fieldCount * n)
        var sigma2 = [Double](repeating: 0, count: n), explainedSS = sigma2
        let dof = Double(count - 1 - p)
        var beta = [Double](repeating: 0, count: p * n)
        var centred = [Double](repeating: 0, count: p)
        let crossSpan = cross.flat
        for x in 0..<n {
            centre(crossSpan, x: x, chosen: chosen, means: means, into: &centred)
            for f in 0..<fieldCount {
                var s = 0.0
                for a in 0..<p { s += centred[a] * mapped[f * p + a] }
                fields[f * n + x] = s
            }
            // The responses C⁻¹ S and the explained sum of squares Sᵀ C⁻¹ S.
            var explained = 0.0
            for a in 0..<p {
                var s = 0.0
                for b in 0..<p { s += inverse[a * p + b] * centred[b] }
                beta[a * n + x] = s
                explained += centred[a] * s
            }
            sigma2[x] = max(m2[x] - explained, 0) / dof
            explainedSS[x] = explained
        }
        return VertexFit(fields: fields, sigma2: sigma2, explainedSS: explainedSS, beta: beta)
    }

    /// Coordinate `x`'s sums with the `chosen` coefficients, centred on its mean
    /// (Σ w·d·x − x̄·Σ w·d), into `centred`: the right-hand side of both the fit and the supports.
    @inline(__always)
    private func centre(
        _ crossSpan: Span<Double>, x: Int, chosen: [Int], means: [Double], into centred: inout [Double]
    ) {
        let n = width
        for a in 0..<chosen.count {
            let k = chosen[a]
            centred[a] = crossSpan[column[k] * n + x] - means[x] * sumWD[k]
        }
    }

    /// Whether the `p` coefficients explain much more of some of the `n` coordinates' spread than
    /// chance would (the F ratio test of ``resting(_:triangles:supportTerms:)``).
    private static func explainsEnough(_ fit: VertexFit, p: Int, n: Int) -> Bool {
        let sigma2 = fit.sigma2, explainedSS = fit.explainedSS
        // The coefficients must explain much more of some vertices' spread than chance would:
        // the F ratio (explained variance per coefficient over the residual variance) of the
        // coordinates, at its 99.9th percentile, must exceed ``minimumF`` (chance: F(p, N − 1 − p),
        // whose 99.9th percentile is below 8 for any p ≤ 52 from 14 residual degrees of freedom on);
        // else the plain mean stands, bit for bit.
        var ratios: [Double] = []
        ratios.reserveCapacity(n)
        for x in 0..<n where sigma2[x] > 0 { ratios.append(explainedSS[x] / (Double(p) * sigma2[x])) }
        return !ratios.isEmpty && Self.quantileExceeds(ratios, 0.999, Self.minimumF)
    }

    /// Step 4b of ``resting(_:triangles:supportTerms:)``: which of the `chosen` coefficients measurably move
    /// each vertex (bit a of its mask for `chosen[a]`). Each coefficient's response field (the
    /// full model's C⁻¹·Sᵥ) is smoothed over the mesh; a vertex is in the coefficient's support
    /// where the smoothed response's squared length exceeds ``supportFactor`` times its
    /// ``supportQuantile`` over the face (the level of a field that is noise there: most of the
    /// face does not move with any one coefficient), and the support grows by ``supportRings``
    /// rings so that its edge is not cut short.
    private func supportMasks(beta: [Double], p: Int, adjacency: Adjacency) -> [UInt64] {
        let n = width, nv = n / 3
        let smooth = Self.smoothed(beta, fieldCount: p, adjacency: adjacency, passes: Self.smoothingPasses)
        var masks = [UInt64](repeating: 0, count: nv)
        var length2 = [Double](repeating: 0, count: nv)
        for a in 0..<p {
            for v in 0..<nv {
                let o = a * n + 3 * v
                length2[v] = smooth[o] * smooth[o] + smooth[o + 1] * smooth[o + 1] + smooth[o + 2] * smooth[o + 2]
            }
            let limit = Self.supportFactor * Self.quantile(length2, Self.supportQuantile)
            for v in 0..<nv where length2[v] > limit { masks[v] |= 1 << UInt64(a) }
        }
        for _ in 0..<Self.supportRings {
            var grown = masks
            for v in 0..<nv {
                for e in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                    grown[v] |= masks[Int(adjacency.neighbors[e])]
                }
            }
            masks = grown
        }
        return masks
    }

    /// Step 4c of ``resting(_:triangles:supportTerms:)``: each region's raw correction (the first regions'
    /// fields of `fields`) refitted at every vertex on the coefficients of its support alone:
    /// Sᵥ,g C_g⁻¹ s_r,g, g the vertex's mask, C_g the ridged covariance's block. A coefficient
    /// that does not move a vertex adds only noise to its correction (σ²/N·(c_rest − c̄)²/var c
    /// each), so a vertex carries only the terms its surface responds to.
    private func supportedFields(
        _ acc: Accumulator, chosen: [Int], ridged: [Double], shifts: [[Double]], masks: [UInt64],
        fields: inout [Double]
    ) {
        let n = width, nv = n / 3, p = chosen.count, means = acc.means
        let regionCount = shifts.count
        var cache: [UInt64: [Double]] = [:]
        var centred = [Double](repeating: 0, count: p)
        let crossSpan = cross.flat
        for v in 0..<nv {
            let mask = masks[v]
            let mapped: [Double]
            if let known = cache[mask] {
                mapped = known
            } else {
                mapped = Self.subMapped(ridged, p, mask: mask, shifts: shifts)
                cache[mask] = mapped
            }
            for i in 0..<3 {
                let x = 3 * v + i
                for a in 0..<p {
                    let k = chosen[a]
                    let inside = mask & (1 << UInt64(a)) != 0
                    centred[a] = inside ? crossSpan[column[k] * n + x] - means[x] * sumWD[k] : 0
                }
                for r in 0..<regionCount {
                    var s = 0.0
                    for a in 0..<p { s += centred[a] * mapped[r * p + a] }
                    fields[r * n + x] = s
                }
            }
        }
    }

    /// Each of `shifts` (`p` values) restricted to the coefficients in `mask` and mapped through
    /// the inverse of that block of the `p × p` matrix `ridged` (zero outside the mask; all zero
    /// for an empty mask or a singular block).
    static func subMapped(_ ridged: [Double], _ p: Int, mask: UInt64, shifts: [[Double]]) -> [Double] {
        let idx = (0..<p).filter { mask & (1 << UInt64($0)) != 0 }
        var out = [Double](repeating: 0, count: shifts.count * p)
        let q = idx.count
        guard q > 0 else { return out }
        var block = [Double](repeating: 0, count: q * q)
        for a in 0..<q { for b in 0..<q { block[a * q + b] = ridged[idx[a] * p + idx[b]] } }
        guard let inv = inverted(block, q) else { return out }
        for (r, s) in shifts.enumerated() {
            for a in 0..<q {
                var t = 0.0
                for b in 0..<q { t += inv[a * q + b] * s[idx[b]] }
                out[r * p + idx[a]] = t
            }
        }
        return out
    }

    /// Step 5 of ``resting(_:triangles:supportTerms:)``: `fields` and the noise probes smoothed over the mesh
    /// of `triangles`, each region's correction by the number of passes its own noise calls for,
    /// and the measured share of the noise the smoothing keeps for each region.
    private func smoothedFields(
        _ acc: Accumulator, _ rawFields: [Double], map: MappedShifts, adjacency: Adjacency
    ) -> SmoothedFields {
        let w = acc.weightSum, n = width
        let regionCount = MappedShifts.regionCount
        let filled = map.filled, gw = map.gw
        // 5. Smooth every field over the mesh (expression fields are smooth, sensor noise is not).
        //    How much the smoothing cuts the noise is measured, not assumed: the noise samples
        //    (the groups' means, each group's own expression taken out by the raw responses) are
        //    smoothed alike, and the ratio of their variances after and before is the share of the
        //    noise the smoothed correction keeps (near 1/20 for independent per-vertex noise after
        //    8 passes, more when the tracker's noise is itself smooth).
        let noise = acc.noiseSamples()
        let scales = filled.map { (gw[$0] / (Double(filled.count - 1) * w)).squareRoot() }
        var probes: [Double] = []
        if let samples = noise, samples.count == filled.count {
            for (sIndex, sample) in samples.enumerated().prefix(2) {
                let f = (regionCount + sIndex) * n
                for x in 0..<n { probes.append(sample[x] - rawFields[f + x] * scales[sIndex]) }
            }
        }
        // Σ_samples zᵀz estimates the trace of the mean's noise covariance; the probes are a
        // share of the samples.
        let traceScale = probes.isEmpty ? 0 : Double(filled.count) / Double(probes.count / n)
        let passes = passesChosen(
            rawFields, probes: probes, map: map, w: w, traceScale: traceScale, adjacency: adjacency)
        return SmoothedFields(
            fields: passes.fields, raw: Array(rawFields[0..<(regionCount * n)]), adjacency: adjacency,
            ratios: passes.ratios, passes: passes.passes, noise: noise, scales: scales)
    }

    /// Step 5's passes: every field and probe smoothed ``smoothingPasses`` times, one pass at a
    /// time; each region's correction kept at the pass count k (0 … ``smoothingPasses``) that
    /// minimises Stein's unbiased estimate of its error, ‖Lᵏy − y‖² + 2·tr(Lᵏ Σ_y) (Stein,
    /// *Ann. Stat.* 1981), the trace estimated from the noise probes z (E zᵀLᵏz = tr(Lᵏ Σ),
    /// Hutchinson 1989) scaled by the region's noise factor: Σ_y = g_r·W·Σ_mean. A sharp,
    /// well-measured response (an eyelid on a coarse mesh) keeps few passes, a faint one all.
    /// Without probes every region takes every pass.
    private func passesChosen(
        _ rawFields: [Double], probes: [Double], map: MappedShifts, w: Double, traceScale: Double,
        adjacency: Adjacency
    ) -> (fields: [Double], ratios: [Double], passes: [Int]) {
        let n = width, regionCount = MappedShifts.regionCount, fieldCount = map.fieldCount
        let probeCount = probes.count / n
        var all = rawFields + probes
        var best = rawFields
        var passes = [Int](repeating: 0, count: regionCount)
        var bestScore = [Double](repeating: .infinity, count: regionCount)
        var probeEnergy = [Double](repeating: 0, count: Self.smoothingPasses + 1)
        for k in 0...Self.smoothingPasses {
            if k > 0 {
                all = Self.smoothed(all, fieldCount: fieldCount + probeCount, adjacency: adjacency, passes: 1)
            }
            var zLz = 0.0, after = 0.0
            for x in 0..<probes.count {
                let s = all[fieldCount * n + x]
                zLz += probes[x] * s
                after += s * s
            }
            probeEnergy[k] = after
            for r in 0..<regionCount {
                var rss = 0.0
                for x in (r * n)..<((r + 1) * n) {
                    let d = all[x] - rawFields[x]
                    rss += d * d
                }
                let score = probes.isEmpty ? -Double(k) : rss + 2 * map.gRegion[r] * w * traceScale * zLz
                guard score < bestScore[r] else { continue }
                bestScore[r] = score
                passes[r] = k
                for x in (r * n)..<((r + 1) * n) { best[x] = all[x] }
            }
        }
        // The group fields (the noise samples' expression) take every pass.
        for x in (regionCount * n)..<(fieldCount * n) { best[x] = all[x] }
        let ratios = passes.map { k -> Double in
            guard probeEnergy[0] > 0 else { return k == 0 ? 1 : Self.smoothedVarianceRatio }
            return min(1, max(Self.smoothedVarianceRatio, probeEnergy[k] / probeEnergy[0]))
        }
        return (best, ratios, passes)
    }

    /// Step 6 of ``resting(_:triangles:supportTerms:)``: each region's shrinkage weight λ per vertex (how much
    /// of the `raw` correction the smoothed `fields` take back), smoothed over `adjacency`.
    private static func blendWeights(
        raw: [Double], fields: [Double], sigma2: [Double], gRegion: [Double], ratios: [Double],
        adjacency: Adjacency
    ) -> [Double] {
        let regionCount = MappedShifts.regionCount, nv = adjacency.vertexCount, n = 3 * nv
        // 6. Where a region's raw correction differs from its smoothed one by more than its own
        //    noise explains, the smoothing blurred a real, sharp response (an eyelid a few
        //    vertices wide): the correction takes that share of the raw one back, by the
        //    shrinkage weight λ = max(0, 1 − k·noise/difference²) (James & Stein 1961; a local
        //    Wiener filter), λ itself smoothed by two passes so that it varies smoothly.
        var lambda = [Double](repeating: 0, count: regionCount * nv)
        for r in 0..<regionCount where gRegion[r] > 0 {
            for v in 0..<nv {
                var d2 = 0.0, noise2 = 0.0
                for i in 0..<3 {
                    let x = 3 * v + i
                    let d = raw[r * n + x] - fields[r * n + x]
                    d2 += d * d
                    noise2 += sigma2[x]
                }
                noise2 *= Self.blendNoiseFactor * gRegion[r] * (1 - ratios[r])
                lambda[r * nv + v] = d2 > 0 ? max(0, 1 - noise2 / d2) : 0
            }
        }
        lambda = Self.smoothedScalar(lambda, fieldCount: regionCount, adjacency: adjacency, passes: Self.blendPasses)
        return lambda
    }

    /// Step 7 of ``resting(_:triangles:supportTerms:)``: the plain mean, standard errors and noise samples of
    /// `acc`, corrected at the vertices where a region's blended correction is significant.
    private func corrected(
        _ acc: Accumulator, chosen: [Int], map: MappedShifts, sigma2: [Double], smooth: SmoothedFields,
        lambda: [Double]
    ) -> RestingFace {
        let w = acc.weightSum, n = width, nv = n / 3, means = acc.means
        let regionCount = MappedShifts.regionCount, gRegion = map.gRegion, filled = map.filled
        let fields = smooth.fields, raw = smooth.raw, ratios = smooth.ratios, scales = smooth.scales
        var noise = smooth.noise
        // 7. Correct each vertex by the regions whose correction is significant there (χ², 3
        //    degrees of freedom, against the noise of the blended correction: λ²·raw + (1−λ)²·
        //    smoothed); elsewhere the mean, its standard error and its noise samples stay the plain
        //    ones, bit for bit.
        var mean = acc.mean()!
        var se = acc.standardErrors()
        var removed = [Double](repeating: 0, count: regionCount + 1)
        var modelled = 0
        for v in 0..<nv {
            var delta = SIMD3<Double>(0, 0, 0)
            var inflation = 1 / w
            var used = false
            for r in 0..<regionCount where gRegion[r] > 0 {
                let l = lambda[r * nv + v]
                let share = ratios[r] * (1 - l) * (1 - l) + l * l
                var chi2 = 0.0
                var c = SIMD3<Double>(0, 0, 0)
                for i in 0..<3 {
                    let x = 3 * v + i
                    guard sigma2[x] > 0 else { chi2 = 0; break }
                    c[i] = fields[r * n + x] + l * (raw[r * n + x] - fields[r * n + x])
                    chi2 += c[i] * c[i] / (sigma2[x] * gRegion[r] * share)
                }
                guard chi2 > Self.significance else { continue }
                used = true
                delta += c
                inflation += gRegion[r] * share
                removed[r] = max(removed[r], (c * c).sum().squareRoot())
            }
            guard used else { continue }
            modelled += 1
            let moved = SIMD3(means[3 * v], means[3 * v + 1], means[3 * v + 2]) + delta
            mean[v] = SIMD3(Float(moved.x), Float(moved.y), Float(moved.z))
            if se != nil {
                se![v] = ((sigma2[3 * v] + sigma2[3 * v + 1] + sigma2[3 * v + 2]) / 3 * inflation).squareRoot()
            }
            if noise != nil {
                for s in 0..<filled.count {
                    let f = (regionCount + s) * n
                    for i in 0..<3 { noise![s][3 * v + i] -= fields[f + 3 * v + i] * scales[s] }
                }
            }
            removed[regionCount] = max(removed[regionCount], (delta * delta).sum().squareRoot())
        }
        let summary = Report.Expression(
            coefficients: chosen.map { names[$0] }, verticesModelled: modelled,
            removedUm: Report.Expression.Regions(
                eyes: removed[0] * 1e6, brows: removed[1] * 1e6, mouth: removed[2] * 1e6, rest: removed[3] * 1e6,
                largest: removed[regionCount] * 1e6))
        return RestingFace(
            mean: mean, standardErrors: se, noiseSamples: noise, expression: summary, smoothingPasses: smooth.passes)
    }

    /// `fieldCount` fields of 3 values per vertex (field after field), each replaced `passes`
    /// times by the mean of the vertex and its neighbours.
    static func smoothed(_ fields: [Double], fieldCount: Int, adjacency: Adjacency, passes: Int) -> [Double] {
        var a = fields, b = fields
        for _ in 0..<passes {
            smoothPass(a, into: &b, fieldCount: fieldCount, adjacency: adjacency)
            swap(&a, &b)
        }
        return a
    }

    /// One pass of ``smoothed(_:fieldCount:adjacency:passes:)``: `dst` is `src` with each vertex's
    /// 3 values replaced by the mean of the vertex and its neighbours.
    private static func smoothPass(_ src: [Double], into dst: inout [Double], fieldCount: Int, adjacency: Adjacency) {
        let nv = adjacency.vertexCount, n = 3 * nv
        let offsets = adjacency.offsets.flat, neighbors = adjacency.neighbors.flat
        let o = src.flat
        var d = dst.flatMut
        for v in 0..<nv {
            let lo = Int(offsets[v]), hi = Int(offsets[v + 1])
            let scale = 1 / Double(1 + hi - lo)
            for f in 0..<fieldCount {
                let base = f * n
                var x = o[base + 3 * v], y = o[base + 3 * v + 1], z = o[base + 3 * v + 2]
                for e in lo..<hi {
                    let u = base + 3 * Int(neighbors[e])
                    x += o[u]
                    y += o[u + 1]
                    z += o[u + 2]
                }
                let t = base + 3 * v
                d[t] = x * scale
                d[t + 1] = y * scale
                d[t + 2] = z * scale
            }
        }
    }

    /// `fieldCount` scalar fields of one value per vertex (field after field), each replaced
    /// `passes` times by the mean of the vertex and its neighbours.
    static func smoothedScalar(_ fields: [Double], fieldCount: Int, adjacency: Adjacency, passes: Int) -> [Double] {
        var a = fields, b = fields
        let nv = adjacency.vertexCount
        let offsets = adjacency.offsets.flat, neighbors = adjacency.neighbors.flat
        for _ in 0..<passes {
            do {
                let o = a.flat
                var d = b.flatMut
                for f in 0..<fieldCount {
                    let base = f * nv
                    for v in 0..<nv {
                        let lo = Int(offsets[v]), hi = Int(offsets[v + 1])
                        var x = o[base + v]
                        for e in lo..<hi { x += o[base + Int(neighbors[e])] }
                        d[base + v] = x / Double(1 + hi - lo)
                    }
                }
            }
            swap(&a, &b)
        }
        return a
    }

    /// Whether the `q` quantile of `x` (as ``quantile(_:_:)``) exceeds `limit`, in O(n): only
    /// the two order statistics around the quantile's position matter, and only when they
    /// straddle the limit.
    package static func quantileExceeds(_ x: [Double], _ q: Double, _ limit: Double) -> Bool {
        guard !x.isEmpty else { return 0 > limit }
        let h = q * Double(x.count - 1)
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, x.count - 1)
        var above = 0, largestBelow = -Double.infinity, smallestAbove = Double.infinity
        for v in x {
            if v > limit {
                above += 1
                smallestAbove = min(smallestAbove, v)
            } else {
                largestBelow = max(largestBelow, v)
            }
        }
        // Ranks lo and hi (0-based, ascending) are above the limit when fewer than that many
        // values are at most the limit.
        let atMost = x.count - above
        if atMost <= lo { return true }  // s[lo] > limit
        if atMost > hi { return false }  // s[hi] ≤ limit
        // s[lo] = largestBelow ≤ limit < s[hi] = smallestAbove.
        return largestBelow + (h - Double(lo)) * (smallestAbove - largestBelow) > limit
    }

    /// The inverse of the symmetric positive-definite `p × p` matrix `a` (Gauss–Jordan with
    /// partial pivoting), or nil when it is singular.
    static func inverted(_ a: [Double], _ p: Int) -> [Double]? {
        var m = a
        var inv = [Double](repeating: 0, count: p * p)
        for i in 0..<p { inv[i * p + i] = 1 }
        for c in 0..<p {
            var pivot = c
            for r in c..<p where abs(m[r * p + c]) > abs(m[pivot * p + c]) { pivot = r }
            let d = m[pivot * p + c]
            guard d != 0, d.isFinite else { return nil }
            if pivot != c {
                for k in 0..<p {
                    m.swapAt(c * p + k, pivot * p + k)
                    inv.swapAt(c * p + k, pivot * p + k)
                }
            }
            for k in 0..<p {
                m[c * p + k] /= d
                inv[c * p + k] /= d
            }
            for r in 0..<p where r != c {
                let f = m[r * p + c]
                guard f != 0 else { continue }
                for k in 0..<p {
                    m[r * p + k] -= f * m[c * p + k]
                    inv[r * p + k] -= f * inv[c * p + k]
                }
            }
        }
        return inv
    }

    /// The `q` quantile of `x` (linear between order statistics, as numpy's default); 0 when empty.
    package static func quantile(_ x: [Double], _ q: Double) -> Double {
        guard !x.isEmpty else { return 0 }
        let s = x.sorted()
        let h = q * Double(s.count - 1)
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
    }

    static func median(_ x: [Double]) -> Double { RobustAccumulator.median(x) }
}

/// The averaged face with the expression model applied: the resting face, each vertex's standard
/// error (what the model leaves unexplained included), the noise samples for the automatic
/// smoothing, and what the model did.
package struct RestingFace: Sendable {
    /// The resting face, one position per vertex (float32, the frames' unit).
    package var mean: [SIMD3<Float>]
    /// Per-vertex standard error; nil with fewer than two averaged frames.
    package var standardErrors: [Double]?
    /// Samples of the noise left in `mean` (``Accumulator/noiseSamples()``, with the model's
    /// share of the groups' differences taken out).
    package var noiseSamples: [[Double]]?
    /// What the expression model did; nil when it did nothing (no coefficient varied).
    package var expression: Report.Expression?
    /// The smoothing passes each region's correction took (eyes, brows, mouth, the rest; 0 for a
    /// region without a shift); empty when the model did nothing.
    package var smoothingPasses: [Int] = []
}
