import FaceScanCore

/// Removes a surface's own crossings by local smoothing, before it is closed into a solid.
///
/// A scanned face crosses itself where two sheets press together: the corners of closed lips, an
/// eyelid margin. Any back surface offset behind such a spot crosses the front too (the offset of
/// a sheet that passes through another passes through it as well), so a shell there either adds
/// crossings or is cut away (the cut moves forward until the crossing spot is gone, leaving only
/// the nose). Recipe: the vertices of the crossing triangles and their neighbours move half way to
/// the mean of their neighbours (boundary vertices stay), round after round, until nothing
/// crosses; the state with the fewest crossings is kept. On the ICT sample (9 409 vertices) the
/// 165 crossing pairs at the lip corners are gone after 4 rounds; decimated to 5 000 vertices,
/// its 37 pairs are gone with 87 vertices moved, by at most 1.6 mm (about half an edge there).
enum Untangle {
    enum Constants {
        /// Most smoothing rounds.
        static let rounds = 12
        /// Fraction of the move toward the neighbours' mean per round.
        static let step: Float = 0.5
    }

    /// `surface` with its own crossings smoothed away where possible, and how many crossing pairs
    /// remain (never more than before).
    static func untangled(_ surface: Mesh) -> (mesh: Mesh, crossings: Int) {
        var crossings = SelfIntersection.pairs(surface)
        guard !crossings.isEmpty else { return (surface, 0) }
        let n = surface.vertexCount
        let adjacency = Adjacency(triangles: surface.triangles, vertexCount: n)
        var boundary = [Bool](repeating: false, count: n)
        for v in 0..<n where adjacency.boundaryOffsets[v + 1] > adjacency.boundaryOffsets[v] { boundary[v] = true }
        var best = (mesh: surface, crossings: crossings.count)
        var mesh = surface
        for round in 1...Constants.rounds {
            var seeds: [Int] = []
            for pair in crossings { seeds += [Int(pair.x), Int(pair.y)] }
            let moved = relax(&mesh, around: seeds, adjacency: adjacency, fixed: boundary)
            // Only the triangles the round moved are searched again: a pair of unmoved ones
            // crosses as it did (the same pairs as a search of the whole surface, in less time).
            var touched = [Bool](repeating: false, count: mesh.triangleCount)
            for t in 0..<mesh.triangleCount {
                let (a, b, c) = mesh.triangle(t)
                touched[t] = moved[Int(a)] || moved[Int(b)] || moved[Int(c)]
            }
            let kept = crossings.filter { !touched[Int($0.x)] && !touched[Int($0.y)] }
            let before = crossings.count
            crossings = kept + SelfIntersection.pairs(mesh, only: touched)
            // Smoothing may fold a sliver flat: such a state is not kept.
            if crossings.count < best.crossings, !hasFlatTriangle(mesh) {
                best = (mesh, crossings.count)
            }
            if crossings.isEmpty
                || hopeless(before: before, after: crossings.count, roundsLeft: Constants.rounds - round)
            {
                break
            }
        }
        return best
    }

    /// Whether smoothing that took the crossings from `before` to `after` in a round would leave
    /// some after `roundsLeft` more rounds at that rate: a crumpled surface (a strip of random
    /// heights refined to 3 416 vertices: 1 032 pairs, 84 fewer a round) is not smoothed for
    /// rounds that cannot clear it, each a crossing search of most of the surface. A round that
    /// did not lower the count says nothing yet (smoothing first tilts the triangles around a
    /// lip's corner further into each other).
    static func hopeless(before: Int, after: Int, roundsLeft: Int) -> Bool {
        after < before && (before - after) * roundsLeft < after
    }

    /// One smoothing round: the vertices of `triangles` and their neighbours (but `fixed` ones)
    /// move `Constants/step` of the way to the mean of their neighbours; which vertices moved.
    @discardableResult
    static func relax(_ mesh: inout Mesh, around triangles: [Int], adjacency: Adjacency, fixed: [Bool]) -> [Bool] {
        let n = mesh.vertexCount
        var seed = [Bool](repeating: false, count: n)
        for t in triangles {
            for c in 0..<3 { seed[Int(mesh.triangles[3 * t + c])] = true }
        }
        var region = seed
        for v in 0..<n where seed[v] {
            for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                region[Int(adjacency.neighbors[k])] = true
            }
        }
        let src = mesh.positions
        var moved = [Bool](repeating: false, count: n)
        let p = src.flat
        for v in 0..<n where region[v] && !fixed[v] {
            let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
            guard hi > lo else { continue }
            moved[v] = true
            var mean = SIMD3<Float>.zero
            for k in lo..<hi { mean += p[Int(adjacency.neighbors[k])] }
            mesh.positions[v] = p[v] + Constants.step * (mean / Float(hi - lo) - p[v])
        }
        return moved
    }

    /// Whether a triangle has lost its area: after ``relax(_:around:adjacency:fixed:)``, which
    /// moves vertices but keeps the triangles, the only way to become degenerate (as ``MeshCheck``
    /// counts it, without its edge analysis).
    static func hasFlatTriangle(_ mesh: Mesh) -> Bool {
        (0..<mesh.triangleCount).contains { mesh.faceNormal($0) == .zero }
    }
}
