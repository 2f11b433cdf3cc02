import Dispatch
import FaceScanCore
import Synchronization

/// Surface-to-surface error between two meshes, in micrometres.
public struct SurfaceError: Sendable, Equatable {
    /// Root mean square of the sampled distances, µm.
    public var rms: Double
    /// Largest sampled distance (a sampled, symmetric Hausdorff distance), µm.
    public var max: Double
    /// Mean sampled distance, µm.
    public var mean: Double
}

/// Symmetric surface distance between two triangle meshes, measured the way metro/meshdiff do:
/// sample points uniformly by area on each surface and take each point's exact distance to the
/// other surface.
public enum SurfaceDistance {
    /// The most samples ``symmetric(_:_:samplesPerMesh:seed:unitToMicrometres:)`` takes per mesh.
    public static let maximumSamples = 10_000_000

    /// Symmetric distance; `unitToMicrometres` converts the meshes' unit to µm (1e6 for metres, 1e3 for mm).
    ///
    /// Recipe: sample `samplesPerMesh` points on `a` (seed `seed`) and on `b` (seed `seed + 1`)
    /// → build a `TriangleBVH` over each mesh → for every point, the exact distance to the nearest
    /// triangle of the other mesh (Ericson's closest point on a triangle) → rms, max and mean over
    /// all 2 × `samplesPerMesh` distances, summed in sample order (so the result does not depend on
    /// how the queries were spread over threads).
    ///
    /// `samplesPerMesh` is clamped to 1…``maximumSamples``. A mesh without area has no samples: the result is all zeros when both have none, infinite
    /// when only one has none.
    /// - Complexity: O((n + m) log(n + m) + samplesPerMesh · log(n + m)) for n and m triangles.
    public static func symmetric(
        _ a: Mesh, _ b: Mesh, samplesPerMesh: Int = 100_000, seed: UInt64 = 1, unitToMicrometres: Double = 1e6
    ) -> SurfaceError {
        // Coordinates near the float limits: both meshes at the working size (one exact power of
        // two, Mesh+Magnitude.swift), the distances scaled back.
        let k = Mesh.workingExponent(Swift.max(a.largestMagnitude, b.largestMagnitude))
        if k != 0 {
            return symmetric(
                a.scaled(byPowerOfTwo: -k), b.scaled(byPowerOfTwo: -k), samplesPerMesh: samplesPerMesh, seed: seed,
                unitToMicrometres: unitToMicrometres * Double(sign: .plus, exponent: k, significand: 1))
        }
        let samplesPerMesh = Swift.min(Swift.max(samplesPerMesh, 1), maximumSamples)
        // 1–2. Samples on each surface and a hierarchy over each mesh (the two meshes in parallel).
        let built = Mutex<[Side?]>([nil, nil])
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let mesh = k == 0 ? a : b
            let side = Side(
                samples: SurfaceSampler.sample(mesh, count: samplesPerMesh, seed: seed &+ UInt64(k)),
                bvh: TriangleBVH(mesh))
            built.withLock { $0[k] = side }
        }
        let sides = built.withLock { $0 }
        let onA = sides[0]!.samples, bvhA = sides[0]!.bvh
        let onB = sides[1]!.samples, bvhB = sides[1]!.bvh
        if onA.isEmpty && onB.isEmpty { return SurfaceError(rms: 0, max: 0, mean: 0) }
        if onA.isEmpty || onB.isEmpty { return SurfaceError(rms: .infinity, max: .infinity, mean: .infinity) }

        // 3. Distances, in parallel chunks; each slot depends only on its own sample.
        let total = onA.count + onB.count
        let chunk = 4096
        let chunks = (total + chunk - 1) / chunk
        let depth = Swift.max(bvhA.depth, bvhB.depth)
        let parts = Mutex([[Double]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            let i0 = c * chunk
            var stack = TriangleBVH.makeStack(depth: depth)
            var part: [Double] = []
            part.reserveCapacity(chunk)
            for i in i0..<Swift.min(total, i0 + chunk) {
                let d2 =
                    i < onA.count
                    ? bvhB.distanceSquared(to: onA[i], stack: &stack)
                    : bvhA.distanceSquared(to: onB[i - onA.count], stack: &stack)
                part.append(d2.squareRoot())
            }
            parts.withLock { $0[c] = part }
        }
        let distances = parts.withLock { $0 }.joined()

        // 4. Reduce in sample order.
        var sum = 0.0, sum2 = 0.0, largest = 0.0
        for d in distances {
            sum += d
            sum2 += d * d
            largest = Swift.max(largest, d)
        }
        let count = Double(total)
        return SurfaceError(
            rms: (sum2 / count).squareRoot() * unitToMicrometres, max: largest * unitToMicrometres,
            mean: sum / count * unitToMicrometres)
    }
}

private struct Side: Sendable {
    var samples: [SIMD3<Double>]
    var bvh: TriangleBVH
}
