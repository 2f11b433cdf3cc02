/// The boundary loops of an open surface, traced along its boundary half-edges.
///
/// A boundary half-edge `a → b` is a triangle edge whose undirected edge no other triangle uses.
/// On a surface wound counter-clockwise seen from outside, the loops run counter-clockwise around
/// the outer rim and clockwise around holes (seen from outside). `loops[l]` lists the vertices in
/// half-edge order; `opposite[l][i]` is the third vertex of the mesh triangle that holds the
/// half-edge `loops[l][i] → loops[l][i + 1]` (used to measure dihedral angles across the loop).
///
/// A vertex with several outgoing boundary half-edges (a pinch point) is passed through on the first
/// unused one, so every boundary half-edge lies on exactly one loop.
/// - Complexity: O(t) for t triangles (after the O(t + n) `MeshTopology`).
package struct BoundaryLoops: Sendable {
    package var loops: [[UInt32]] = []
    package var opposite: [[UInt32]] = []

    /// The loops of the mesh `topology` describes.
    init(_ topology: MeshTopology) {
        let n = topology.vertexCount
        // Outgoing boundary half-edges per vertex, CSR (count → prefix-sum → fill).
        var counts = [Int32](repeating: 0, count: n + 1)
        var halfEdges: [(from: UInt32, to: UInt32, third: UInt32)] = []
        halfEdges.reserveCapacity(topology.boundaryEdgeCount)
        let t = topology.triangles
        for h in 0..<t.count where topology.isBoundaryHalf(h) {
            let f = h - h % 3
            halfEdges.append((t[h], t[f + (h - f + 1) % 3], t[f + (h - f + 2) % 3]))
            counts[Int(t[h]) + 1] += 1
        }
        guard !halfEdges.isEmpty else { return }
        for v in 0..<n { counts[v + 1] += counts[v] }
        var fill = counts
        var order = [Int32](repeating: 0, count: halfEdges.count)
        for (h, e) in halfEdges.enumerated() {
            order[Int(fill[Int(e.from)])] = Int32(h)
            fill[Int(e.from)] += 1
        }
        var used = [Bool](repeating: false, count: halfEdges.count)
        // Next unused outgoing half-edge of a vertex, or nil.
        func take(_ v: UInt32) -> Int? {
            for k in Int(counts[Int(v)])..<Int(counts[Int(v) + 1]) where !used[Int(order[k])] {
                used[Int(order[k])] = true
                return Int(order[k])
            }
            return nil
        }
        for start in halfEdges.indices where !used[start] {
            used[start] = true
            var loop: [UInt32] = []
            var opp: [UInt32] = []
            var h = start
            while true {
                loop.append(halfEdges[h].from)
                opp.append(halfEdges[h].third)
                let next = halfEdges[h].to
                if next == halfEdges[start].from { break }
                guard let h2 = take(next) else { break }  // open chain: cannot happen on a consistent mesh
                h = h2
            }
            if loop.count >= 3 {
                loops.append(loop)
                opposite.append(opp)
            }
        }
    }

    /// True when `a`–`b` is an edge of the mesh (binary search in the sorted CSR row).
    package static func hasEdge(_ adj: Adjacency, _ a: UInt32, _ b: UInt32) -> Bool {
        var lo = Int(adj.offsets[Int(a)]), hi = Int(adj.offsets[Int(a) + 1])
        while lo < hi {
            let mid = (lo + hi) / 2
            if adj.neighbors[mid] < b { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(adj.offsets[Int(a) + 1]) && adj.neighbors[lo] == b
    }

    /// Length of loop `l` in the mesh's unit.
    package static func length(_ loop: [UInt32], _ p: [SIMD3<Float>]) -> Double {
        var s = 0.0
        for i in loop.indices {
            let d = SIMD3<Double>(p[Int(loop[i])] - p[Int(loop[(i + 1) % loop.count])])
            s += (d * d).sum().squareRoot()
        }
        return s
    }

    /// Index of the outer rim: the longest loop (ties: the larger projected xy area, then the first).
    package func rimIndex(_ p: [SIMD3<Float>]) -> Int? {
        guard !loops.isEmpty else { return nil }
        var best = 0
        var bestKey = (Self.length(loops[0], p), abs(Self.xyArea(loops[0], p)))
        for l in loops.indices.dropFirst() {
            let key = (Self.length(loops[l], p), abs(Self.xyArea(loops[l], p)))
            if key > bestKey {
                best = l
                bestKey = key
            }
        }
        return best
    }

    /// Signed area of the loop projected on the xy plane (positive: counter-clockwise seen from +z).
    package static func xyArea(_ loop: [UInt32], _ p: [SIMD3<Float>]) -> Double {
        var s = 0.0
        for i in loop.indices {
            let a = p[Int(loop[i])], b = p[Int(loop[(i + 1) % loop.count])]
            s += Double(a.x) * Double(b.y) - Double(b.x) * Double(a.y)
        }
        return s / 2
    }
}
