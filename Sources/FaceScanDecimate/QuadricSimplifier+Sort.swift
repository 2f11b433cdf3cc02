/// A candidate's place in a pass's cost order: its two ends, read for every entry the pass
/// visits, with the candidate itself (for the placement) read only when neither end is taken yet.
struct Ranked {
    var drop: UInt32, keep: UInt32
    var candidate: UInt32
}

extension DecimationCore {
    @inline(__always)
    static func key(_ cost: Float) -> UInt32 {
        cost.isFinite ? cost.bitPattern >> keyShift : UInt32(bucketCount - 1)
    }

    /// The largest cost key a pass takes: 1.5 × the cost at `fraction` of the sorted candidates
    /// (read from the histogram: the upper end of that key's bucket).
    func limitKey(_ count: Int, fraction: Double) -> UInt32 {
        let h = histogram
        let k = min(count - 1, Int(Double(count) * fraction))
        var seen = 0
        var key = 0
        while key < Self.bucketCount {
            seen += Int(h[key + 1])
            if seen > k { break }
            key += 1
        }
        let upper = Float(bitPattern: UInt32(key + 1) << Self.keyShift)
        return min(Self.key(upper * 1.5), UInt32(Self.bucketCount - 1))
    }

    /// Sorts the indices of the candidates with a key up to `limitKey` into `order`, chunk by chunk: the
    /// gathering order (triangle order, so roughly spatial) is cut into chunks of
    /// `Tuning.sortChunk` candidates, each sorted by key (stable counting sort; ties keep
    /// gathering order). Two candidates that compete for a vertex are almost always neighbours in
    /// one chunk, so this collapses nearly the same edges as one global sort while each chunk's
    /// vertices stay in cache. Returns how many were sorted.
    /// From two chunks on, each half of the chunks is sorted on its own thread (the second into
    /// its own part of `order`, then moved down behind the first): the same bytes as one thread.
    /// `sides`: also note in `side` which half takes each entry (needs ``tagSeam(_:)``), so that
    /// the collapse passes of the halves and the seam skip the others' entries without reading
    /// their candidates.
    func sortCandidates(_ count: Int, limitKey: UInt32, sides: Bool = false) -> Int {
        let chunk = Tuning.sortChunk
        let chunks = (count + chunk - 1) / chunk
        guard chunks >= 2 && threads > 1 else {
            return sortChunks(0, count, limitKey: limitKey, sides: sides, histogram: histogram)
        }
        let s = self
        let mid = (chunks / 2) * chunk
        let (first, second) = s.bothCounts { k in
            k == 0
                ? s.sortChunks(0, mid, limitKey: limitKey, sides: sides, histogram: s.histogram)
                : s.sortChunks(
                    mid, count, limitKey: limitKey, sides: sides, histogram: s.histogram + Self.histogramStride)
        }
        Self.moveDown(s.order, from: mid, to: first, count: second)
        if sides { Self.moveDown(s.side, from: mid, to: first, count: second) }
        return first + second
    }

    /// Sorts candidates `lo..<hi` (`lo` a multiple of the chunk size) chunk by chunk into
    /// `order[lo...]` (and, with `sides`, their sides into `side[lo...]`), using `h`
    /// (`limitKey + 3` entries) as scratch; returns how many.
    func sortChunks(_ lo: Int, _ hi: Int, limitKey: UInt32, sides: Bool, histogram h: ScratchRun<UInt32>)
        -> Int
    {
        let cand = self.cand, order = self.order, side = self.side, tag = self.tag
        let last = Int(limitKey)
        var out = lo
        var from = lo
        while from < hi {
            let to = min(hi, from + Tuning.sortChunk)
            // Keys past `last` share bucket `last + 1`, whose cursor (the slot after this chunk's
            // output) never advances: they are written there and overwritten later, with no
            // branch on the key (about half the candidates fall on either side).
            h.update(repeating: 0, count: last + 3)
            for c in from..<to {
                h[min(Int(Self.key(cand[c].cost)), last + 1) + 1] += 1
            }
            h[0] = UInt32(out)
            for k in 0...last { h[k + 1] += h[k] }
            for c in from..<to {
                let key = Int(Self.key(cand[c].cost))
                let taken = key <= last
                let k = taken ? key : last + 1
                let at = Int(h[k])
                let u = cand[c].drop, v = cand[c].keep
                order[at] = Ranked(drop: u, keep: v, candidate: UInt32(truncatingIfNeeded: c))
                if sides {
                    let tu = tag[Int(u)], tv = tag[Int(v)]
                    // Ends in different halves share a triangle, which made both seam vertices.
                    side[at] = tu == tv ? tu : Self.seam
                }
                h[k] += taken ? 1 : 0
            }
            out = Int(h[last])
            from = to
        }
        return out - lo
    }
}
