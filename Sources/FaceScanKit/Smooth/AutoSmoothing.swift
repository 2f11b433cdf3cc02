/// Chooses how many smoothing passes a capture gets from the noise measured in its own frames:
/// the pass count whose estimated error to the (unknown) true face is least, by Stein's unbiased
/// risk estimate (SURE).
///
/// For a smoother f and a mean face y = μ + e, the noise e of covariance Σ,
/// E‖f(y) − μ‖² = E[‖f(y) − y‖² − tr Σ + 2 tr(J Σ)], J the Jacobian of f at y. Everything on the
/// right is known: ‖f(y) − y‖² is how far the smoothing moved the mean face, and tr(J Σ) is
/// estimated from the accumulator's noise samples s (`Accumulator/noiseSamples()`), whose
/// Σₛ sᵀ J s is unbiased for it, with J s carried through the same smoothing alongside y (the
/// operator's derivative in direction s, `Taubin.Operator/pass(_:carrying:)`: the one the run
/// uses — bilateral weight, displacement bound and all — linearised at the mean face, so every
/// neighbour's bilateral weight is computed once for the face and all its samples). The samples keep the noise's spatial correlation: a whole-face
/// wobble that smoothing passes unchanged (J s ≈ s) counts as noise that stays, which a
/// per-vertex variance with independent noise would count as removable.
///
/// Only the component along the surface normal is scored (a surface's distance to the truth is
/// measured across it), each vertex weighted by its share of the surface area (a third of its
/// triangles' area), so the estimate is that of the mean squared surface error, not of the
/// vertex count's distribution.
package enum AutoSmoothing {
    /// The most passes `auto` considers.
    package static let maximumPasses = 8

    /// The chosen pass count and the estimate behind it.
    package struct Choice: Sendable, Equatable {
        /// Passes chosen.
        package var passes: Int
        /// Estimated RMS surface error (metres, along the normal, area-weighted) after k passes,
        /// k = 0, 1, … up to where the estimate stopped (see ``choose(mesh:adjacency:options:noise:maximumPasses:)``);
        /// nil when there was no noise estimate.
        package var estimatedError: [Double]?
        /// The mean face after ``passes`` passes (exactly `Taubin.smooth`'s result); nil when no
        /// pass was chosen or there was no noise estimate.
        package var smoothed: Mesh?

        /// One line for the verbose output: what was chosen and why.
        package var reason: String {
            guard let e = estimatedError else {
                return "smoothing: \(passes) passes (one averaged frame: no noise estimate, the fixed default)"
            }
            func um(_ k: Int) -> String { "\(Int((e[k] * 1e6).rounded())) µm" }
            let last = e.count - 1
            return "smoothing: \(passes) \(passes == 1 ? "pass" : "passes") chosen from the measured noise "
                + "(estimated error \(um(passes)); none \(um(0)), \(last) \(last == 1 ? "pass" : "passes") \(um(last)))"
        }
    }

    /// The pass count (0 … `maximumPasses`) with the least estimated error for `mesh` (the mean
    /// face) smoothed with `options` (its `iterations` ignored); `noise`: the accumulator's noise
    /// samples, nil with one frame (then the fixed default of 2 passes).
    ///
    /// The mean face and the perturbed copies are smoothed pass by pass together; once the
    /// estimate has risen for two passes after its least value the search stops (on the captures
    /// measured the estimate against the pass count fell to one minimum and rose after it).
    package static func choose(
        mesh: Mesh, adjacency: Adjacency, options: TaubinOptions, noise: [[Double]]?,
        maximumPasses: Int = maximumPasses
    ) -> Choice {
        guard let noise, !noise.isEmpty, mesh.vertexCount > 0 else {
            return Choice(passes: 2, estimatedError: nil, smoothed: nil)
        }
        let n = mesh.vertexCount
        let normals = mesh.vertexNormals().map { SIMD3<Double>($0) }
        let area = vertexAreas(mesh)
        let y = mesh.positions.map { SIMD3<Double>($0) }
        let op = Taubin.Operator(mesh, adjacency: adjacency, options: options)
        var base = op.start(y)
        // Per sample: its normal components, and its direction J_k s carried through the passes
        // with the mean face (flat vertex × sample + sample).
        let probes = noise.count
        var along = [Double](repeating: 0, count: n * probes)
        var start = [SIMD3<Double>](repeating: .zero, count: n * probes)
        var trace = 0.0  // tr Σ (normal part, area-weighted) = risk with no smoothing
        for (i, s) in noise.enumerated() {
            precondition(s.count == 3 * n, "one noise sample coordinate per vertex coordinate")
            for v in 0..<n {
                let sv = SIMD3(s[3 * v], s[3 * v + 1], s[3 * v + 2])
                let a = (sv * normals[v]).sum()
                along[v * probes + i] = a
                start[v * probes + i] = sv
                trace += area[v] * a * a
            }
        }
        var tangents = op.tangents(start, probes: probes)
        // risk_k = ‖f_k(y) − y‖² − tr Σ + 2 tr(J_k Σ), all along the normal and area-weighted.
        var risk = [trace]
        var best = 0
        var bestPositions: [SIMD3<Double>]?
        for k in 1...max(1, maximumPasses) {
            if k - best > 2 { break }
            op.pass(&base, carrying: &tangents)
            var fit = 0.0
            var div = 0.0
            let p = base.positions, js = tangents.directions
            for v in 0..<n {
                let d = ((p[v] - y[v]) * normals[v]).sum()
                fit += area[v] * d * d
                var sum = 0.0
                for i in 0..<probes { sum += along[v * probes + i] * (js[v * probes + i] * normals[v]).sum() }
                div += area[v] * sum
            }
            risk.append(fit - trace + 2 * div)
            if risk[k] < risk[best] {
                best = k
                bestPositions = base.positions
            }
        }
        var smoothed: Mesh?
        if let p = bestPositions {
            var out = mesh
            for v in 0..<n { out.positions[v] = SIMD3<Float>(p[v]) }
            smoothed = out
        }
        return Choice(passes: best, estimatedError: risk.map { max($0, 0).squareRoot() }, smoothed: smoothed)
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
