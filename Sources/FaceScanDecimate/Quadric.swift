// The quadric error metric of Garland and Heckbert (SIGGRAPH 1997) with Lindstrom's regularised
// placement (SIGGRAPH 2000): see QuadricSimplifier.swift.

/// A symmetric quadric `Q(x) = xᵀAx + 2bᵀx + c` stored as its 10 distinct coefficients, in double.
struct Quadric {
    var a00 = 0.0, a01 = 0.0, a02 = 0.0, a11 = 0.0, a12 = 0.0, a22 = 0.0
    var b0 = 0.0, b1 = 0.0, b2 = 0.0, c = 0.0

    /// `w · (n·x + d)²` for the plane `n·x + d = 0` (`n` of unit length).
    @inline(__always)
    init(plane n: SIMD3<Double>, d: Double, weight w: Double) {
        let wn = w * n
        a00 = wn.x * n.x
        a01 = wn.x * n.y
        a02 = wn.x * n.z
        a11 = wn.y * n.y
        a12 = wn.y * n.z
        a22 = wn.z * n.z
        b0 = wn.x * d
        b1 = wn.y * d
        b2 = wn.z * d
        c = w * d * d
    }

    init() {}

    /// `(p.xyz · x + p.w)²`: the quadric of a plane scaled by the square root of its weight.
    @inline(__always)
    init(scaledPlane p: SIMD4<Double>) {
        self.init(plane: SIMD3(p.x, p.y, p.z), d: p.w, weight: 1)
    }

    @inline(__always)
    package mutating func add(_ q: Quadric) {
        a00 += q.a00
        a01 += q.a01
        a02 += q.a02
        a11 += q.a11
        a12 += q.a12
        a22 += q.a22
        b0 += q.b0
        b1 += q.b1
        b2 += q.b2
        c += q.c
    }

    @inline(__always)
    func evaluate(_ p: SIMD3<Double>) -> Double {
        let x = p.x, y = p.y, z = p.z
        let quad = a00 * x * x + a11 * y * y + a22 * z * z + 2 * (a01 * x * y + a02 * x * z + a12 * y * z)
        return quad + 2 * (b0 * x + b1 * y + b2 * z) + c
    }

    /// The point minimising `Q(x)` when `A` is well conditioned (its determinant at least
    /// `Tuning.exactDeterminant · trace³`), else `Q(x) + ε|x − m|²` with `ε` a small fraction of
    /// `trace(A)`: the point nearest `m` along directions `Q` leaves (almost) free, such as flat or
    /// ridge regions. Never worse than `m` in `Q`. `nil` when not finite.
    @inline(__always)
    func regularisedMinimum(near m: SIMD3<Double>) -> SIMD3<Double>? {
        let trace = a00 + a11 + a22
        guard trace > 0 else { return nil }
        // Cofactors of A; when A is well conditioned they solve it directly (the same arithmetic
        // as the regularised branch with ε = 0).
        var c00 = a11 * a22 - a12 * a12
        var c01 = a02 * a12 - a01 * a22
        var c02 = a01 * a12 - a02 * a11
        var det = a00 * c00 + a01 * c01 + a02 * c02
        var m00 = a00, m11 = a11, m22 = a22
        var r0 = -b0, r1 = -b1, r2 = -b2
        if !(det > QuadricSimplifier.Tuning.exactDeterminant * trace * trace * trace) {
            let eps = trace * QuadricSimplifier.Tuning.regularisation
            m00 = a00 + eps
            m11 = a11 + eps
            m22 = a22 + eps
            r0 = eps * m.x - b0
            r1 = eps * m.y - b1
            r2 = eps * m.z - b2
            c00 = m11 * m22 - a12 * a12
            c01 = a02 * a12 - a01 * m22
            c02 = a01 * a12 - a02 * m11
            det = m00 * c00 + a01 * c01 + a02 * c02
            guard det > 0 else { return nil }
        }
        let c11 = m00 * m22 - a02 * a02
        let c12 = a01 * a02 - m00 * a12
        let c22 = m00 * m11 - a01 * a01
        let inv = 1 / det
        let x =
            SIMD3<Double>(
                c00 * r0 + c01 * r1 + c02 * r2,
                c01 * r0 + c11 * r1 + c12 * r2,
                c02 * r0 + c12 * r1 + c22 * r2) * inv
        guard x.x.isFinite, x.y.isFinite, x.z.isFinite else { return nil }
        return x
    }
}
