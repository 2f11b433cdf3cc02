/// Estimates how much sensor noise is left in the averaged face, before and after smoothing.
///
/// Before: the standard error of each vertex of the mean (frame-to-frame standard deviation /
/// √frames). After: the same smoothing is applied to a noise-only perturbation (each vertex moved
/// along its normal by a deterministic Gaussian sample scaled by its standard error) and the
/// residual of that perturbation is measured — the operator's noise gain on this very mesh. With
/// automatic smoothing the perturbation is carried through the passes beside the noise samples
/// and read at each vertex's own pass count (`AutoSmoothing.Choice/residualNoise`).
package enum NoiseEstimate {
    package static func rms(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return 0 }
        return (v.reduce(0) { $0 + $1 * $1 } / Double(v.count)).squareRoot()
    }

    /// The noise-only perturbation's length along each vertex normal: a deterministic Gaussian
    /// sample scaled by the vertex's standard error.
    package static func perturbation(standardErrors se: [Double]) -> [Double] {
        var rng = SplitMix64(seed: 0x853C_49E6_748F_EA9B)
        var e = [Double](repeating: 0, count: se.count)
        for v in se.indices { e[v] = rng.gaussian() * se[v] }
        return e
    }

    package static func measure(
        mesh: Mesh, smoothed: Mesh, standardErrors se: [Double], adjacency: Adjacency,
        options: TaubinOptions
    ) -> Report.Accuracy {
        let normals = mesh.vertexNormals()
        var noisy = mesh
        let e = perturbation(standardErrors: se)
        for v in 0..<mesh.vertexCount { noisy.positions[v] += normals[v] * Float(e[v]) }
        // The displacement bound is part of the operator; it applies around the noisy input.
        let s = Taubin.smooth(noisy, adjacency: adjacency, options: options)
        var sum = 0.0
        for v in 0..<mesh.vertexCount {
            let d = SIMD3<Double>(s.positions[v] - smoothed.positions[v])
            let along = (d * SIMD3<Double>(normals[v])).sum()
            sum += along * along
        }
        let after = (sum / Double(max(1, mesh.vertexCount))).squareRoot()
        return Report.Accuracy(noiseBeforeUm: rms(se) * 1e6, noiseAfterUm: after * 1e6)
    }
}
