import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Fair hole filling after P. Liepa, "Filling holes in meshes", Eurographics Symposium on Geometry
/// Processing 2003, with the bi-Laplacian fairing of M. Botsch and L. Kobbelt, "An intuitive
/// framework for real-time freeform modeling", SIGGRAPH 2004 (and Desbrun et al. 1999 for the
/// umbrella operator).
///
/// Every hole is closed in three steps:
/// 1. **Triangulate** the loop by Liepa's dynamic programme: among all triangulations that use
///    only loop vertices, take the one whose largest dihedral angle (between adjacent patch
///    triangles and across the loop to the mesh) is smallest, ties broken by the smaller area.
///    Chords that are already mesh edges are forbidden, so the result stays edge-manifold.
///    O(n³) for n loop vertices; loops above ``HoleFilling/Constants/maxDynamicProgrammeLoop``
///    vertices are fanned around their centroid instead (the next two steps repair the shape).
/// 2. **Refine**: split a patch triangle at its centroid when the centroid is farther than
///    σ/√2 from the three corners, σ being the local edge length interpolated from the loop's
///    mesh edges, then restore a Delaunay-like triangulation by edge flips (flip when the two
///    angles opposite an edge add up to more than π). Repeated until nothing splits, so the patch
///    edge lengths match those around the hole.
/// 3. **Fair**: solve Δ²x = 0 (uniform Laplacian) for the new vertices with the loop and one ring
///    of mesh vertices around it fixed, by conjugate gradients on the symmetric form K D⁻¹ K
///    (K = D − A the graph Laplacian). The patch then continues the surrounding curvature.
///
/// New triangles are wound like the surface (each loop edge is used once by the mesh and once,
/// reversed, by the patch); mesh vertices are never moved.
enum HoleFilling {
    enum Constants {
        /// Largest loop filled by the O(n³) dynamic programme.
        static let maxDynamicProgrammeLoop = 200
        /// Liepa's density factor α = √2.
        static let density = 2.0.squareRoot()
        /// Flip sweeps after each refinement pass.
        static let maxRelaxSweeps = 30
        static let maxRefinePasses = 40
        static let maxCGIterations = 2000
    }

    /// Fills every loop of `loops` except `keep` (the rim). Returns the mesh with the patches
    /// appended (original vertices and triangles first, unchanged).
    static func fill(_ mesh: Mesh, adjacency: Adjacency, loops: BoundaryLoops, keep: Int?) -> Mesh {
        var out = mesh
        for l in loops.loops.indices where l != keep {
            var patch = Patch(mesh: mesh, adjacency: adjacency, loop: loops.loops[l], opposite: loops.opposite[l])
            patch.triangulate()
            patch.refine()
            patch.fair()
            patch.append(to: &out)
        }
        return out
    }

    /// One hole's patch in local numbering: `0..<n` are the loop vertices in patch order (the loop
    /// reversed), `n...` the new vertices.
    struct Patch {
        let mesh: Mesh
        let adjacency: Adjacency
        /// Mesh index of each local loop vertex (patch order: edge w[i] → w[i+1] is a patch edge).
        let w: [UInt32]
        /// Third vertex of the mesh triangle across patch edge w[i] → w[i+1].
        let meshOpposite: [UInt32]
        var pos: [SIMD3<Double>]
        var sigma: [Double]
        var uv: [SIMD2<Double>]
        var tris: [SIMD3<Int32>] = []
        /// Undirected edge (min << 32 | max, local ids) → its one or two patch triangles (−1: none).
        /// A private edge map, not the mesh's `MeshTopology`: the patch is built and changed one
        /// triangle at a time (each flip and split moves edges), and its few hundred edges are
        /// looked up between changes; a topology is built once for a finished triangle list.
        var edges: [UInt64: SIMD2<Int32>] = [:]

        var n: Int { w.count }

        init(mesh: Mesh, adjacency: Adjacency, loop: [UInt32], opposite: [UInt32]) {
            self.mesh = mesh
            self.adjacency = adjacency
            let n = loop.count
            // Patch order is the loop reversed; patch edge i (w[i] → w[i+1]) is the reverse of the
            // loop half-edge loop[n-2-i] → loop[n-1-i].
            let ws: [UInt32] = loop.reversed()
            w = ws
            var opp = [UInt32](repeating: 0, count: n)
            for i in 0..<n { opp[i] = opposite[(2 * n - 2 - i) % n] }
            meshOpposite = opp
            pos = ws.map { SIMD3<Double>(mesh.positions[Int($0)]) }
            uv = mesh.uvs.map { uvs in ws.map { SIMD2<Double>(uvs[Int($0)]) } } ?? []
            // σ of a loop vertex: mean length of its mesh edges.
            var sg = [Double](repeating: 0, count: n)
            for i in 0..<n {
                let v = Int(ws[i])
                let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
                var s = 0.0
                for k in lo..<hi {
                    let d = SIMD3<Double>(mesh.positions[Int(adjacency.neighbors[k])] - mesh.positions[v])
                    s += (d * d).sum().squareRoot()
                }
                sg[i] = hi > lo ? s / Double(hi - lo) : 0
            }
            sigma = sg
        }

        // MARK: 1. Triangulation

        mutating func triangulate() {
            if n <= Constants.maxDynamicProgrammeLoop {
                triangulateMinimumDihedral()
            } else {
                fanAroundCentroid()
            }
        }

        /// Liepa's O(n³) programme over (max dihedral angle, area), lexicographic.
        mutating func triangulateMinimumDihedral() {
            let n = self.n
            let infinity = Double.infinity
            var angle = [Double](repeating: infinity, count: n * n)
            var area = [Double](repeating: infinity, count: n * n)
            var split = [Int32](repeating: -1, count: n * n)
            for i in 0..<(n - 1) {
                angle[i * n + i + 1] = 0
                area[i * n + i + 1] = 0
            }
            // Normal of the triangle across local edge (a, b), a < b: the mesh triangle when the
            // edge is a loop edge, otherwise the patch triangle chosen for the sub-polygon a…b.
            func neighbourNormal(_ a: Int, _ b: Int) -> SIMD3<Double> {
                if b == a + 1 {
                    return unitNormal3(
                        SIMD3(mesh.positions[Int(w[b])]), SIMD3(mesh.positions[Int(w[a])]),
                        SIMD3(mesh.positions[Int(meshOpposite[a])]))
                }
                let s = Int(split[a * n + b])
                return unitNormal3(pos[a], pos[s], pos[b])
            }
            for gap in 2..<n {
                for i in 0..<(n - gap) {
                    let k = i + gap
                    // A chord that is already a mesh edge (or joins a vertex to itself) would make
                    // the surface non-manifold.
                    let isClosingEdge = i == 0 && k == n - 1
                    if !isClosingEdge && (w[i] == w[k] || BoundaryLoops.hasEdge(adjacency, w[i], w[k])) { continue }
                    var bestAngle = infinity, bestArea = infinity, bestM = -1
                    for m in (i + 1)..<k {
                        let a1 = angle[i * n + m], a2 = angle[m * n + k]
                        guard a1 < infinity, a2 < infinity, w[m] != w[i], w[m] != w[k] else { continue }
                        let cr = cross3(pos[m] - pos[i], pos[k] - pos[i])
                        let len = (cr * cr).sum().squareRoot()
                        let nrm = len > 0 ? cr / len : .zero
                        var worst = max(a1, a2)
                        // Degenerate triangles count as the worst possible fold.
                        if len <= 1e-30 {
                            worst = .pi
                        } else {
                            worst = max(worst, dihedral(nrm, neighbourNormal(i, m)))
                            worst = max(worst, dihedral(nrm, neighbourNormal(m, k)))
                            if isClosingEdge {
                                let outside = unitNormal3(
                                    SIMD3(mesh.positions[Int(w[0])]), SIMD3(mesh.positions[Int(w[n - 1])]),
                                    SIMD3(mesh.positions[Int(meshOpposite[n - 1])]))
                                worst = max(worst, dihedral(nrm, outside))
                            }
                        }
                        let ar = area[i * n + m] + area[m * n + k] + len / 2
                        if worst < bestAngle || (worst == bestAngle && ar < bestArea) {
                            bestAngle = worst
                            bestArea = ar
                            bestM = m
                        }
                    }
                    if bestM >= 0 {
                        angle[i * n + k] = bestAngle
                        area[i * n + k] = bestArea
                        split[i * n + k] = Int32(bestM)
                    }
                }
            }
            guard split[n - 1] >= 0 else {
                // Every triangulation needs a forbidden chord: fan around a new centre instead.
                fanAroundCentroid()
                return
            }
            // Read the triangles back from the split table (explicit stack, no recursion).
            var stack: [(Int, Int)] = [(0, n - 1)]
            while let (i, k) = stack.popLast() {
                guard k - i >= 2 else { continue }
                let m = Int(split[i * n + k])
                addTriangle(Int32(i), Int32(m), Int32(k))
                stack.append((i, m))
                stack.append((m, k))
            }
        }

        /// One new vertex at the loop's centroid, joined to every loop edge.
        mutating func fanAroundCentroid() {
            let c = pos.reduce(SIMD3<Double>.zero, +) / Double(n)
            let s = sigma.reduce(0, +) / Double(n)
            let cu = uv.isEmpty ? SIMD2<Double>.zero : uv.reduce(SIMD2<Double>.zero, +) / Double(n)
            let ci = Int32(addVertex(c, sigma: s, uv: cu))
            for i in 0..<n { addTriangle(Int32(i), Int32((i + 1) % n), ci) }
        }

        // MARK: 2. Refinement

        mutating func refine() {
            for _ in 0..<Constants.maxRefinePasses {
                var didSplit = false
                let count = tris.count
                for t in 0..<count {
                    let tri = tris[t]
                    let i = Int(tri.x), j = Int(tri.y), k = Int(tri.z)
                    let c = (pos[i] + pos[j] + pos[k]) / 3
                    let sc = (sigma[i] + sigma[j] + sigma[k]) / 3
                    var ok = true
                    for m in [i, j, k] {
                        let d = Constants.density * norm3(c - pos[m])
                        if !(d > sc && d > sigma[m]) {
                            ok = false
                            break
                        }
                    }
                    guard ok else { continue }
                    let cu = uv.isEmpty ? SIMD2<Double>.zero : (uv[i] + uv[j] + uv[k]) / 3
                    let v = Int32(addVertex(c, sigma: sc, uv: cu))
                    splitTriangle(t, at: v)
                    didSplit = true
                    relax(Int32(i), Int32(j))
                    relax(Int32(j), Int32(k))
                    relax(Int32(k), Int32(i))
                }
                guard didSplit else { break }
                for _ in 0..<Constants.maxRelaxSweeps {
                    var flipped = false
                    for t in tris.indices {
                        let tri = tris[t]
                        if relax(tri.x, tri.y) { flipped = true }
                        if relax(tri.y, tri.z) { flipped = true }
                        if relax(tri.z, tri.x) { flipped = true }
                    }
                    if !flipped { break }
                }
            }
        }

        /// Flips edge a–b when it is interior to the patch, not locally Delaunay, and the flip
        /// neither duplicates an edge nor folds the surface. Returns whether it flipped.
        @discardableResult
        mutating func relax(_ a0: Int32, _ b0: Int32) -> Bool {
            guard let pair = edges[edgeKey(a0, b0)], pair.x >= 0, pair.y >= 0 else { return false }
            // Orient: t1 holds a → b, t2 holds b → a.
            var t1 = Int(pair.x), t2 = Int(pair.y)
            let (a, b) = (a0, b0)
            if !hasDirected(tris[t1], a, b) { swap(&t1, &t2) }
            guard hasDirected(tris[t1], a, b), hasDirected(tris[t2], b, a) else { return false }
            let c = third(tris[t1], a, b), d = third(tris[t2], b, a)
            guard c != d, edges[edgeKey(c, d)] == nil else { return false }
            if Int(c) < n && Int(d) < n && BoundaryLoops.hasEdge(adjacency, w[Int(c)], w[Int(d)]) { return false }
            let pa = pos[Int(a)], pb = pos[Int(b)], pc = pos[Int(c)], pd = pos[Int(d)]
            let angleSum = angleAt(pc, pa, pb) + angleAt(pd, pa, pb)
            guard angleSum > .pi + 1e-9 else { return false }
            // The new triangles must face the same way as the old pair and not degenerate.
            let old = cross3(pb - pa, pc - pa) + cross3(pa - pb, pd - pb)
            let n1 = cross3(pd - pa, pc - pa), n2 = cross3(pb - pd, pc - pd)
            guard dot3(n1, old) > 0, dot3(n2, old) > 0, dot3(n1, n2) > 0 else { return false }
            // t1 := (a, d, c), t2 := (d, b, c).
            tris[t1] = SIMD3(a, d, c)
            tris[t2] = SIMD3(d, b, c)
            edges[edgeKey(a, b)] = nil
            edges[edgeKey(c, d)] = SIMD2(Int32(t1), Int32(t2))
            replace(edgeKey(a, d), Int32(t2), with: Int32(t1))
            replace(edgeKey(b, c), Int32(t1), with: Int32(t2))
            return true
        }

        // MARK: Output

        /// Appends the new vertices and triangles to `mesh`.
        func append(to out: inout Mesh) {
            let base = out.positions.count
            for k in n..<pos.count { out.positions.append(SIMD3<Float>(pos[k])) }
            if out.uvs != nil {
                for k in n..<pos.count { out.uvs!.append(SIMD2<Float>(uv[k])) }
            }
            func global(_ a: Int32) -> UInt32 { Int(a) < n ? w[Int(a)] : UInt32(base + Int(a) - n) }
            for t in tris {
                out.triangles.append(global(t.x))
                out.triangles.append(global(t.y))
                out.triangles.append(global(t.z))
            }
        }

        // MARK: Helpers

        mutating func addVertex(_ p: SIMD3<Double>, sigma s: Double, uv u: SIMD2<Double>) -> Int {
            pos.append(p)
            sigma.append(s)
            if !uv.isEmpty { uv.append(u) }
            return pos.count - 1
        }

        mutating func addTriangle(_ a: Int32, _ b: Int32, _ c: Int32) {
            let t = Int32(tris.count)
            tris.append(SIMD3(a, b, c))
            for (u, v) in [(a, b), (b, c), (c, a)] { attach(edgeKey(u, v), t) }
        }

        /// Splits triangle `t` = (i, j, k) into (i, j, v), (j, k, v), (k, i, v).
        mutating func splitTriangle(_ t: Int, at v: Int32) {
            let tri = tris[t]
            let (i, j, k) = (tri.x, tri.y, tri.z)
            let t0 = Int32(t), t1 = Int32(tris.count), t2 = Int32(tris.count + 1)
            tris[t] = SIMD3(i, j, v)
            tris.append(SIMD3(j, k, v))
            tris.append(SIMD3(k, i, v))
            replace(edgeKey(j, k), t0, with: t1)
            replace(edgeKey(k, i), t0, with: t2)
            edges[edgeKey(i, v)] = SIMD2(t0, t2)
            edges[edgeKey(j, v)] = SIMD2(t0, t1)
            edges[edgeKey(k, v)] = SIMD2(t1, t2)
        }

        private mutating func attach(_ k: UInt64, _ t: Int32) {
            if var e = edges[k] {
                if e.y < 0 { e.y = t } else { e.x = t }  // a third use cannot happen (chords are checked)
                edges[k] = e
            } else {
                edges[k] = SIMD2(t, -1)
            }
        }

        private mutating func replace(_ k: UInt64, _ old: Int32, with new: Int32) {
            guard var e = edges[k] else { return }
            if e.x == old { e.x = new } else if e.y == old { e.y = new }
            edges[k] = e
        }
    }
}

// MARK: - Small geometry helpers (double precision)

@inline(__always) func edgeKey(_ a: Int32, _ b: Int32) -> UInt64 {
    UInt64(UInt32(min(a, b))) << 32 | UInt64(UInt32(max(a, b)))
}

func unitNormal3(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> SIMD3<Double> {
    let cr = cross3(b - a, c - a)
    let l = norm3(cr)
    return l > 0 ? cr / l : .zero
}

/// Angle between two unit normals (0 = the triangles continue each other), π for a zero normal.
func dihedral(_ n1: SIMD3<Double>, _ n2: SIMD3<Double>) -> Double {
    guard n1 != .zero, n2 != .zero else { return .pi }
    return acos(min(1, max(-1, dot3(n1, n2))))
}

/// Interior angle at `apex` of the triangle (apex, a, b).
func angleAt(_ apex: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let u = a - apex, v = b - apex
    return atan2(norm3(cross3(u, v)), dot3(u, v))
}

private func hasDirected(_ t: SIMD3<Int32>, _ a: Int32, _ b: Int32) -> Bool {
    (t.x == a && t.y == b) || (t.y == a && t.z == b) || (t.z == a && t.x == b)
}

private func third(_ t: SIMD3<Int32>, _ a: Int32, _ b: Int32) -> Int32 {
    t.x != a && t.x != b ? t.x : (t.y != a && t.y != b ? t.y : t.z)
}
