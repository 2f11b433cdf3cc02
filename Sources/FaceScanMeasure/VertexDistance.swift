import Dispatch
import FaceScanCore
import Synchronization

extension SurfaceDistance {
    /// The distance from every vertex of `a` to the nearest point of surface `b` (exact
    /// point–triangle distances through a `TriangleBVH`), in µm (`unitToMicrometres` converts
    /// the meshes' unit). Each slot depends only on its own vertex, so the result does not depend
    /// on how the queries were spread over threads. All `.infinity` when `b` has no triangle.
    /// - Complexity: O(m log m + n log m) for n vertices and m triangles.
    public static func perVertex(_ a: Mesh, to b: Mesh, unitToMicrometres: Double = 1e6) -> [Double] {
        // Coordinates near the float limits: as in symmetric(_:_:samplesPerMesh:seed:unitToMicrometres:).
        let k = Mesh.workingExponent(Swift.max(a.largestMagnitude, b.largestMagnitude))
        if k != 0 {
            return perVertex(
                a.scaled(byPowerOfTwo: -k), to: b.scaled(byPowerOfTwo: -k),
                unitToMicrometres: unitToMicrometres * Double(sign: .plus, exponent: k, significand: 1))
        }
        let n = a.vertexCount
        let bvh = TriangleBVH(b)
        guard !bvh.isEmpty, n > 0 else { return [Double](repeating: .infinity, count: n) }
        let chunk = 2048
        let chunks = (n + chunk - 1) / chunk
        let positions = a.positions
        // Each chunk's distances, handed over under a lock once the chunk is done.
        let parts = Mutex([[Double]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            var stack = TriangleBVH.makeStack(depth: bvh.depth)
            var part: [Double] = []
            part.reserveCapacity(chunk)
            for i in (c * chunk)..<Swift.min(n, (c + 1) * chunk) {
                part.append(
                    bvh.distanceSquared(to: SIMD3<Double>(positions[i]), stack: &stack).squareRoot()
                        * unitToMicrometres)
            }
            parts.withLock { $0[c] = part }
        }
        return Array(parts.withLock { $0 }.joined())
    }
}
