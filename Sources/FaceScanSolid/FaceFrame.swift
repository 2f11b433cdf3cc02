import FaceScanCore
import FaceScanMeasure

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A face's own axes, found from its surface: the forward axis (where the face looks) and the
/// symmetry plane (left–right), so a face turned or tilted in its capture's coordinates is cut and
/// laid on the bed as if it looked straight along +z.
///
/// Recipe:
/// 1. **Forward, first guess**: the area-weighted mean of the face normals.
/// 2. **Symmetry plane** by mirror ICP: the surface's vertices (a strided sample) are reflected in
///    the current plane, each reflection is matched with the nearest point of the surface
///    (``TriangleBVH``), and the plane is refitted to the matched pairs (its normal the mean
///    direction between them, through their midpoints), the worst fifth of the pairs left out
///    (a scan's outline is not symmetric). Started from the two principal directions across the
///    forward guess and from the capture's own x axis; the fit with the least residual is kept.
/// 3. **Axes**: right = the plane's normal; forward = the mean normal with its right component
///    removed; up = forward × right, its sign chosen to agree with the capture's +y.
///
/// Every step is equivariant: a capture turned by any rotation gives the same face in its frame.
enum FaceFrame {
    enum Constants {
        /// Vertices sampled for the mirror fit.
        static let samples = 800
        /// Rounds of the mirror fit per start, and for the best start.
        static let roundsPerStart = 3
        static let finalRounds = 8
        /// Share of the matched pairs kept (the nearest).
        static let keep = 0.8
    }

    /// The rotation taking the capture's coordinates into the face's frame (rows: right, up,
    /// forward), in `Double`.
    struct Rotation: Sendable, Equatable {
        var right: SIMD3<Double>
        var up: SIMD3<Double>
        var forward: SIMD3<Double>

        static let identity = Rotation(right: [1, 0, 0], up: [0, 1, 0], forward: [0, 0, 1])

        func apply(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3(dot3(right, p), dot3(up, p), dot3(forward, p)) }

        /// The turn in degrees as a reader pictures it: yaw (forward turned toward +x), pitch
        /// (forward raised toward +y), roll (right raised toward +y), each in the capture's axes.
        var degrees: Solidify.Turn {
            let deg = 180 / Double.pi
            return Solidify.Turn(
                yaw: atan2(forward.x, forward.z) * deg, pitch: asin(max(-1, min(1, forward.y))) * deg,
                roll: asin(max(-1, min(1, right.y))) * deg)
        }
    }

    /// The face's frame; identity when the surface has no area.
    static func estimate(_ mesh: Mesh) -> Rotation {
        guard mesh.triangleCount > 0 else { return .identity }
        var normalSum = SIMD3<Double>.zero
        for t in 0..<mesh.triangleCount {
            let (i, j, k) = mesh.triangle(t)
            let a = SIMD3<Double>(mesh.positions[Int(i)]), b = SIMD3<Double>(mesh.positions[Int(j)])
            normalSum += cross3(b - a, SIMD3<Double>(mesh.positions[Int(k)]) - a)
        }
        let length = norm3(normalSum)
        guard length > 0, length.isFinite else { return .identity }
        let guess = normalSum / length
        // A strided sample of the vertices and their centroid.
        let stride = max(1, mesh.vertexCount / Constants.samples)
        var points: [SIMD3<Double>] = []
        points.reserveCapacity(mesh.vertexCount / stride + 1)
        var centroid = SIMD3<Double>.zero
        for v in Swift.stride(from: 0, to: mesh.vertexCount, by: stride) {
            let p = SIMD3<Double>(mesh.positions[v])
            points.append(p)
            centroid += p
        }
        centroid /= Double(points.count)
        let bvh = TriangleBVH(mesh)
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        // Starts: the principal directions across the guess, and the capture's x axis.
        var starts = principalAcross(points, centroid: centroid, forward: guess)
        let x = SIMD3<Double>(1, 0, 0) - guess.x * guess
        if norm3(x) > 1e-6 { starts.append(x / norm3(x)) }
        var best: (normal: SIMD3<Double>, offset: Double, residual: Double)? = nil
        for start in starts {
            var plane = (normal: start, offset: dot3(start, centroid), residual: Double.infinity)
            for _ in 0..<Constants.roundsPerStart {
                if Cancellation.requested { return .identity }  // the caller throws
                plane = mirrorFit(points, plane.normal, plane.offset, bvh: bvh, stack: &stack)
            }
            if best == nil || plane.residual < best!.residual { best = plane }
        }
        guard var plane = best else { return .identity }
        for _ in 0..<Constants.finalRounds {
            plane = mirrorFit(points, plane.normal, plane.offset, bvh: bvh, stack: &stack)
        }
        var right = plane.normal
        var forward = guess - dot3(guess, right) * right
        guard norm3(forward) > 1e-6 else { return .identity }
        forward /= norm3(forward)
        var up = cross3(forward, right)
        if up.y < 0 {
            right = -right
            up = -up
        }
        guard right.x.isFinite, up.x.isFinite, forward.x.isFinite else { return .identity }
        return Rotation(right: right, up: up / norm3(up), forward: forward)
    }

    /// One round of the mirror fit: the plane (unit normal, offset) refitted to the pairs (point,
    /// nearest surface point to its reflection), the worst `Constants/keep` left out.
    static func mirrorFit(
        _ points: [SIMD3<Double>], _ normal: SIMD3<Double>, _ offset: Double, bvh: TriangleBVH,
        stack: inout [(node: Int32, distance: Double)]
    ) -> (normal: SIMD3<Double>, offset: Double, residual: Double) {
        var pairs: [(miss: Double, point: SIMD3<Double>, match: SIMD3<Double>)] = []
        pairs.reserveCapacity(points.count)
        for p in points {
            let mirrored = p - 2 * (dot3(normal, p) - offset) * normal
            let q = bvh.closestPoint(to: mirrored, stack: &stack)
            let d = q - mirrored
            pairs.append((dot3(d, d), p, q))
        }
        // A fixed order for equal misses (same input, same frame).
        pairs.sort { $0.miss < $1.miss || ($0.miss == $1.miss && $0.point.x < $1.point.x) }
        let kept = pairs.prefix(max(3, Int(Double(pairs.count) * Constants.keep)))
        var direction = SIMD3<Double>.zero
        var residual = 0.0
        for pair in kept {
            let d = pair.point - pair.match
            direction += dot3(d, normal) >= 0 ? d : -d
            residual += pair.miss
        }
        let length = norm3(direction)
        guard length > 0, length.isFinite else { return (normal, offset, residual) }
        let n = direction / length
        var mid = 0.0
        for pair in kept { mid += dot3(n, 0.5 * (pair.point + pair.match)) }
        return (n, mid / Double(kept.count), residual / Double(kept.count))
    }

    /// The two principal directions of `points` in the plane across `forward` (unit vectors).
    static func principalAcross(_ points: [SIMD3<Double>], centroid: SIMD3<Double>, forward: SIMD3<Double>)
        -> [SIMD3<Double>]
    {
        // A basis (e1, e2) of the plane across forward, then the 2×2 covariance in it.
        let helper: SIMD3<Double> = abs(forward.x) < 0.9 ? [1, 0, 0] : [0, 1, 0]
        var e1 = helper - dot3(helper, forward) * forward
        e1 /= norm3(e1)
        let e2 = cross3(forward, e1)
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in points {
            let d = p - centroid
            let u = dot3(d, e1), v = dot3(d, e2)
            sxx += u * u
            sxy += u * v
            syy += v * v
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        let a = cos(angle) * e1 + sin(angle) * e2
        let b = -sin(angle) * e1 + cos(angle) * e2
        return [a, b]
    }
}
