/// Makes a shell's wall at least as thick as asked: the back surface is pushed out to the level
/// set of the distance to the front surface wherever it lies closer than that.
///
/// Recipe (on the back surface the normal offset and its crossing repair left): every back vertex
/// off the bed whose nearest front point is nearer than ``Constants/margin`` × the thickness is
/// moved along the direction away from that point, to that distance (a projection onto the offset
/// surface; the distance may stay larger: a thicker wall prints). Between projections the moved
/// vertices and a ring around them slide along the offset surface toward their neighbours' mean
/// (tangential smoothing), which untangles the swallowtails where the face curves more tightly
/// than the thickness. Last, where the moved back crosses anything, the vertices involved and
/// their neighbours go back, half way and then all the way, round after round (every moved vertex
/// in the last round, should crossings remain), so the solid never crosses more than before.
enum WallThickness {
    enum Constants {
        /// Distance aimed at, in thicknesses: a little over one, so that the back's flat triangles
        /// between vertices at that distance stay at least the thickness away on curved parts.
        static let margin = 1.04
        /// Projection passes (smoothing passes in between).
        static let passes = 20
        /// Fraction of the tangential move toward the neighbours' mean per smoothing pass.
        static let smoothing = 0.5
        /// Rounds of "find crossings → put the vertices involved back": half way back in the
        /// first ``halfwayRounds``, then all the way (each such round puts back at least one
        /// vertex, so the crossings run out), and every moved vertex in the last round.
        static let revertRounds = 24
        static let halfwayRounds = 7
    }

    /// Moves the back vertices `n ..< 2n` of `solid` (vertex `n + v` behind front vertex `v`);
    /// `front` is the front surface (the first `n` vertices), `fixed` the vertices that stay (the
    /// rim on the bed), `bed` the lowest height a moved back vertex may take.
    static func thicken(
        _ solid: inout Mesh, front: Mesh, adjacency: Adjacency, fixed: [Bool], thickness: Double, bed: Double
    ) {
        let n = front.vertexCount
        guard n > 0, solid.vertexCount == 2 * n else { return }
        let bvh = TriangleBVH(front)
        guard !bvh.isEmpty else { return }
        var stack = TriangleBVH.makeStack(depth: bvh.depth)
        let old = solid.positions[n..<(2 * n)].map { SIMD3<Double>($0) }
        var x = old
        var away = [SIMD3<Double>](repeating: .zero, count: n)
        var active = [Bool](repeating: false, count: n)
        let target = Constants.margin * thickness
        for pass in 0...Constants.passes {
            var moved = false
            for v in 0..<n where !fixed[v] {
                let c = bvh.closestPoint(to: x[v], stack: &stack)
                let d = x[v] - c
                let l = norm3(d)
                // On the front: no direction to move in.
                guard l > 1e-9 * thickness else { continue }
                away[v] = d / l
                guard l < target else { continue }
                var q = c + target * away[v]
                q.z = max(q.z, bed)
                x[v] = q
                active[v] = true
                moved = true
            }
            guard moved, pass < Constants.passes else { break }
            // The moved vertices and a ring around them slide toward their neighbours' mean.
            var region = active
            for v in 0..<n where active[v] {
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                    region[Int(adjacency.neighbors[k])] = true
                }
            }
            let src = x
            for v in 0..<n where region[v] && !fixed[v] && away[v] != .zero {
                let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
                guard hi > lo else { continue }
                var mean = SIMD3<Double>.zero
                for k in lo..<hi { mean += src[Int(adjacency.neighbors[k])] }
                let delta = mean / Double(hi - lo) - src[v]
                var q = src[v] + Constants.smoothing * delta
                q.z = max(q.z, bed)
                x[v] = q
            }
        }
        // Put back what crosses.
        var changed = [Bool](repeating: false, count: n)
        var anyChange = false
        for v in 0..<n {
            let q = SIMD3<Float>(x[v])
            if q != solid.positions[n + v] {
                solid.positions[n + v] = q
                changed[v] = true
                anyChange = true
            }
        }
        guard anyChange else { return }
        let tc = solid.triangleCount
        for round in 0..<Constants.revertRounds {
            var flags = [Bool](repeating: false, count: tc)
            for t in 0..<tc {
                for c in 0..<3 {
                    let v = Int(solid.triangles[3 * t + c])
                    if v >= n && changed[v - n] { flags[t] = true }
                }
            }
            let crossings = SelfIntersection.pairs(solid, only: flags)
            guard !crossings.isEmpty else { return }
            var revert = [Bool](repeating: round == Constants.revertRounds - 1, count: n)
            for pair in crossings {
                for t in [Int(pair.x), Int(pair.y)] {
                    for c in 0..<3 {
                        let v = Int(solid.triangles[3 * t + c])
                        guard v >= n else { continue }
                        revert[v - n] = true
                        for k in Int(adjacency.offsets[v - n])..<Int(adjacency.offsets[v - n + 1]) {
                            revert[Int(adjacency.neighbors[k])] = true
                        }
                    }
                }
            }
            // Half way back first, then all the way.
            let last = round >= Constants.halfwayRounds
            for v in 0..<n where revert[v] && changed[v] {
                if last {
                    solid.positions[n + v] = SIMD3<Float>(old[v])
                    changed[v] = false
                } else {
                    solid.positions[n + v] = SIMD3<Float>(0.5 * (old[v] + SIMD3<Double>(solid.positions[n + v])))
                }
            }
        }
    }
}
