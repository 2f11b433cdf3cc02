import FaceScanCore
import FaceScanMeasure

/// Where a shell's back crosses its front, the back is pushed off it: the wall only thickens.
extension LevelSetShell {
    /// Where a back triangle crosses the front (a coarse back's flat triangle over a bump of the
    /// front, as behind a mouth's corner), its vertices move away from their nearest front points
    /// by `Constants/pushStep` thickness, for at most `Constants/pushRounds` rounds, each
    /// looking only at the triangles around what the last one moved: the wall only thickens.
    static func pushOut(
        _ solid: inout Mesh, front: Mesh, backTriangles: Range<Int>, fixed: [Bool], thickness: Double,
        bvh: TriangleBVH
    ) {
        let n = front.vertexCount
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        var flags = [Bool](repeating: false, count: solid.triangleCount)
        for t in backTriangles { flags[t] = true }
        for _ in 0..<Constants.pushRounds {
            var push = [SIMD3<Double>](repeating: .zero, count: solid.vertexCount - n)
            var amount = [Double](repeating: 0, count: push.count)
            // Crossing: a quarter thickness away from the front at each vertex.
            for pair in SelfIntersection.pairs(solid, only: flags) {
                let (a, b) = (Int(min(pair.x, pair.y)), Int(max(pair.x, pair.y)))
                guard a < front.triangleCount, backTriangles.contains(b) else { continue }
                for c in 0..<3 {
                    let v = Int(solid.triangles[3 * b + c]) - n
                    guard v >= 0, !fixed[v] else { continue }
                    let q = SIMD3<Double>(solid.positions[n + v])
                    let d = q - bvh.closestPoint(to: q, stack: &stack)
                    let l = norm3(d)
                    let by = Constants.pushStep * thickness
                    if l > 0 && by > amount[v] {
                        amount[v] = by
                        push[v] = (by / l) * d
                    }
                }
            }
            var moved = [Bool](repeating: false, count: push.count)
            var any = false
            for v in push.indices where amount[v] > 0 {
                var q = SIMD3<Double>(solid.positions[n + v]) + push[v]
                q.z = max(q.z, Constants.bedMargin * thickness)
                solid.positions[n + v] = SIMD3<Float>(q)
                moved[v] = true
                any = true
            }
            guard any else { return }
            for t in backTriangles {
                flags[t] = false
                for c in 0..<3 where moved[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
            // A moved vertex's neighbours' triangles tilt as well.
            var near = moved
            for t in backTriangles where flags[t] {
                for c in 0..<3 { near[Int(solid.triangles[3 * t + c]) - n] = true }
            }
            for t in backTriangles {
                for c in 0..<3 where near[Int(solid.triangles[3 * t + c]) - n] { flags[t] = true }
            }
        }
    }
}
