import FaceScanCore

/// Estimates how much sensor noise is left in the averaged face, before and after smoothing.
///
/// Before: the standard error of each vertex of the mean (frame-to-frame standard deviation /
/// √frames). After: a noise-only perturbation (``perturbation(standardErrors:)``: each vertex
/// moved along its normal by a deterministic Gaussian sample scaled by its standard error) is
/// carried through the smoothing's passes beside the face (the passes are linear in it) and what
/// is left of it is measured — the operator's noise gain on this very mesh (`Taubin.smooth`; with
/// automatic smoothing at each vertex's own pass count, `AutoSmoothing.Choice/residualNoise`).
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
}
