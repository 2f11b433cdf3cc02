import FaceScanCore

extension DecimationCore {
    /// Whether a step over `triangleSlots` triangle slots writes two separate halves and joins
    /// them (worth it from ``Tuning/parallelTriangles`` on, with two threads).
    @inline(__always)
    func splitsInTwo(_ triangleSlots: Int) -> Bool { Self.splitsInTwo(triangleSlots, threads: threads) }

    static func splitsInTwo(_ triangleSlots: Int, threads: Int) -> Bool {
        triangleSlots >= Tuning.parallelTriangles && threads > 1
    }

    /// Runs `body(lo, hi)` over `0..<count`: as two halves, on two threads when `parallel` and
    /// `threads` allows, else in order on the calling thread.
    @inline(__always)
    func inHalves(_ count: Int, parallel: Bool, _ body: @Sendable (Int, Int) -> Void) {
        let half = count / 2
        bothSides(parallel: parallel && count > 1) { k in
            if k == 0 { body(0, half) } else { body(half, count) }
        }
    }

    /// `body(0)` and `body(1)` through ``bothSides(parallel:_:)`` (parallel), returning both results.
    func bothCounts(_ body: @Sendable (Int) -> Int) -> (Int, Int) {
        let counts = SharedSlots<Int>(repeating: 0, count: 2)
        bothSides(parallel: true) { k in counts[k] = body(k) }
        return (counts[0], counts[1])
    }

    /// Moves `count` elements from `p + from` down to `p + to` (`to ≤ from`), front to back: how
    /// the second side's output joins the first's.
    @inline(__always)
    static func moveDown<T>(_ p: ScratchRun<T>, from: Int, to: Int, count: Int) {
        if to == from { return }
        for i in 0..<count { p[to + i] = p[from + i] }
    }

    /// `body(0)` and `body(1)`: on two threads (``Parallel/Pair``) when `parallel` and the core has
    /// a second thread, else in order. Callers make the two sides independent, so the outcome does
    /// not depend on which.
    @inline(__always)
    func bothSides(parallel: Bool, _ body: @Sendable (Int) -> Void) {
        Parallel.both(on: parallel ? sides : nil, body)
    }

    /// ``collapsePass(_:budget:pass:stamp:endpointFallback:)`` on two threads: each half of the mesh collapses its
    /// own edges (both ends, and every triangle around them, inside the half: see ``tagSeam(_:)``)
    /// in cost order with half the budget, touching memory the other half never reads; then the
    /// edges along the seam go, on one thread, with what is left of the budget (and, when a half
    /// ran out of its share, every remaining edge in cost order). Each half's
    /// result depends only on its own data, so the outcome is the same bytes on one or two threads.
    /// Needs `order` sorted with `sides` (``sortCandidates(_:limitKey:sides:)``) after
    /// ``tagSeam(_:)`` for the current triangles.
    func collapsePassSplit(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32) -> Int {
        resetMarksIfNeeded(count, stamp: &stamp)
        let s = self
        // Each side stamps at most 2 marks per candidate: disjoint stamp ranges.
        let base = stamp
        let span = UInt32(2 * count + 2)
        let half = budget / 2
        let d0: Int, d1: Int
        if s.sides == nil {
            var stamps = (base, base &+ span)
            (d0, d1) = s.collapseHalves(count, budgets: (half, budget - half), pass: pass, stamps: &stamps)
        } else {
            (d0, d1) = s.bothCounts { k in
                var local = base &+ UInt32(k) &* span
                return s.collapseRange(
                    count, budget: k == 0 ? half : budget - half, pass: pass, stamp: &local, only: UInt8(k))
            }
        }
        stamp = base &+ 2 &* span
        var done = d0 + d1
        done += collapseRange(count, budget: budget - done, pass: pass, stamp: &stamp, only: Self.seam)
        if (d0 == half || d1 == budget - half) && done < budget {
            // One half ran out of its share while budget is left: go on in plain cost order.
            done += collapseRange(count, budget: budget - done, pass: pass, stamp: &stamp, only: Self.anyRegion)
        }
        return done
    }

    /// `tag` value of a vertex with a triangle reaching into the other half.
    static let seam: UInt8 = 2
    /// `only` value of ``collapseRange(_:budget:pass:stamp:only:endpointFallback:)`` that takes every candidate.
    static let anyRegion: UInt8 = 3

    /// Splits the vertices into two halves at the median (a 4 096-bin histogram) of the
    /// input's bounding box's longest axis (called before any collapse moves a vertex).
    func assignRegions() {
        let n = vertexCount
        guard n > 0 else { return }
        let (lo, hi) = bounds
        let extent = hi - lo
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2)
        let origin = lo[axis], width = extent[axis]
        guard width > 0 else { return }
        let bins = 4096
        let scale = Float(bins) / width
        let pos = self.pos
        var counts = [Int](repeating: 0, count: bins)
        for v in 0..<n { counts[min(bins - 1, max(0, Int((pos[v][axis] - origin) * scale)))] += 1 }
        var seen = 0, split = bins
        for b in 0..<bins {
            seen += counts[b]
            if 2 * seen >= n {
                split = b + 1
                break
            }
        }
        for v in 0..<n { region[v] = Int((pos[v][axis] - origin) * scale) < split ? 0 : 1 }
    }

    /// Tags every vertex with its region, or `Self.seam` when a live triangle around it has a
    /// vertex of the other region.
    func tagSeam(_ triangleSlots: Int) {
        let tri = self.tri, region = self.region, tag = self.tag
        tag.update(from: region, count: vertexCount)
        var i = 0
        let corners = 3 * triangleSlots
        while i < corners {
            let a = Int(tri[i])
            if a != Int(Self.deadTriangle) {
                let b = Int(tri[i + 1]), c = Int(tri[i + 2])
                let r = region[a]
                if region[b] != r || region[c] != r {
                    tag[a] = Self.seam
                    tag[b] = Self.seam
                    tag[c] = Self.seam
                }
            }
            i += 3
        }
    }
}
