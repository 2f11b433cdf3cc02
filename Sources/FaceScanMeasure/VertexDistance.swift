import Dispatch
import FaceScanCore

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
        var out = [Double](repeating: .infinity, count: n)
        let bvh = TriangleBVH(b)
        guard !bvh.isEmpty, n > 0 else { return out }
        let chunk = 2048
        let positions = a.positions
        out.withUnsafeMutableBufferPointer { buffer in
            let slots = DisjointSlots(base: buffer)
            DispatchQueue.concurrentPerform(iterations: (n + chunk - 1) / chunk) { c in
                var stack = TriangleBVH.makeStack(depth: bvh.depth)
                for i in (c * chunk)..<Swift.min(n, (c + 1) * chunk) {
                    slots.base[i] =
                        bvh.distanceSquared(to: SIMD3<Double>(positions[i]), stack: &stack).squareRoot()
                        * unitToMicrometres
                }
            }
        }
        return out
    }
}
