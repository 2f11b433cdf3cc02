import FaceScanCore

// Refinement to an exact vertex count by longest-edge bisection.
//
// M.-C. Rivara, "Algorithms for refining triangular grids suitable for adaptive and multigrid
// techniques", Int. J. Numer. Meth. Eng. 20 (1984): bisecting a triangle across its longest edge
// never produces an angle below half the triangle's smallest angle, and repeated bisection
// produces finitely many triangle shapes. Splitting the globally longest edge first bisects every
// triangle it touches across that triangle's longest edge, so the bound holds for the whole mesh.
//
// New points lie on the cubic edge curve of A. Vlachos, J. Peters, C. Boyd and J. L. Mitchell,
// "Curved PN triangles", I3D 2001: the curve through both ends tangent to the planes of their vertex
// normals (all of its offset from the straight edge: ``EdgeRefinement/bulgeScale``). The input's
// vertices stay where they are (the result interpolates the input) and a
// coarse face refines to a smooth one instead of the same facets cut smaller. Two sweeps of
// bi-Laplacian fairing on the new vertices then spread the turn the PN points still make at the
// coarse edges (`EdgeRefinement+Fairing.swift`).

/// Longest-edge bisection of a mesh to an exact vertex count (each split adds one vertex).
package enum EdgeRefinement {
    /// Largest share of an edge's length its new point may move off the straight edge (a bound
    /// for normals that disagree sharply, where the cubic would overshoot).
    static let maximumBulge = 0.25
    /// Share of the PN cubic's offset from the straight edge that the new point takes: all of it.
    /// The full cubic reproduces a circular arc through points on the surface, so repeated splits
    /// of a sphere stay on the sphere and the refined surface follows its vertex normals: no
    /// facets of the coarse mesh show through. A scanner's (or ARKit's) vertices lie on the face,
    /// where the full offset is also the nearest to the dense face, nearer than half of it
    /// (the figures, and the command that measures them: docs/ALGORITHMS.md, "Refinement").
    static let bulgeScale = 1.0

    /// `mesh` with exactly `target` vertices (`target ≥ mesh.vertexCount`): the longest edge is
    /// split, again and again, at a point on its PN cubic curve. The input's vertices come first,
    /// unchanged; new vertices follow in split order, with UVs halfway between their edge's ends.
    /// The mesh must be edge-manifold (an edge with more than two triangles is split on two of
    /// them only). Ties between edges of equal length go to the smaller vertex indices, so the
    /// output is the same bytes for the same input.
    ///
    /// - Complexity: O((t + k) log(t + k)) for t triangles and k new vertices.
    /// `curved: false` splits at the straight middle instead (the shape does not change).
    /// `sparingPlane`: an edge with both ends at that z is never split (a solid's bed: splitting
    /// the long chords of its flat cap crowds vertices together there).
    /// The result is finite: when a new point would not be, the input comes back unchanged.
    package static func refine(_ mesh: Mesh, to target: Int, curved: Bool = true, sparingPlane: Float? = nil) -> Mesh {
        precondition(target >= mesh.vertexCount, "refinement only adds vertices")
        var state = State(mesh, capacity: target)
        state.curved = curved
        state.sparedPlane = sparingPlane
        // Input slivers first: bisection keeps at least half of the smallest angle, so a flat
        // sliver flipped away here does not come back as a fan of thinner ones.
        // (Straight splits — a solid padded to its count — keep their triangles as they are.)
        // (A flip leaves no crease sharper than the input's sharpest.)
        if curved { state.creaseCosine = state.sharpestCreaseCosine() }
        let smallest = curved ? state.repairSlivers() : 180
        state.limitCreases()
        // The outline's own tangents, when refinement at least doubles the count (as fairing:
        // below that the new boundary points stand alone between input vertices, and on a dense
        // input the straight boundary is the surface's own).
        if curved && target >= fairingRatio * mesh.vertexCount { state.setBoundaryLoops() }
        state.pushAllEdges()
        while state.positions.count < target {
            guard state.splitLongest() else { break }
            // Asked to stop: the caller throws (the mesh is short of its count).
            if state.positions.count & 1023 == 0 && Cancellation.requested { break }
        }
        // The coarse edges still show as shallow creases: fair the new vertices across them.
        if curved { state.fair(inputCount: mesh.vertexCount) }
        // A sliver flips could not mend (two input vertices very close) leaves thin triangles
        // near it: try flips again there (never needed when the input's angles are all above
        // twice the limit, the bisection bound).
        if curved && smallest < 2 * sliverDegrees { state.repairSlivers(measure: false) }
        let refined = state.mesh(uvs: mesh.uvs != nil)
        // A mesh's coordinates are finite: a new point that overflowed (coordinates near the float
        // limits; Decimation works at Mesh.workingMagnitude) leaves the input as it was, short of
        // its count, which the caller reports.
        return refined.firstNonFiniteVertex == nil ? refined : mesh
    }

    /// One heap entry: an edge by the half-edge slot that held it when pushed and its two ends
    /// (the entry is stale once the slot holds another edge: an edge never comes back once split).
    struct Entry {
        var lengthSquared: Double
        var a: UInt32
        var b: UInt32
        var slot: Int32

        /// Heap order: longer first; equal lengths by the smaller (low, high) vertex pair.
        @inline(__always)
        func before(_ o: Entry) -> Bool {
            if lengthSquared != o.lengthSquared { return lengthSquared > o.lengthSquared }
            let l0 = min(a, b), l1 = min(o.a, o.b)
            if l0 != l1 { return l0 < l1 }
            return max(a, b) < max(o.a, o.b)
        }
    }

    struct State {
        var positions: [SIMD3<Float>]
        var normals: [SIMD3<Float>]
        var uvs: [SIMD2<Float>]
        /// Three vertex indices per triangle; slot 3t + i is the half-edge from corner i to i + 1.
        var triangles: [UInt32]
        /// The opposite half-edge of each slot, −1 on the boundary.
        var twin: [Int32]
        var heap: [Entry] = []
        /// Per slot: an entry was pushed for it (it may be stale since). A split that moves an
        /// edge to a new slot queues it again only when its entry was on the old slot: otherwise
        /// the entry on its twin still names it, and a second one would only be popped stale.
        var queued: [Bool] = []
        var curved = true
        /// Cosine of the sharpest crease (dihedral angle) a split may make: the input's sharpest
        /// (set by ``EdgeRefinement/State/limitCreases()``; −1 allows any).
        var creaseCosine = -1.0
        /// Per vertex: splits touching it are checked against ``creaseCosine`` (set with it).
        var watched: [Bool] = []
        /// Edges with both ends at this z are not split.
        var sparedPlane: Float? = nil
        /// Per vertex on the boundary: the vertices before and after it along its boundary loop
        /// (−1 elsewhere; set by ``setBoundaryLoops()`` for curved splits).
        var boundaryPrevious: [Int32] = []
        var boundaryNext: [Int32] = []

        init(_ mesh: Mesh, capacity: Int) {
            positions = mesh.positions
            normals = mesh.vertexNormals()
            uvs = mesh.uvs ?? []
            triangles = mesh.triangles
            let added = max(0, capacity - mesh.vertexCount)
            positions.reserveCapacity(capacity)
            normals.reserveCapacity(capacity)
            triangles.reserveCapacity(triangles.count + 6 * added)
            // Half-edges paired by their undirected edge (the mesh's topology: the slots that name
            // it, two by two in order), −1 on the boundary.
            twin = MeshTopology(mesh).twin
            twin.reserveCapacity(triangles.count + 6 * added)
            queued = [Bool](repeating: false, count: triangles.count)
            queued.reserveCapacity(triangles.count + 6 * added)
            heap.reserveCapacity(triangles.count + 4 * added)
        }

        /// Queues every edge for splitting (after the input's slivers were flipped away).
        mutating func pushAllEdges() {
            for h in 0..<triangles.count where twin[h] == -1 || twin[h] > Int32(h) { push(h) }
        }

        @inline(__always) package static func next(_ h: Int) -> Int { h % 3 == 2 ? h - 2 : h + 1 }
        @inline(__always) static func prev(_ h: Int) -> Int { h % 3 == 0 ? h + 2 : h - 1 }

        mutating func push(_ h: Int) {
            let a = triangles[h], b = triangles[State.next(h)]
            if let z = sparedPlane, positions[Int(a)].z == z, positions[Int(b)].z == z { return }
            let d = SIMD3<Double>(positions[Int(b)]) - SIMD3<Double>(positions[Int(a)])
            let e = Entry(lengthSquared: (d * d).sum(), a: a, b: b, slot: Int32(h))
            queued[h] = true
            // Sift up (over the heap's buffer: the hottest loop of refinement with pop).
            let count = heap.count
            heap.append(e)
            var hp = heap.flatMut
            var i = count
            while i > 0 {
                let parent = (i - 1) / 2
                guard e.before(hp[parent]) else { break }
                hp[i] = hp[parent]
                i = parent
            }
            hp[i] = e
        }

        mutating func pop() -> Entry? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            let n = heap.count
            if n == 0 { return top }
            var hp = heap.flatMut
            var i = 0
            while true {
                let l = 2 * i + 1
                guard l < n else { break }
                var c = l
                if l + 1 < n && hp[l + 1].before(hp[l]) { c = l + 1 }
                guard hp[c].before(last) else { break }
                hp[i] = hp[c]
                i = c
            }
            hp[i] = last
            return top
        }

        /// Splits the longest edge; false when no edge is left (an empty mesh).
        mutating func splitLongest() -> Bool {
            while let e = pop() {
                let h = Int(e.slot)
                guard triangles[h] == e.a && triangles[State.next(h)] == e.b else { continue }
                var (p, n) = curvePoint(e.a, e.b, alongOutline: twin[h] < 0 && !boundaryNext.isEmpty)
                // Near the sharpest crease a curved point could sharpen it further: the straight
                // middle keeps every crease as it was.
                if curved && !watched.isEmpty && !keepsCreases(h, p) { p = middle(e.a, e.b) }
                // An edge whose halves would leave a triangle without area (a needle already at
                // Float's resolution) is left as it is.
                guard keepsArea(h, p), twin[h] < 0 || keepsArea(Int(twin[h]), p) else { continue }
                split(h, at: p, normal: n)
                return true
            }
            return false
        }

        /// The point on the PN cubic of edge a–b at its middle, and its normal. `alongOutline`:
        /// a boundary edge whose tangents follow the boundary's line
        /// (``outlineBulge(_:_:normals:)``, EdgeRefinement+Boundary.swift).
        func curvePoint(_ a: UInt32, _ b: UInt32, alongOutline: Bool = false) -> (SIMD3<Float>, SIMD3<Float>) {
            let p1 = SIMD3<Double>(positions[Int(a)]), p2 = SIMD3<Double>(positions[Int(b)])
            let n1 = SIMD3<Double>(normals[Int(a)]), n2 = SIMD3<Double>(normals[Int(b)])
            let d = p2 - p1
            var bulge: SIMD3<Double> = .zero
            if curved && alongOutline {
                bulge = outlineBulge(a, b, normals: (n1, n2))
            } else if curved {
                let w12 = (d * n1).sum(), w21 = -(d * n2).sum()
                bulge = -(w12 * n1 + w21 * n2) / 8 * EdgeRefinement.bulgeScale
            }
            let limit = EdgeRefinement.maximumBulge * (d * d).sum().squareRoot()
            let size = (bulge * bulge).sum().squareRoot()
            if size > limit { bulge *= limit / size }
            var n = n1 + n2
            let len = (n * n).sum().squareRoot()
            n = len > 0 ? n / len : n1
            return (SIMD3<Float>((p1 + p2) / 2 + bulge), SIMD3<Float>(n))
        }

        /// Bisects the edge of slot `h` (and its twin's triangle) at a new vertex.
        /// Whether both halves of the triangle of slot `h` split at `p` keep an area in Float.
        func keepsArea(_ h: Int, _ p: SIMD3<Float>) -> Bool {
            let x = positions[Int(triangles[h])], y = positions[Int(triangles[State.next(h)])]
            let z = positions[Int(triangles[State.prev(h)])]
            func area2(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>) -> Float {
                let u = b - a, v = c - a
                let n = SIMD3<Float>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                return (n * n).sum()
            }
            return area2(x, p, z) > 0 && area2(p, y, z) > 0 && p != x && p != y
        }

        mutating func split(_ h: Int, at p: SIMD3<Float>, normal n: SIMD3<Float>) {
            // The new vertex m is the next index.
            let x = triangles[h], y = triangles[State.next(h)]
            positions.append(p)
            normals.append(n)
            if !watched.isEmpty { watched.append(watched[Int(x)] && watched[Int(y)]) }
            if !uvs.isEmpty { uvs.append((uvs[Int(x)] + uvs[Int(y)]) / 2) }
            let g = Int(twin[h])
            if !boundaryNext.isEmpty {
                let m = Int32(positions.count - 1)
                if g < 0 {
                    boundaryNext[Int(x)] = m
                    boundaryPrevious[Int(y)] = m
                    boundaryPrevious.append(Int32(x))
                    boundaryNext.append(Int32(y))
                } else {
                    boundaryPrevious.append(-1)
                    boundaryNext.append(-1)
                }
            }
            // This side: (x, y, z) → (x, m, z) in place + (m, y, z) appended.
            let (keepH, newH) = splitSide(h)
            guard g >= 0 else {
                twin[keepH] = -1
                twin[newH] = -1
                push(keepH)
                push(newH)
                return
            }
            let (keepG, newG) = splitSide(g)
            // Pair the halves that share an end: keepH runs x → m, newH m → y.
            if triangles[keepG] == x {
                link(keepH, keepG)
                link(newH, newG)
            } else {
                link(keepH, newG)
                link(newH, keepG)
            }
            push(keepH)
            push(newH)
        }

        @inline(__always) mutating func link(_ a: Int, _ b: Int) {
            twin[a] = Int32(b)
            twin[b] = Int32(a)
        }

        /// Splits the triangle of slot `h` (x → y, third corner z) at the vertex just appended:
        /// the triangle becomes (x, m, z) in its own slots and (m, y, z) is appended. Returns the
        /// slots of x → m and m → y (their twins are left to the caller); the new inner edge m–z
        /// and the moved edge y → z are linked and pushed.
        mutating func splitSide(_ h: Int) -> (Int, Int) {
            let m = UInt32(positions.count - 1)
            let hn = State.next(h), hp = State.prev(h)
            let y = triangles[hn], z = triangles[hp]
            let oldYZTwin = twin[hn]
            let yzQueuedHere = queued[hn]
            let t2 = triangles.count
            triangles[hn] = m  // slot hn: m → z (was y → z)
            // Slots t2: m → y, t2+1: y → z, t2+2: z → m (one append each: no temporary array).
            triangles.append(m)
            triangles.append(y)
            triangles.append(z)
            twin.append(-1)
            twin.append(oldYZTwin)
            twin.append(Int32(hn))
            queued.append(false)
            queued.append(false)
            queued.append(false)
            twin[hn] = Int32(t2 + 2)
            if oldYZTwin >= 0 { twin[Int(oldYZTwin)] = Int32(t2 + 1) }
            push(hn)
            if yzQueuedHere || oldYZTwin < 0 { push(t2 + 1) }
            return (h, t2)
        }

        func mesh(uvs keepUVs: Bool) -> Mesh {
            Mesh(uncheckedPositions: positions, triangles: triangles, uvs: keepUVs ? uvs : nil)
        }
    }
}
