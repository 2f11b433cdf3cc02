// Double-precision 3-vector helpers every geometric step shares (decimation, refinement, the
// closest-point search, the solid's steps): written once so that every step rounds alike. Sums
// run x, then y, then z.

/// The cross product u × v.
@inlinable @inline(__always) package func cross3(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
}

/// The dot product u · v.
@inlinable @inline(__always) package func dot3(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double {
    u.x * v.x + u.y * v.y + u.z * v.z
}

/// The length of u.
@inlinable @inline(__always) package func norm3(_ u: SIMD3<Double>) -> Double { dot3(u, u).squareRoot() }
