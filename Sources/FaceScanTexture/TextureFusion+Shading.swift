import FaceScanCore

/// The scene's light as the fused images show it, and its removal (docs/ALGORITHMS.md,
/// "Colour: the light"). The images are the skin lit by the scene: besides the exposure and tint
/// the light estimate states, a face is brighter where it faces the light. Modelled as Lambertian
/// skin under an ambient light and one distant light, the shading of a point with world normal N
/// is `(1 − k) + k · max(0, N · L)`, 1 where the point faces the light squarely (the light
/// estimate's exposure is what such a point receives). L and k are fitted to the fused texture's
/// luminance over its known texels: the skin's own pattern does not follow the normal, so over
/// the face it averages out (Basri & Jacobs 2003: a Lambertian object's image is close to a
/// low-order function of its normals). A texel's normal is its triangle's, averaged over the
/// frames that saw it.
struct Shading: Sendable, Equatable {
    /// Unit direction towards the light, world space.
    var direction: SIMD3<Double>
    /// The directional light's share of the light on a point that faces it, 0…``maximumShare``.
    var share: Double

    /// The largest share believed: beyond it the fit is taken to be the skin's pattern.
    static let maximumShare = 0.5
    /// Below this share the light is taken as ambient only (nothing undone).
    static let minimumShare = 0.01
    /// The least standard deviation of the normals (in each direction) a fit needs.
    static let minimumSpread = 0.05
    /// A texel whose luminance is further than this (as a ratio) from the fit's is left out of
    /// the next round.
    static let outlierRatio = 0.3
    /// Fewer known texels than this: no fit.
    static let minimumTexels = 1_000

    /// The shading of a point with unit world normal `n`.
    func factor(_ n: SIMD3<Float>) -> Float {
        let d = max(0, Double(n.x) * direction.x + Double(n.y) * direction.y + Double(n.z) * direction.z)
        return Float(1 - share + share * d)
    }

    /// The fit on `colour` (linear RGB per texel of the `size²` texture) where `known`: weighted
    /// least squares of luminance on (1, N), repeated over the texels that the fitted light
    /// reaches (there max(0, N · L) is N · L: the model is linear in N) and that the fit
    /// explains within ``outlierRatio``. Nil when the fit does not show a directional light.
    static func fit(fusion: TextureFusion, colour: [SIMD3<Float>], known: [Bool]) -> Shading? {
        let normals = fusion.unitNormals()
        // The texels the fit can use, in texel order: (normal, luminance) and weight (texels seen
        // often and squarely count more: their fused weight, bounded).
        var points: [SIMD4<Double>] = [], weights: [Double] = []
        for i in 0..<fusion.texel.count {
            let e = Int(fusion.inTexelOrder[i])  // the sums in texel order, whatever the layout
            let k = Int(fusion.texel[e])
            guard known[k] else { continue }
            let n = normals[Int(fusion.tri[e])]
            guard n != .zero else { continue }
            let c = colour[k]
            let y = 0.2126 * Double(c.x) + 0.7152 * Double(c.y) + 0.0722 * Double(c.z)
            points.append(SIMD4(Double(n.x), Double(n.y), Double(n.z), y))
            weights.append(Double(min(fusion.sum[e].w, 4)))
        }
        var beta: [Double]? = nil
        for _ in 0..<8 {
            guard let next = fitRound(points, weights, beta: beta), next[0] > 0 else { return nil }
            beta = next
        }
        guard let b = beta else { return nil }
        let d = SIMD3(b[1], b[2], b[3])
        let len = norm3(d)
        let share = len / (b[0] + len)
        guard len > 0, share >= minimumShare else { return nil }
        return Shading(direction: d / len, share: min(maximumShare, share))
    }

    /// One round of the fit: weighted least squares of luminance on (1, N) over `points`
    /// ((N, luminance)), after the first round only where `beta`'s light reaches and explains
    /// the luminance within ``outlierRatio``; nil with fewer than ``minimumTexels`` or a singular system.
    static func fitRound(_ points: [SIMD4<Double>], _ weights: [Double], beta: [Double]?) -> [Double]? {
        // Rows of AᵀA and Aᵀb, A's rows (1, N) weighted.
        var a0 = SIMD4<Double>(), a1 = a0, a2 = a0, a3 = a0, atb = a0
        var used = 0
        let direction = beta.map { b in SIMD3(b[1], b[2], b[3]) / max(norm3(SIMD3(b[1], b[2], b[3])), 1e-12) }
        let b = beta ?? [0, 0, 0, 0]
        for (p, w) in zip(points, weights) {
            let nd = SIMD3(p.x, p.y, p.z), y = p.w
            if let l = direction {
                // Where the fitted light reaches, and not an outlier of the fit (the
                // background at the silhouette, a dark spot, a clipped highlight).
                guard dot3(nd, l) > 0 else { continue }
                let predicted = b[0] + b[1] * nd.x + b[2] * nd.y + b[3] * nd.z
                guard predicted > 0, abs(y / predicted - 1) < outlierRatio else { continue }
            }
            let x = SIMD4<Double>(1, nd.x, nd.y, nd.z)
            let wx = w * x
            atb += wx * y
            a0 += wx.x * x
            a1 += wx.y * x
            a2 += wx.z * x
            a3 += wx.w * x
            used += 1
        }
        let ata = [a0, a1, a2, a3].flatMap { [$0.x, $0.y, $0.z, $0.w] }
        guard used >= minimumTexels else { return nil }
        return solve4(ata, [atb.x, atb.y, atb.z, atb.w])
    }

    /// Divides every known texel of `colour` by its shading.
    func undo(fusion: TextureFusion, colour: inout [SIMD3<Float>], known: [Bool]) {
        let normals = fusion.unitNormals()
        for e in 0..<fusion.texel.count {
            let k = Int(fusion.texel[e])
            guard known[k] else { continue }
            let n = normals[Int(fusion.tri[e])]
            guard n != .zero else { continue }
            colour[k] /= factor(n)
        }
    }

    /// x of A x = b for a symmetric 4×4 A (row-major, A₀₀ the number of texels), by Gaussian
    /// elimination with partial pivoting; nil when A is singular or nearly so: the normals must
    /// vary by more than ``minimumSpread`` (standard deviation) in every direction the light's
    /// fit needs, or it would follow the skin's pattern (a flat or a cylindrical patch).
    static func solve4(_ a: [Double], _ b: [Double]) -> [Double]? {
        var m = a, r = b
        let floor = minimumSpread * minimumSpread * max(a[0], 1)
        for col in 0..<4 {
            var pivot = col
            for row in (col + 1)..<4 where abs(m[4 * row + col]) > abs(m[4 * pivot + col]) { pivot = row }
            guard abs(m[4 * pivot + col]) > (col == 0 ? 0 : floor) else { return nil }
            if pivot != col {
                for j in 0..<4 { m.swapAt(4 * col + j, 4 * pivot + j) }
                r.swapAt(col, pivot)
            }
            for row in (col + 1)..<4 {
                let f = m[4 * row + col] / m[4 * col + col]
                for j in col..<4 { m[4 * row + j] -= f * m[4 * col + j] }
                r[row] -= f * r[col]
            }
        }
        var x = [Double](repeating: 0, count: 4)
        for row in stride(from: 3, through: 0, by: -1) {
            var s = r[row]
            for j in (row + 1)..<4 { s -= m[4 * row + j] * x[j] }
            x[row] = s / m[4 * row + row]
        }
        return x
    }
}

extension TextureFusion {
    /// Each triangle's world normal averaged over the fused frames, unit length (zero where no
    /// frame saw the triangle).
    func unitNormals() -> [SIMD3<Float>] {
        normalSum.map { n in
            let len = (n * n).sum().squareRoot()
            return len > 0 ? n / len : .zero
        }
    }
}
