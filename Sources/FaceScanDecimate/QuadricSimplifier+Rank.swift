import CSIMD
import FaceScanCore

/// One ranked edge collapse: `drop` merges into `keep`, which moves to `(x, y, z)`.
struct Candidate {
    var x: Float, y: Float, z: Float
    var cost: Float
    var drop: UInt32, keep: UInt32

    @inline(__always) var position: SIMD3<Float> { SIMD3(x, y, z) }
}

extension DecimationCore {
    /// Ranks every collapsible edge once: its cost, the vertex that survives and where it goes;
    /// counts the cost keys into `histogram` (shifted by one bucket). Returns the number of candidates.
    /// Large meshes are ranked on two threads, each over half of the triangle slots into its own
    /// part of `cand` and its own histogram; the parts are then joined in slot order, so the
    /// result is the same bytes as ranking on one thread.
    func gatherCandidates(_ triangleSlots: Int) -> Int {
        let s = self
        let h = s.histogram, h1 = s.histogram + Self.histogramStride
        guard s.splitsInTwo(triangleSlots) else {
            return s.gatherRange(0, triangleSlots, into: 0, histogram: h)
        }
        let half = triangleSlots / 2
        let (c0, c1) = s.bothCounts { k in
            k == 0
                ? s.gatherRange(0, half, into: 0, histogram: s.histogram)
                : s.gatherRange(half, triangleSlots, into: 3 * half, histogram: s.histogram + Self.histogramStride)
        }
        Self.moveDown(s.cand, from: 3 * half, to: c0, count: c1)
        for k in 0...Self.bucketCount { h[k] += h1[k] }
        return c0 + c1
    }

    /// Ranks the edges of triangle slots `lo..<hi` into `cand[start...]`, counting their keys
    /// into `h`; returns how many.
    func gatherRange(_ lo: Int, _ hi: Int, into start: Int, histogram h: ScratchRun<UInt32>) -> Int {
        ScratchRun<UInt32>.withTemporary(count: Self.placementBatch) { buffer in
            gatherRange(lo, hi, into: start, histogram: h, pending: buffer)
        }
    }

    /// Interior edges placed by one call of the vector kernel.
    static let placementBatch = 256

    /// `pending`: room for ``placementBatch`` interior edges waiting to be placed: their slots in
    /// `cand`.
    func gatherRange(
        _ lo: Int, _ hi: Int, into start: Int, histogram h: ScratchRun<UInt32>,
        pending: ScratchRun<UInt32>
    ) -> Int {
        let s = self
        let tri = s.tri, flags = s.flags
        let cand = s.cand + start
        let deferred = s.vectorPlacement
        h.update(repeating: 0, count: Self.bucketCount + 1)
        var count = 0
        var waiting = 0
        let corners = 3 * hi
        var base = 3 * lo
        while base < corners {
            for k in 0..<3 {
                let a = tri[base + k], b = tri[base + (k == 2 ? 0 : k + 1)]
                let fa = flags[Int(a)], fb = flags[Int(b)]
                if (fa | fb) == 0 && deferred {
                    // Interior (the common case): ranked from its half-edge with `a < b`, placed
                    // with the next batch (``placePending``, which also counts its key). Written
                    // either way and kept only then: no branch on the order of a and b.
                    // Ends only: the batch writes the placement and cost.
                    cand[count].drop = max(a, b)
                    cand[count].keep = min(a, b)
                    pending[waiting] = UInt32(truncatingIfNeeded: count)
                    let kept = a < b ? 1 : 0
                    count += kept
                    waiting += kept
                    if waiting == Self.placementBatch {
                        s.placePending(pending, waiting, in: cand, histogram: h)
                        waiting = 0
                    }
                    continue
                }
                if (fa | fb) & Flag.locked != 0 { continue }
                let ba = fa & Flag.boundary != 0, bb = fb & Flag.boundary != 0
                if ba && bb {
                    // Only a boundary edge (no opposite half-edge) may join two boundary vertices.
                    if s.hasHalfEdge(from: b, to: a) { continue }
                } else if a > b {
                    continue  // an interior edge is ranked from its other half-edge
                }
                let c = s.rank(a, b, boundary: ba, bb)
                cand[count] = c
                h[Int(Self.key(c.cost)) + 1] += 1
                count += 1
            }
            base += 3
        }
        if waiting > 0 { s.placePending(pending, waiting, in: cand, histogram: h) }
        return count
    }

    /// The collapse of edge `a`–`b` (not locked; `ba`, `bb`: whether each end is on the
    /// boundary): the vertex that survives, where it goes and the cost. Along the boundary, onto
    /// the cheaper end; inside, where ``interiorPlacement(_:_:_:)`` puts it; between the rim and
    /// the interior, onto the rim vertex.
    @inline(__always)
    func rank(_ a: UInt32, _ b: UInt32, boundary ba: Bool, _ bb: Bool) -> Candidate {
        let keep: UInt32, drop: UInt32
        let target: SIMD3<Float>
        var cost: Double
        if ba && bb {
            let q = sum(a, b)
            // Along the boundary: onto the cheaper endpoint, so the rim only ever loses
            // vertices and never bulges past the input's rim.
            let ca = q.evaluate(local(a)), cb = q.evaluate(local(b))
            if ca < cb || (ca == cb && a < b) {
                keep = a
                drop = b
                cost = ca
            } else {
                keep = b
                drop = a
                cost = cb
            }
            target = pos[Int(keep)]
            // Ties with interior collapses (flat, straight rims) go to the interior.
            let e = local(a) - local(b)
            cost += Tuning.boundaryTieBreak * (q.a00 + q.a11 + q.a22) * dot3(e, e)
        } else if !ba && !bb {
            keep = min(a, b)
            drop = max(a, b)
            (target, cost) = interiorPlacement(sum(a, b), a, b)
        } else {
            // Between the rim and the interior: the interior vertex goes onto the rim
            // vertex, which stays put.
            keep = ba ? a : b
            drop = ba ? b : a
            target = pos[Int(keep)]
            cost = sum(a, b).evaluate(local(keep))
        }
        let fc: Float = cost > 0 ? Float(cost) : 0
        return Candidate(x: target.x, y: target.y, z: target.z, cost: fc, drop: drop, keep: keep)
    }

    /// The quadric of edge `a`–`b`: the sum of its ends'.
    @inline(__always)
    func sum(_ a: UInt32, _ b: UInt32) -> Quadric {
        var q = quad[Int(a)]
        q.add(quad[Int(b)])
        return q
    }

    /// Where collapsing interior edge `a`–`b` (quadric `q`, the sum of theirs) puts the merged
    /// vertex, and the cost: the regularised minimum of `q` near the midpoint, else the best of the
    /// endpoints and the midpoint.
    @inline(__always)
    func interiorPlacement(_ q: Quadric, _ a: UInt32, _ b: UInt32) -> (SIMD3<Float>, Double) {
        let pa = local(a), pb = local(b)
        let mid = (pa + pb) * 0.5
        if let x = q.regularisedMinimum(near: mid) { return (SIMD3<Float>(x + centre), q.evaluate(x)) }
        let ca = q.evaluate(pa), cb = q.evaluate(pb), cm = q.evaluate(mid)
        if cm <= ca && cm <= cb { return (SIMD3<Float>(mid + centre), cm) }
        return ca <= cb ? (pos[Int(a)], ca) : (pos[Int(b)], cb)
    }

    /// Places the interior candidates at `cand[pending[0..<count]]` with the vector kernel (the
    /// scalar ``interiorPlacement(_:_:_:)`` for any it cannot place, from the lower end, its
    /// `keep`, as gathering ranks an interior edge) and counts their keys into `h`.
    func placePending(
        _ pending: ScratchRun<UInt32>, _ count: Int,
        in cand: ScratchRun<Candidate>, histogram h: ScratchRun<UInt32>
    ) {
        placeWithKernel(pending, count, in: cand)
        for i in 0..<count {
            let slot = Int(pending[i])
            if cand[slot].cost.isNaN {
                let a = cand[slot].keep, b = cand[slot].drop
                let (target, cost) = interiorPlacement(sum(a, b), a, b)
                cand[slot].x = target.x
                cand[slot].y = target.y
                cand[slot].z = target.z
                cand[slot].cost = cost > 0 ? Float(cost) : 0
            }
            h[Int(Self.key(cand[slot].cost)) + 1] += 1
        }
    }
}
