extension DecimationCore {
    /// One vertex moving (to the placement of a collapse, or to its quadric's minimum), as
    /// ``keepsShape(_:_:_:_:_:)`` checks it against each triangle around it: read once per fan.
    struct Move {
        let vertex: UInt32
        let from: SIMD3<Float>
        let to: SIMD3<Float>
        /// The input's normal around the vertex (after a collapse, around both merged ones),
        /// scaled by `shapeScale²`.
        let reference: SIMD3<Float>
        let referenceLength2: Float

        @inline(__always)
        init(_ core: DecimationCore, _ vertex: UInt32, to p: SIMD3<Float>, reference: SIMD3<Float>) {
            self.vertex = vertex
            from = core.pos[Int(vertex)]
            to = p
            self.reference = reference * (core.shapeScale * core.shapeScale)
            referenceLength2 = (self.reference * self.reference).sum()
        }
    }

    /// The triangles around one moving vertex waiting for ``fourKeepShape(_:_:)``: the other two
    /// corners of each, in winding order (`corners[i]`, `corners[4 + i]`), in memory the caller
    /// provides (``slots`` entries; scalar stores, which later scalar loads read back directly).
    struct ShapeBatch {
        static let slots = 8
        let corners: ScratchRun<UInt32>
        var count = 0

        @inline(__always)
        init(_ corners: ScratchRun<UInt32>) { self.corners = corners }
    }

    /// Adds triangle `(x, y, z)` around `move.vertex` to `batch`; checks the batch once it holds
    /// four. False when a checked triangle would not keep its shape (see ``fourKeepShape(_:_:)``).
    @inline(__always)
    func keepsShape(_ x: UInt32, _ y: UInt32, _ z: UInt32, _ move: Move, _ batch: inout ShapeBatch) -> Bool {
        // Selects, not branches: where the vertex sits in the triangle is random.
        let c = move.vertex
        let atX = x == c, atY = y == c
        batch.corners[batch.count] = atX ? y : (atY ? z : x)
        batch.corners[4 + batch.count] = atX ? z : (atY ? x : y)
        batch.count += 1
        guard batch.count == 4 else { return true }
        batch.count = 0
        return fourKeepShape(batch, move)
    }

    /// Checks the triangles left in `batch` (``keepsShape(_:_:_:_:_:)``), and empties it.
    @inline(__always)
    func flushShapes(_ batch: inout ShapeBatch, _ move: Move) -> Bool {
        guard batch.count > 0 else { return true }
        // Slots past the last triangle repeat the first.
        for i in batch.count..<4 {
            batch.corners[i] = batch.corners[0]
            batch.corners[4 + i] = batch.corners[4]
        }
        batch.count = 0
        return fourKeepShape(batch, move)
    }

    /// Whether the four triangles `(move.vertex, corners[i], corners[4 + i])` of `batch` keep their orientation
    /// when `move.vertex` moves to `move.to`: each normal turns by less than
    /// acos(minNormalCosine), still faces the side `move.reference` points to, and the triangle
    /// stays well away from degenerate. One triangle per lane, in Float: the edge vectors are
    /// differences of Float positions (nearly exact), scaled by a power of two (``shapeScale``,
    /// exact) so that products of four stay far from Float's underflow and overflow whatever the
    /// mesh's units. Not inlined: called once per four triangles, it keeps the fan walks that
    /// call ``keepsShape(_:_:_:_:_:)`` small enough to be inlined into the collapse loop.
    @inline(never)
    func fourKeepShape(_ batch: ShapeBatch, _ move: Move) -> Bool {
        typealias V = SIMD4<Float>
        let c = batch.corners
        let pb0 = pos[Int(c[0])], pb1 = pos[Int(c[1])], pb2 = pos[Int(c[2])], pb3 = pos[Int(c[3])]
        let pd0 = pos[Int(c[4])], pd1 = pos[Int(c[5])], pd2 = pos[Int(c[6])], pd3 = pos[Int(c[7])]
        let bx = V(pb0.x, pb1.x, pb2.x, pb3.x), by = V(pb0.y, pb1.y, pb2.y, pb3.y), bz = V(pb0.z, pb1.z, pb2.z, pb3.z)
        let dx = V(pd0.x, pd1.x, pd2.x, pd3.x), dy = V(pd0.y, pd1.y, pd2.y, pd3.y), dz = V(pd0.z, pd1.z, pd2.z, pd3.z)
        let k = V(repeating: shapeScale)
        let from = move.from, to = move.to, ref = move.reference
        // Before the move: n0 = (b − c) × (d − c); after: n1 = f1 × f2, f1 = b − p, f2 = d − p.
        let e1x = (bx - V(repeating: from.x)) * k, e1y = (by - V(repeating: from.y)) * k,
            e1z = (bz - V(repeating: from.z)) * k
        let e2x = (dx - V(repeating: from.x)) * k, e2y = (dy - V(repeating: from.y)) * k,
            e2z = (dz - V(repeating: from.z)) * k
        let n0x = e1y * e2z - e1z * e2y, n0y = e1z * e2x - e1x * e2z, n0z = e1x * e2y - e1y * e2x
        let f1x = (bx - V(repeating: to.x)) * k, f1y = (by - V(repeating: to.y)) * k,
            f1z = (bz - V(repeating: to.z)) * k
        let f2x = (dx - V(repeating: to.x)) * k, f2y = (dy - V(repeating: to.y)) * k,
            f2z = (dz - V(repeating: to.z)) * k
        let n1x = f1y * f2z - f1z * f2y, n1y = f1z * f2x - f1x * f2z, n1z = f1x * f2y - f1y * f2x
        let dp = n0x * n1x + n0y * n1y + n0z * n1z
        let l1 = n1x * n1x + n1y * n1y + n1z * n1z
        let dr = n1x * V(repeating: ref.x) + n1y * V(repeating: ref.y) + n1z * V(repeating: ref.z)
        let l0 = n0x * n0x + n0y * n0y + n0z * n0z
        let g1 = f1x * f1x + f1y * f1y + f1z * f1z, g2 = f2x * f2x + f2y * f2y + f2z * f2z
        let minRef = V(repeating: Float(Tuning.minReferenceCosine * Tuning.minReferenceCosine))
        let minNormal = V(repeating: Float(Tuning.minNormalCosine * Tuning.minNormalCosine))
        let minSine = V(repeating: Float(Tuning.minSineSquared))
        let zero = V()
        // Written as the negations of the rejections, so that a NaN anywhere rejects.
        let facesOn = .!(dp .<= zero)
        let facesOut = .!(dr .<= zero) .& .!(dr * dr .<= minRef * l1 * V(repeating: move.referenceLength2))
        let turnsLittle = .!(dp * dp .< minNormal * l0 * l1)
        let notSliver = l1 .> minSine * g1 * g2
        // Shape: the smallest corner's sin² is |n|² over the largest product of two edges' squares.
        let e3x = (bx - dx) * k, e3y = (by - dy) * k, e3z = (bz - dz) * k
        let g3 = e3x * e3x + e3y * e3y + e3z * e3z
        let h1 = e1x * e1x + e1y * e1y + e1z * e1z, h2 = e2x * e2x + e2y * e2y + e2z * e2z
        let after = Self.max4(g1 * g2, Self.max4(g1 * g3, g2 * g3))
        let before = Self.max4(h1 * h2, Self.max4(h1 * g3, h2 * g3))
        let wellShaped = l1 .>= V(repeating: qualitySineSquared) * after
        let notWorse = l1 * before .>= l0 * after
        return all(facesOn .& facesOut .& turnsLittle .& notSliver .& (wellShaped .| notWorse))
    }

    /// `pointwiseMax(a, b)` as four lane selects: the standard library's generic version is a
    /// call and a scalar loop per use here (8 % of the decimation's profile). The same result in
    /// every lane, NaN included (`Float.maximum`: `a` where `a > b` or `b` is NaN, else `b`).
    @inline(__always)
    static func max4(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        b.replacing(with: a, where: (a .> b) .| (b .!= b))
    }
}
