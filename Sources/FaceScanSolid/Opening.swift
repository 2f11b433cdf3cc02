/// The opening of a shell's hollow: only what a ball reaches without touching the wall stays
/// hollow, so slots narrower than the ball's diameter (between a nostril's tube and the nose wing
/// behind it) fill up and a coarse back cannot cross itself there.
///
/// Inside the hollow the field is the distance to the wall, so the ball centres are the grid
/// points where it is at least the radius; the new field is the smaller of the old one and the
/// radius minus the distance to the nearest centre. That distance is the exact Euclidean distance
/// transform of the centres (Felzenszwalb & Huttenlocher 2012, "Distance transforms of sampled
/// functions": the lower envelope of parabolas, one pass per axis), so the cost is linear in the
/// grid's points whatever the radius: a ball as wide as a coarse back's edges costs what a small
/// one does.
extension LevelSetShell {
    /// `field` (layer-major, `nx` × `ny` × `nz`, spacing `h`) opened by a ball of `radius`. Below
    /// the bed the hollow goes on (the bed is open): every point under it is a centre. A point
    /// with no centre within `radius` + 2 spacings (rounded up to whole spacings) is solid, a
    /// finite depth below zero (an infinite one would give a NaN cut on an edge of a coarser
    /// extraction).
    static func opened(_ field: inout [Float], nx: Int, ny: Int, nz: Int, h: Double, radius: Double) {
        let reach = Int(((radius / h) + 2).rounded(.up))
        let r = Float(radius)
        // Squared distances in spacings are whole numbers; beyond `cap` they only need to be
        // known to be beyond it (capping the input of each pass keeps that true after it).
        let cap = Float((reach + 1) * (reach + 1))
        var squared = [Float](repeating: cap, count: nx * ny * nz)
        do {
            let src = field.flat
            var d = squared.flatMut
            for index in 0..<src.count where src[index] >= r { d[index] = 0 }
            Opening.transform(&d, nx: nx, ny: ny, nz: nz, cap: cap)
        }
        let far = Float(reach) * Float(h)
        let d = squared.flat
        var out = field.flatMut
        for index in 0..<out.count {
            let f = out[index]
            guard f > 0, f < r else { continue }  // wall, or a centre itself
            let d2 = Double(d[index])
            let nearest = d2 <= Double(reach * reach) ? Float(d2.squareRoot() * h) : far
            let g = r - min(nearest, far)
            if g < f { out[index] = g == 0 ? -1e-6 * Float(h) : g }
        }
    }
}

/// The separable squared Euclidean distance transform the opening uses.
enum Opening {
    /// `d` (0 at the sites, `cap` elsewhere) becomes the squared distance in spacings to the
    /// nearest site, capped at `cap`, with a plane of sites one layer below the grid (the bed).
    static func transform(_ d: inout MutableSpan<Float>, nx: Int, ny: Int, nz: Int, cap: Float) {
        var line = Line(capacity: max(nx, ny, nz + 1))
        // Along x, then y, then z; z with the plane below prepended as a site.
        for k in 0..<nz {
            for j in 0..<ny { line.run(&d, start: (k * ny + j) * nx, stride: 1, count: nx, cap: cap, bed: false) }
        }
        for k in 0..<nz {
            for i in 0..<nx { line.run(&d, start: k * ny * nx + i, stride: nx, count: ny, cap: cap, bed: false) }
        }
        for j in 0..<ny {
            for i in 0..<nx { line.run(&d, start: j * nx + i, stride: nx * ny, count: nz, cap: cap, bed: true) }
        }
    }

    /// The 1-D lower envelope of parabolas, with its scratch allocated once.
    struct Line {
        var f: [Double], v: [Int], z: [Double]

        init(capacity: Int) {
            f = [Double](repeating: 0, count: capacity)
            v = [Int](repeating: 0, count: capacity)
            z = [Double](repeating: 0, count: capacity + 1)
        }

        /// The `count` values of `d` from `start`, `stride` apart, transformed in place; with
        /// `bed`, a site (value 0) one step before the first.
        mutating func run(
            _ d: inout MutableSpan<Float>, start: Int, stride: Int, count: Int, cap: Float, bed: Bool
        ) {
            Self.envelope(&d, start: start, stride: stride, count: count, cap: cap, bed: bed, f: &f, v: &v, z: &z)
        }

        /// ``run(_:start:stride:count:cap:bed:)`` with the scratch `f`, `v`, `z`.
        static func envelope(
            _ d: inout MutableSpan<Float>, start: Int, stride: Int, count: Int, cap: Float, bed: Bool,
            f: inout [Double], v: inout [Int], z: inout [Double]
        ) {
            let offset = bed ? 1 : 0
            let n = count + offset
            var f = f.flatMut
            var v = v.flatMut
            var z = z.flatMut
            if bed { f[0] = 0 }
            var any = bed
            for q in 0..<count {
                let x = Double(d[start + q * stride])
                f[q + offset] = x
                if x < Double(cap) { any = true }
            }
            guard any else { return }
            // Only the sites below the cap are parabolas.
            var k = -1
            for q in 0..<n where f[q] < Double(cap) {
                let fq = f[q] + Double(q * q)
                if k < 0 {
                    k = 0
                    v[0] = q
                    z[0] = -.infinity
                    z[1] = .infinity
                    continue
                }
                var s = (fq - (f[v[k]] + Double(v[k] * v[k]))) / Double(2 * (q - v[k]))
                while s <= z[k] && k > 0 {
                    k -= 1
                    s = (fq - (f[v[k]] + Double(v[k] * v[k]))) / Double(2 * (q - v[k]))
                }
                if s <= z[k] {
                    // k == 0 and the new parabola lies below the first everywhere.
                    v[0] = q
                    z[0] = -.infinity
                    z[1] = .infinity
                    continue
                }
                k += 1
                v[k] = q
                z[k] = s
                z[k + 1] = .infinity
            }
            var at = 0
            for q in offset..<n {
                while z[at + 1] < Double(q) { at += 1 }
                let dq = Double(q - v[at])
                d[start + (q - offset) * stride] = Float(min(Double(cap), dq * dq + f[v[at]]))
            }
        }
    }
}
