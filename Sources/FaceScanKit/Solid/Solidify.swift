/// How ``Solidify/solid(_:options:unitInMillimetres:vertexCount:)`` closes a face surface.
public struct SolidOptions: Sendable, Equatable {
    /// Millimetres. Thickness mode: the wall thickness (distance of the back surface behind the
    /// face along the vertex normals). Base mode: how far the flat base lies behind the deepest
    /// point of the surface.
    public var thickness = 2.0
    /// false: a shell of constant thickness. true: the rim is extruded straight back (−z) to a flat
    /// base plane, so the part stands on a table with the face looking up (+z).
    public var base = false

    /// Accepted thickness, millimetres: thinner walls would fall below 32-bit float resolution on
    /// a face-sized part.
    public static let thicknessRange = 0.01...1000.0
    /// ``thicknessRange`` as messages state it.
    public static let thicknessRangeText = "from 0.01 to 1000 mm"

    public init(thickness: Double = 2.0, base: Bool = false) {
        self.thickness = thickness
        self.base = base
    }
}

/// Closes an open face surface into a watertight, outward-oriented solid for printing.
///
/// The surface (CCW seen from outside, +z out of the face) must be edge-manifold, consistently
/// wound and have at least one boundary loop. Its longest boundary loop is the outer rim; every
/// other loop (eyes, mouth, nostrils) is filled with a fair patch (``fillHoles(_:)``). Then:
/// - **thickness**: a copy of the surface is offset behind it along smoothed vertex normals,
///   wound the other way and joined to the front along the rim by a band of quads (two triangles
///   each). The offset is reduced where the surface curves more tightly than the thickness
///   (convex radius below the offset) and, iteratively, wherever the back surface would cross
///   itself or the front (thin features such as the ears get thinner walls there).
/// - **base**: every rim vertex is projected straight back onto the plane
///   z = min z − thickness, the rim and its projection are joined by a wall of quads and the
///   projected rim polygon is capped by ear clipping.
///
/// The front surface's vertices come first, unchanged and in their order; the result has no
/// boundary, no non-manifold or inconsistent edge and positive signed volume.
public enum Solidify {
    enum Constants {
        /// Smoothing passes over the offset directions (each averages a vertex normal with its
        /// neighbours').
        static let normalSmoothing = 1
        /// Fraction of the local convex radius of curvature an offset may use.
        static let curvatureFraction = 0.7
        /// Rounds of "find crossings → reduce the offsets there" in thickness mode.
        static let repairRounds = 12
        /// Smallest cosine allowed between an offset direction and an incident face normal.
        static let coneMargin = 0.2
        static let conePasses = 8
        /// A repair never lowers an offset below this fraction of the thickness.
        static let minimumOffsetFraction = 0.02
    }

    // MARK: Public API

    /// Fills every boundary loop except the longest (the outer rim) with a fair patch (Liepa 2003:
    /// minimum-dihedral triangulation, refinement to the surrounding edge length, bi-Laplacian
    /// fairing). The input's vertices and triangles come first, unchanged; new vertices get UVs
    /// interpolated from the loop when the mesh has UVs. A mesh with at most one loop is returned
    /// as is.
    /// - Complexity: O(n³) per loop of n ≤ 200 vertices, plus O(t log t) for the adjacency.
    public static func fillHoles(_ mesh: Mesh) -> Mesh {
        guard mesh.triangleCount > 0 else { return mesh }
        let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
        guard adjacency.boundaryEdgeCount > 0 else { return mesh }
        let loops = BoundaryLoops(mesh, adjacency: adjacency)
        guard loops.loops.count > 1 else { return mesh }
        return HoleFilling.fill(mesh, adjacency: adjacency, loops: loops, keep: loops.rimIndex(mesh.positions))
    }

    /// Closes `mesh` into a solid (see ``Solidify``). `unitInMillimetres` is the length of one mesh
    /// unit in millimetres (1 for a mesh in mm, 1000 in metres). With `vertexCount`, the result has
    /// exactly that many vertices: after the solid is built, the largest back (or base) triangles
    /// are split at their centroids (in their plane) until the count is reached.
    ///
    /// Throws ``UsageError`` when the mesh is empty, already closed, not edge-manifold, not
    /// consistently wound, has degenerate triangles or non-finite coordinates, when the options
    /// are out of range, when `vertexCount` is below what the solid needs, or (base mode) when the
    /// rim seen from the front is not a simple counter-clockwise outline.
    public static func solid(_ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
                             vertexCount: Int? = nil) throws(UsageError) -> Mesh {
        guard SolidOptions.thicknessRange.contains(options.thickness) else {
            throw UsageError("solid thickness must be \(SolidOptions.thicknessRangeText) (got \(options.thickness))")
        }
        guard unitInMillimetres.isFinite, unitInMillimetres > 0 else {
            throw UsageError("the mesh unit must be a positive length in millimetres (got \(unitInMillimetres))")
        }
        try validate(mesh)
        // 1. Close every hole but the rim.
        let surface = fillHoles(mesh)
        let adjacency = Adjacency(triangles: surface.triangles, vertexCount: surface.vertexCount)
        let loops = BoundaryLoops(surface, adjacency: adjacency)
        guard let r = loops.rimIndex(surface.positions) else { throw UsageError("the mesh has no boundary: it is already closed") }
        let rim = loops.loops[r]
        let thickness = options.thickness / unitInMillimetres
        // 2. Back surface or base.
        var solid: Mesh
        var paddable: Range<Int>
        if options.base {
            (solid, paddable) = try extrudeToBase(surface, rim: rim, depth: thickness)
        } else {
            (solid, paddable) = shell(surface, adjacency: adjacency, rim: rim, thickness: thickness)
        }
        // 3. Exact vertex count.
        if let target = vertexCount {
            guard target >= solid.vertexCount else {
                throw UsageError("a solid of this surface needs at least \(solid.vertexCount) vertices (\(target) requested); decimate the surface to \(surfaceVertexTarget(solidVertexCount: target, rimVertexCount: rim.count, options: options)) vertices first")
            }
            pad(&solid, to: target, splitting: paddable)
        }
        let check = MeshCheck(solid)
        guard check.isWatertight, check.isClean else {
            throw UsageError("could not close the surface into a solid (\(check.summary))")
        }
        return solid
    }

    /// How many vertices ``solid(_:options:unitInMillimetres:vertexCount:)`` adds to `surface`:
    /// the hole patches, plus the back copy of the filled surface (thickness) or one base vertex
    /// per rim vertex (base). Runs ``fillHoles(_:)``; O(1) extra work when the holes are filled.
    public static func addedVertexCount(_ surface: Mesh, options: SolidOptions) -> Int {
        let filled = fillHoles(surface)
        let fill = filled.vertexCount - surface.vertexCount
        if !options.base { return fill + filled.vertexCount }
        let adjacency = Adjacency(triangles: filled.triangles, vertexCount: filled.vertexCount)
        let loops = BoundaryLoops(filled, adjacency: adjacency)
        return fill + (loops.rimIndex(filled.positions).map { loops.loops[$0].count } ?? 0)
    }

    /// The vertex count to decimate a hole-filled surface to so that its solid can be padded to
    /// exactly `solidVertexCount`: ⌊target / 2⌋ in thickness mode, target − rim vertices in base
    /// mode (`rimVertexCount`: the rim of the surface that will be solidified; decimation that
    /// keeps or shortens the rim keeps the target reachable).
    public static func surfaceVertexTarget(solidVertexCount target: Int, rimVertexCount: Int, options: SolidOptions) -> Int {
        options.base ? target - rimVertexCount : target / 2
    }

    /// Number of vertices on the outer rim (the longest boundary loop) of `mesh`; 0 when closed.
    public static func rimVertexCount(_ mesh: Mesh) -> Int {
        let adjacency = Adjacency(triangles: mesh.triangles, vertexCount: mesh.vertexCount)
        let loops = BoundaryLoops(mesh, adjacency: adjacency)
        return loops.rimIndex(mesh.positions).map { loops.loops[$0].count } ?? 0
    }

    // MARK: Input check

    static func validate(_ mesh: Mesh) throws(UsageError) {
        let c = MeshCheck(mesh)
        guard c.triangleCount > 0 else { throw UsageError("cannot make a solid of a mesh without triangles") }
        guard c.outOfRangeTriangles == 0 else { throw UsageError("the mesh has \(c.outOfRangeTriangles) triangles with out-of-range vertex indices") }
        guard c.nonFiniteVertices == 0 else { throw UsageError("the mesh has \(c.nonFiniteVertices) vertices with non-finite coordinates") }
        guard c.degenerateTriangles == 0, c.duplicateTriangles == 0 else {
            throw UsageError("the mesh has \(c.degenerateTriangles) degenerate and \(c.duplicateTriangles) duplicate triangles")
        }
        guard c.boundaryEdges > 0 else { throw UsageError("the mesh has no boundary: it is already closed") }
        guard c.nonManifoldEdges == 0 else { throw UsageError("the mesh is not edge-manifold (\(c.nonManifoldEdges) edges shared by more than two triangles)") }
        guard c.inconsistentEdges == 0 else { throw UsageError("the mesh is not consistently wound (\(c.inconsistentEdges) edges traversed the same way by both triangles)") }
    }

    // MARK: Thickness mode

    /// Front + offset back + rim band. Returns the solid and the range of back triangles.
    static func shell(_ surface: Mesh, adjacency: Adjacency, rim: [UInt32], thickness: Double) -> (Mesh, Range<Int>) {
        let n = surface.vertexCount
        let p = surface.positions.map { SIMD3<Double>($0) }
        let normals = coneCorrected(surface, smoothedNormals(surface, adjacency: adjacency))
        // Offset per vertex: the thickness, limited by the convex radius of curvature (a point
        // offset further than the radius of the sphere touching the surface from inside folds).
        var offset = [Double](repeating: thickness, count: n)
        for v in 0..<n {
            let nv = normals[v]
            guard nv != .zero else {
                offset[v] = 0
                continue
            }
            for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                let d = p[Int(adjacency.neighbors[k])] - p[v]
                let h = dot3(d, nv)
                if h < 0 { offset[v] = min(offset[v], Constants.curvatureFraction * dot3(d, d) / (-2 * h)) }
            }
        }
        smoothMinimum(&offset, adjacency: adjacency)
        // Topology: front, back reversed, band.
        let tc = surface.triangleCount
        var triangles = surface.triangles
        triangles.reserveCapacity(6 * tc + 6 * rim.count)
        for t in 0..<tc {
            let (a, b, c) = surface.triangle(t)
            triangles.append(a + UInt32(n))
            triangles.append(c + UInt32(n))
            triangles.append(b + UInt32(n))
        }
        appendBand(&triangles, rim: rim, offset: UInt32(n))
        var uvs = surface.uvs
        if let u = uvs { uvs = u + u }
        var solid = Mesh(positions: surface.positions + surface.positions, triangles: triangles, uvs: uvs)
        // Place the back surface. Where it crosses anything (a thin fold such as an eyelid margin
        // meeting its patch, an ear), lower the offsets of the back vertices involved by 30 % and
        // test again; later rounds test only triangles with a back vertex in the region touched
        // so far (the rest cannot have changed).
        var region = [Bool](repeating: false, count: n)
        var flagged: [Bool]? = nil
        for round in 0...Constants.repairRounds {
            for v in 0..<n { solid.positions[n + v] = SIMD3<Float>(p[v] - offset[v] * normals[v]) }
            guard round < Constants.repairRounds else { break }
            let crossings = SelfIntersection.pairs(solid, only: flagged)
            var touched = [Bool](repeating: false, count: n)
            var any = false
            for pair in crossings {
                for t in [Int(pair.x), Int(pair.y)] {
                    for c in 0..<3 {
                        let v = Int(solid.triangles[3 * t + c])
                        if v >= n {
                            touched[v - n] = true
                            any = true
                        }
                    }
                }
            }
guard any else { break }
            for v in 0..<n where touched[v] {
                region[v] = true
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) { region[Int(adjacency.neighbors[k])] = true }
            }
            for v in 0..<n where touched[v] { offset[v] = max(Constants.minimumOffsetFraction * thickness, offset[v] * 0.7) }
            // Triangles that can move from now on: those with a back vertex in the region.
            var f = [Bool](repeating: false, count: solid.triangleCount)
            for t in 0..<solid.triangleCount {
                for c in 0..<3 {
                    let v = Int(solid.triangles[3 * t + c])
                    if v >= n && region[v - n] { f[t] = true }
                }
            }
            flagged = f
        }
        return (solid, tc..<(2 * tc))
    }

    /// Area-weighted vertex normals averaged with their neighbours' ``Constants/normalSmoothing``
    /// times (double precision, renormalised each pass).
    static func smoothedNormals(_ mesh: Mesh, adjacency: Adjacency) -> [SIMD3<Double>] {
        var nrm = mesh.vertexNormals().map { SIMD3<Double>($0) }
        var next = nrm
        for _ in 0..<Constants.normalSmoothing {
            for v in nrm.indices {
                guard nrm[v] != .zero else { continue }
                var s = nrm[v]
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) { s += nrm[Int(adjacency.neighbors[k])] }
                let l = norm3(s)
                next[v] = l > 0 ? s / l : nrm[v]
            }
            swap(&nrm, &next)
        }
        return nrm
    }

    /// Turns each vertex normal, where needed, until it makes an angle below ~78° with every
    /// incident face normal (n · n_f ≥ ``Constants/coneMargin``): offsetting along −n then enters
    /// the solid through every incident face, also at creases and crumpled spots where the mean
    /// normal points out through one of the faces. A few projection passes (each pushes n away
    /// from the worst face); a vertex with no such direction keeps its best attempt.
    static func coneCorrected(_ mesh: Mesh, _ normals: [SIMD3<Double>]) -> [SIMD3<Double>] {
        let n = mesh.vertexCount
        // Incident triangles per vertex, CSR.
        var offs = [Int32](repeating: 0, count: n + 1)
        for i in mesh.triangles { offs[Int(i) + 1] += 1 }
        for v in 0..<n { offs[v + 1] += offs[v] }
        var fill = offs
        var inc = [Int32](repeating: 0, count: mesh.triangles.count)
        for (k, i) in mesh.triangles.enumerated() {
            inc[Int(fill[Int(i)])] = Int32(k / 3)
            fill[Int(i)] += 1
        }
        var faceNormal = [SIMD3<Double>](repeating: .zero, count: mesh.triangleCount)
        for t in 0..<mesh.triangleCount { faceNormal[t] = SIMD3<Double>(mesh.faceNormal(t)) }
        var out = normals
        for v in 0..<n where out[v] != .zero {
            var d = out[v]
            for _ in 0..<Constants.conePasses {
                var worst = Double.infinity, worstFace = -1
                for k in Int(offs[v])..<Int(offs[v + 1]) {
                    let c = dot3(d, faceNormal[Int(inc[k])])
                    if c < worst {
                        worst = c
                        worstFace = Int(inc[k])
                    }
                }
                guard worstFace >= 0, worst < Constants.coneMargin else { break }
                d += (Constants.coneMargin + 0.05 - worst) * faceNormal[worstFace]
                let l = norm3(d)
                guard l > 0 else { break }
                d /= l
            }
            out[v] = d
        }
        return out
    }

    /// Two passes of `x[v] = min(x[v], mean(x[v], mean of neighbours))`: a lowered offset spreads
    /// a little so the back surface does not step.
    static func smoothMinimum(_ x: inout [Double], adjacency: Adjacency) {
        for _ in 0..<2 {
            let src = x
            for v in src.indices {
                let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
                guard hi > lo else { continue }
                var s = 0.0
                for k in lo..<hi { s += src[Int(adjacency.neighbors[k])] }
                x[v] = min(src[v], 0.5 * (src[v] + s / Double(hi - lo)))
            }
        }
    }

    /// The quads joining rim half-edge a → b (front) to a' → b' (a' = a + offset): triangles
    /// (b, a, a') and (b, a', b'), which use a → b and a' → b' the other way round.
    static func appendBand(_ triangles: inout [UInt32], rim: [UInt32], offset: UInt32) {
        for i in rim.indices {
            let a = rim[i], b = rim[(i + 1) % rim.count]
            triangles += [b, a, a + offset, b, a + offset, b + offset]
        }
    }

    // MARK: Base mode

    /// Front + wall from the rim straight back to z = min z − depth + planar cap. Returns the solid
    /// and the range of cap triangles.
    static func extrudeToBase(_ surface: Mesh, rim: [UInt32], depth: Double) throws(UsageError) -> (Mesh, Range<Int>) {
        let n = surface.vertexCount
        let z0 = Float(Double(surface.bounds.min.z) - depth)
        // Rim seen from +z: counter-clockwise when the face looks toward +z.
        guard BoundaryLoops.xyArea(rim, surface.positions) > 0 else {
            throw UsageError("base mode needs a face looking toward +z: its rim, seen from the front, must run counter-clockwise around the face")
        }
        let outline = rim.map { SIMD2<Double>(Double(surface.positions[Int($0)].x), Double(surface.positions[Int($0)].y)) }
        guard let cap = EarClipping.triangulate(outline) else {
            throw UsageError("base mode needs a rim whose outline seen from the front does not cross itself; use thickness mode")
        }
        var positions = surface.positions
        var uvs = surface.uvs
        for v in rim {
            let q = surface.positions[Int(v)]
            positions.append(SIMD3(q.x, q.y, z0))
            uvs?.append(surface.uvs![Int(v)])
        }
        var triangles = surface.triangles
        // Wall: rim vertex rim[i] ↔ base vertex n + i.
        for i in rim.indices {
            let j = (i + 1) % rim.count
            let a = rim[i], b = rim[j], a2 = UInt32(n + i), b2 = UInt32(n + j)
            triangles += [b, a, a2, b, a2, b2]
        }
        // Cap: counter-clockwise seen from +z, reversed to face −z (uses base edge b' → a').
        let capStart = triangles.count / 3
        for t in cap {
            triangles += [UInt32(n) + UInt32(t.x), UInt32(n) + UInt32(t.z), UInt32(n) + UInt32(t.y)]
        }
        return (Mesh(positions: positions, triangles: triangles, uvs: uvs), capStart..<(triangles.count / 3))
    }

    // MARK: Padding

    /// Splits triangles of `range` (largest first) at their centroids until `mesh` has `target`
    /// vertices. The new vertex lies in the split triangle's plane, so the shape is unchanged.
    static func pad(_ mesh: inout Mesh, to target: Int, splitting range: Range<Int>) {
        var candidates = Array(range)
        while mesh.vertexCount < target {
            var areas = [Double](repeating: 0, count: candidates.count)
            for (k, t) in candidates.enumerated() {
                let (a, b, c) = mesh.triangle(t)
                let pa = SIMD3<Double>(mesh.positions[Int(a)])
                areas[k] = norm3(cross3(SIMD3<Double>(mesh.positions[Int(b)]) - pa, SIMD3<Double>(mesh.positions[Int(c)]) - pa))
            }
            let order = candidates.indices.sorted { areas[$0] > areas[$1] || (areas[$0] == areas[$1] && candidates[$0] < candidates[$1]) }
            var added: [Int] = []
            for k in order.prefix(target - mesh.vertexCount) {
                let t = candidates[k]
                let (a, b, c) = mesh.triangle(t)
                let v = UInt32(mesh.vertexCount)
                let centroid = (SIMD3<Double>(mesh.positions[Int(a)]) + SIMD3<Double>(mesh.positions[Int(b)]) + SIMD3<Double>(mesh.positions[Int(c)])) / 3
                mesh.positions.append(SIMD3<Float>(centroid))
                if let uvs = mesh.uvs { mesh.uvs!.append((uvs[Int(a)] + uvs[Int(b)] + uvs[Int(c)]) / 3) }
                mesh.triangles[3 * t + 2] = v
                mesh.triangles += [b, c, v, c, a, v]
                added += [mesh.triangleCount - 2, mesh.triangleCount - 1]
            }
            candidates += added
        }
    }
}
