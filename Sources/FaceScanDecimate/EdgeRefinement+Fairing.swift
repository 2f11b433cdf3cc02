import FaceScanCore

// Fairing of the refined surface: two Gauss–Seidel sweeps of discrete bi-Laplacian smoothing on
// the new vertices only.
//
// L. Kobbelt, S. Campagna, J. Vorsatz and H.-P. Seidel, "Interactive multi-resolution modeling on
// arbitrary meshes", SIGGRAPH 1998: the umbrella operator U(p) = mean of p's neighbours − p, its
// square U², and the update p ← p − U²(p) / ν with ν = 1 + (1 / n) Σ 1 / nⱼ (n, nⱼ the
// valences of p and of its neighbours) lower the thin-plate energy Σ |U(p)|² with the other
// points held. Each PN point follows the normals of its own edge only, so the refined surface
// still turns at the coarse edges (shallow creases along them, the facets of the coarse mesh seen
// through); the sweeps spread those turns over the new vertices around them. The input's
// vertices stay fixed (the result still interpolates the capture), and so do the boundary's
// vertices. Around the input's folds (lips, eyelids, nostrils) the sweeps move the new vertices
// too: a move that would make any crease sharper than the input's sharpest is undone there.

extension EdgeRefinement {
    /// Gauss–Seidel sweeps of the bi-Laplacian update over the new vertices. Two half steps
    /// (``fairingStep``) lower the sharpest creases of the refined samples and bring the ICT face
    /// nearer its dense truth; more or longer steps move it away (the figures and their command:
    /// docs/ALGORITHMS.md, "Refinement of a coarse face").
    static let fairingSweeps = 2
    /// Share of the bi-Laplacian step each vertex takes in a sweep.
    static let fairingStep = 0.5
    /// Rounds of undoing moves that sharpen a crease past the input's sharpest before every new
    /// vertex goes back to its PN point (never reached on the samples: one or two rounds do).
    static let fairingUndoRounds = 16
    /// Fairing runs only when refinement at least multiplies the vertex count by this: below,
    /// the new vertices stand alone between input vertices, with no coarse facet around them to
    /// smooth, and the PN point is the better guess (fairing the ICT neutral face refined from
    /// 9 409 to 10 000 vertices moves it further from its dense truth).
    static let fairingRatio = 2
}

extension EdgeRefinement.State {
    /// Moves the vertices added by refinement (indices from `inputCount` on) by
    /// ``EdgeRefinement/fairingSweeps`` Gauss–Seidel sweeps of the bi-Laplacian (see the file's header),
    /// all but those on the boundary. A move that leaves a dihedral angle sharper than the
    /// input's sharpest (``creaseCosine``) is undone around that edge, round after round until
    /// none is (after ``EdgeRefinement/fairingUndoRounds`` every move is undone), so fairing
    /// makes no crease sharper than the input's.
    /// Nothing moves when the mesh has fewer than ``EdgeRefinement/fairingRatio`` times
    /// `inputCount` vertices. Sequential and in index order: the same input gives the same bytes.
    mutating func fair(inputCount: Int) {
        let n = positions.count
        guard n >= EdgeRefinement.fairingRatio * inputCount, EdgeRefinement.fairingSweeps > 0 else { return }
        // 1. Neighbours of every vertex (CSR, in half-edge order), and the boundary's vertices.
        let (start, neighbours, boundary) = MeshTopology.rings(triangles: triangles, twin: twin, vertexCount: n)
        // 2. Which vertices move: the new ones inside.
        var free = [Bool](repeating: false, count: n)
        var moved = false
        for v in inputCount..<n where !boundary[v] {
            free[v] = true
            moved = true
        }
        guard moved else { return }
        // 3. The sweeps, in Float (as the positions).
        var x = positions
        Self.bilaplacianSweeps(
            &x, start: start, neighbours: neighbours, free: free, boundary: boundary, from: inputCount)
        // 4. No crease sharper than the input's sharpest.
        guard undoSharpCreases(&x, free: &free) else { return }  // every new vertex keeps its PN point
        for v in inputCount..<n where free[v] { positions[v] = x[v] }
    }

    /// ``EdgeRefinement/fairingSweeps`` Gauss–Seidel sweeps over `x`: U for every vertex (zero on
    /// the boundary, whose umbrella is one-sided), then each free vertex from `inputCount` on, in
    /// index order, steps from its neighbours' U, and its own U and its neighbours' follow the
    /// step. `start`/`neighbours`: the rings (CSR) of ``MeshTopology/rings(triangles:twin:vertexCount:)``.
    static func bilaplacianSweeps(
        _ x: inout [SIMD3<Float>], start: [Int32], neighbours: [Int32], free: [Bool], boundary: [Bool],
        from inputCount: Int
    ) {
        let n = x.count
        var u = [SIMD3<Float>](repeating: .zero, count: n)
        var inverseValence = [Float](repeating: 0, count: n)
        for v in 0..<n {
            let c = Int(start[v + 1] - start[v])
            inverseValence[v] = c > 0 ? 1 / Float(c) : 0
        }
        let rate = Float(EdgeRefinement.fairingStep)
        let st = start.flat
        let nb = neighbours.flat
        let fr = free.flat
        let bd = boundary.flat
        var p = x.flatMut
        var um = u.flatMut
        let iv = inverseValence.flat
        for v in 0..<n where !bd[v] {
            var s = SIMD3<Float>.zero
            for k in Int(st[v])..<Int(st[v + 1]) { s += p[Int(nb[k])] }
            um[v] = s * iv[v] - p[v]
        }
        for _ in 0..<EdgeRefinement.fairingSweeps {
            for v in inputCount..<n where fr[v] {
                relax(v, &p, &um, iv, st, nb, bd, rate: rate)
            }
        }
    }

    /// One Gauss–Seidel step of vertex `v`: `p[v]` moves by `rate` of the bi-Laplacian update,
    /// and the umbrellas `um` of `v` and of its neighbours off the boundary follow the move.
    @inline(__always)
    static func relax(
        _ v: Int, _ p: inout MutableSpan<SIMD3<Float>>, _ um: inout MutableSpan<SIMD3<Float>>,
        _ iv: Span<Float>, _ st: Span<Int32>, _ nb: Span<Int32>, _ bd: Span<Bool>, rate: Float
    ) {
        var s = SIMD3<Float>.zero, w: Float = 0
        for k in Int(st[v])..<Int(st[v + 1]) {
            let j = Int(nb[k])
            s += um[j]
            w += iv[j]
        }
        // U²(p) and its diagonal ν = 1 + (1 / n) Σ 1 / nⱼ.
        let u2 = s * iv[v] - um[v]
        let step = -rate * u2 / (1 + w * iv[v])
        p[v] += step
        um[v] -= step
        for k in Int(st[v])..<Int(st[v + 1]) where !bd[Int(nb[k])] {
            let j = Int(nb[k])
            um[j] += step * iv[j]
        }
    }

    /// Where a dihedral angle of the faired `x` is sharper than the input's sharpest
    /// (``creaseCosine``), the four vertices of its two triangles go back to their PN points and
    /// stop being `free`; round after round, at most ``EdgeRefinement/fairingUndoRounds``.
    /// Returns whether a round undid nothing (false: the caller keeps every PN point).
    func undoSharpCreases(_ x: inout [SIMD3<Float>], free: inout [Bool]) -> Bool {
        let tc = triangles.count / 3
        var normal = [SIMD3<Float>](repeating: .zero, count: tc)
        var movedCorner = [Bool](repeating: false, count: tc)
        for _ in 0..<EdgeRefinement.fairingUndoRounds {
            var undone = false
            let tri = triangles.flat
            let tw = twin.flat
            var p = x.flatMut
            var fr = free.flatMut
            var nm = normal.flatMut
            var mc = movedCorner.flatMut
            Self.faceNormals(tri, &p, &fr, normals: &nm, movedCorner: &mc)
            undone = undoRound(tri, tw, &p, &fr, normals: &nm, movedCorner: &mc)
            if !undone { return true }
        }
        return false
    }

    /// Per triangle of `tri`, a normal (not unit) at positions `p`, and whether a corner is free.
    static func faceNormals(
        _ tri: Span<UInt32>, _ p: inout MutableSpan<SIMD3<Float>>, _ fr: inout MutableSpan<Bool>,
        normals nm: inout MutableSpan<SIMD3<Float>>, movedCorner mc: inout MutableSpan<Bool>
    ) {
        for t in 0..<nm.count {
            let a = Int(tri[3 * t]), b = Int(tri[3 * t + 1]), c = Int(tri[3 * t + 2])
            mc[t] = fr[a] || fr[b] || fr[c]
            let e1 = p[b] - p[a], e2 = p[c] - p[a]
            nm[t] = SIMD3<Float>(
                e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z,
                e1.x * e2.y - e1.y * e2.x)
        }
    }

    /// One round of ``undoSharpCreases(_:free:)``: per interior edge with a moved corner, a dot
    /// product of its triangles' normals, its sign, and only for the few edges past a right angle
    /// (the input's sharpest crease is past it on a face) the lengths. Returns whether a vertex
    /// went back.
    func undoRound(
        _ tri: Span<UInt32>, _ tw: Span<Int32>, _ p: inout MutableSpan<SIMD3<Float>>,
        _ fr: inout MutableSpan<Bool>, normals nm: inout MutableSpan<SIMD3<Float>>,
        movedCorner mc: inout MutableSpan<Bool>
    ) -> Bool {
        let limit = creaseCosine
        var undone = false
        for h in 0..<tri.count where tw[h] > Int32(h) {
            let g = Int(tw[h])
            let t1 = h / 3, t2 = g / 3
            guard mc[t1] || mc[t2] else { continue }
            let n1 = nm[t1], n2 = nm[t2]
            let dot = Double((n1 * n2).sum())
            // cos < limit; past a right angle only when dot < 0.
            guard limit >= 0 || dot < 0 else { continue }
            let l1 = Double((n1 * n1).sum()), l2 = Double((n2 * n2).sum())
            guard l1 > 0, l2 > 0, dot < limit * (l1 * l2).squareRoot() else { continue }
            let corners = (
                Int(tri[h]), Int(tri[Self.next(h)]), Int(tri[Self.prev(h)]),
                Int(tri[Self.prev(g)])
            )
            for v in [corners.0, corners.1, corners.2, corners.3] where fr[v] {
                p[v] = positions[v]
                fr[v] = false
                undone = true
            }
        }
        return undone
    }
}
