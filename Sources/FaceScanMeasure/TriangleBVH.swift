import FaceScanCore

/// A bounding-volume hierarchy over a mesh's triangles for exact nearest-surface queries.
///
/// Flat arrays only: `nodes` in depth-first order (a node's left child is the next node, its right
/// child is at `Node.first`), `triangles` copied into leaf order so a leaf's triangles are
/// contiguous. Built top-down by splitting each node's triangles at the middle of their centroid
/// bounds along the longest axis (O(n) per level), falling back to a median split when that
/// separates nothing. Corners are stored as the mesh's `Float`s; distances are computed in `Double`.
/// - Complexity: O(n log n) to build for n triangles; a query visits O(log n) nodes on smooth surfaces.
package struct TriangleBVH: Sendable {
    /// 40 bytes. Bounds are exact: mesh positions are `Float`, so a `Float` box holds them exactly.
    struct Node: Sendable {
        var lo: SIMD3<Float>
        var hi: SIMD3<Float>
        /// Leaf: index of the first triangle. Interior: index of the right child.
        package var first: Int32
        /// Leaf: number of triangles (> 0). Interior: 0.
        var count: Int32
    }

    /// A triangle's corners as the mesh stores them (converted to `Double` when measured).
    struct Triangle: Sendable {
        var a: SIMD3<Float>
        var b: SIMD3<Float>
        var c: SIMD3<Float>
    }

    /// Build-time record of one triangle; records are swapped in place as nodes are split.
    private struct Primitive {
        var lo: SIMD3<Float>
        var hi: SIMD3<Float>
        var centroid: SIMD3<Float>
        var triangle: Int32
    }

    enum Constants {
        static let leafSize = 4
    }

    private(set) var nodes: [Node] = []
    private(set) var triangles: [Triangle] = []
    /// Levels below the root (0 for a single leaf).
    package private(set) var depth = 0

    var isEmpty: Bool { triangles.isEmpty }

    /// Builds the hierarchy over every triangle of `mesh` (the mesh's unit).
    package init(_ mesh: Mesh) {
        let n = mesh.triangleCount
        guard n > 0 else { return }
        var prims = [Primitive]()
        prims.reserveCapacity(n)
        for t in 0..<n {
            let (i, j, k) = mesh.triangle(t)
            let a = mesh.positions[Int(i)], b = mesh.positions[Int(j)], c = mesh.positions[Int(k)]
            let lo = pointwiseMin(a, pointwiseMin(b, c)), hi = pointwiseMax(a, pointwiseMax(b, c))
            prims.append(Primitive(lo: lo, hi: hi, centroid: (lo + hi) * 0.5, triangle: Int32(t)))
        }
        nodes.reserveCapacity(2 * n / Constants.leafSize + 1)
        build(start: 0, end: n, level: 0, prims: &prims)
        triangles = prims.map { p in
            let (i, j, k) = mesh.triangle(Int(p.triangle))
            return Triangle(a: mesh.positions[Int(i)], b: mesh.positions[Int(j)], c: mesh.positions[Int(k)])
        }
    }

    /// Appends the subtree over `prims[start..<end]` and returns its root's index.
    @discardableResult
    private mutating func build(start: Int, end: Int, level: Int, prims: inout [Primitive]) -> Int {
        // 1. Bounds of the triangles and of their centroids.
        var lo = prims[start].lo, hi = prims[start].hi
        var clo = prims[start].centroid, chi = clo
        for k in start..<end {
            lo = pointwiseMin(lo, prims[k].lo)
            hi = pointwiseMax(hi, prims[k].hi)
            clo = pointwiseMin(clo, prims[k].centroid)
            chi = pointwiseMax(chi, prims[k].centroid)
        }
        depth = Swift.max(depth, level)
        let index = nodes.count
        nodes.append(Node(lo: lo, hi: hi, first: Int32(start), count: Int32(end - start)))
        if end - start <= Constants.leafSize { return index }

        // 2. Split at the middle of the centroid bounds along their longest axis.
        let ext = chi - clo
        let axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2)
        let mid = 0.5 * (clo[axis] + chi[axis])
        var i = start, j = end - 1
        while i <= j {
            if prims[i].centroid[axis] < mid {
                i += 1
            } else {
                prims.swapAt(i, j)
                j -= 1
            }
        }
        var split = i
        // 3. Nothing separated (coincident centroids): split the sorted range at its median.
        if split == start || split == end {
            prims[start..<end].sort {
                ($0.centroid[axis], $0.triangle) < ($1.centroid[axis], $1.triangle)
            }
            split = (start + end) / 2
        }

        // 4. Children: left follows immediately, right's index is stored in the node.
        build(start: start, end: split, level: level + 1, prims: &prims)
        let right = build(start: split, end: end, level: level + 1, prims: &prims)
        nodes[index].first = Int32(right)
        nodes[index].count = 0
        return index
    }

    /// Squared distance from `p` to the nearest point of any triangle, or `.infinity` when empty.
    /// `stack` is scratch space reused across queries (see ``makeStack(depth:)``, at least this tree's ``depth``).
    func distanceSquared(to p: SIMD3<Double>, stack: inout [(node: Int32, distance: Double)]) -> Double {
        nearest(to: p, stack: &stack).distanceSquared
    }

    /// The point of the surface nearest to `p`; the tree must not be empty.
    package func closestPoint(to p: SIMD3<Double>, stack: inout [(node: Int32, distance: Double)]) -> SIMD3<Double> {
        precondition(!nodes.isEmpty, "empty tree")
        let t = triangles[nearest(to: p, stack: &stack).triangle]
        return ClosestPoint.onTriangle(p, SIMD3<Double>(t.a), SIMD3<Double>(t.b), SIMD3<Double>(t.c))
    }

    /// The point of the surface nearest to `p` when it is nearer than `distance`, else nil (the
    /// search looks no farther).
    package func closestPoint(
        to p: SIMD3<Double>, stack: inout [(node: Int32, distance: Double)], within distance: Double
    ) -> SIMD3<Double>? {
        let found = nearest(to: p, stack: &stack, bound: distance * distance)
        guard found.distanceSquared < distance * distance else { return nil }
        let t = triangles[found.triangle]
        return ClosestPoint.onTriangle(p, SIMD3<Double>(t.a), SIMD3<Double>(t.b), SIMD3<Double>(t.c))
    }

    /// The squared distance to the nearest triangle and that triangle's index in ``triangles``
    /// (`.infinity` and 0 when empty). With a `bound` (squared), only triangles nearer than it
    /// are looked for: farther, the answer is (`bound`, 0).
    package func nearest(
        to p: SIMD3<Double>, stack: inout [(node: Int32, distance: Double)], bound: Double = .infinity
    ) -> (distanceSquared: Double, triangle: Int) {
        guard !nodes.isEmpty else { return (.infinity, 0) }
        precondition(stack.count > depth, "stack too small for this tree")
        var stack = stack.flatMut
        return Self.query(p, nodes: nodes.flat, tris: triangles.flat, stack: &stack, bound: bound)
    }

    /// Scratch space for ``distanceSquared(to:stack:)`` on trees at most `depth` levels deep.
    package static func makeStack(depth: Int) -> [(node: Int32, distance: Double)] {
        Array(repeating: (0, 0), count: depth + 1)
    }

    /// The hot core: depth-first, nearer child first, skipping every box farther than the best
    /// distance so far. A node is pushed with its box distance, so it is not measured twice.
    static func query(
        _ p: SIMD3<Double>, nodes: Span<Node>, tris: Span<Triangle>,
        stack: inout MutableSpan<(node: Int32, distance: Double)>, bound: Double = .infinity
    ) -> (distanceSquared: Double, triangle: Int) {
        var best = bound
        var bestTriangle = 0
        var top = 0
        var current = 0
        while true {
            let node = nodes[current]
            if node.count > 0 {
                let s = Int(node.first)
                for k in s..<(s + Int(node.count)) {
                    let t = tris[k]
                    let d = ClosestPoint.distanceSquared(p, SIMD3<Double>(t.a), SIMD3<Double>(t.b), SIMD3<Double>(t.c))
                    if d < best {
                        best = d
                        bestTriangle = k
                    }
                }
            } else {
                let l = current + 1, r = Int(node.first)
                let dl = boxDistanceSquared(p, nodes[l]), dr = boxDistanceSquared(p, nodes[r])
                let (near, far, dn, df) = dl <= dr ? (l, r, dl, dr) : (r, l, dr, dl)
                if dn < best {
                    if df < best {
                        stack[top] = (Int32(far), df)
                        top += 1
                    }
                    current = near
                    continue
                }
            }
            // Pop the next node still closer than the best distance.
            current = -1
            while top > 0 {
                top -= 1
                if stack[top].distance < best {
                    current = Int(stack[top].node)
                    break
                }
            }
            if current < 0 { return (best, bestTriangle) }
        }
    }

    @inline(__always)
    static func boxDistanceSquared(_ p: SIMD3<Double>, _ node: Node) -> Double {
        let dx = Swift.max(Double(node.lo.x) - p.x, 0, p.x - Double(node.hi.x))
        let dy = Swift.max(Double(node.lo.y) - p.y, 0, p.y - Double(node.hi.y))
        let dz = Swift.max(Double(node.lo.z) - p.z, 0, p.z - Double(node.hi.z))
        return dx * dx + dy * dy + dz * dz
    }
}
