/// How ``Solidify/solid(_:options:unitInMillimetres:vertexCount:)`` closes a face surface and
/// places it for printing.
public struct SolidOptions: Sendable, Hashable, Codable {
    /// Millimetres. Thickness mode: the wall thickness (the back surface lies this far behind the
    /// face along the vertex normals). Base mode: unused (the back is the flat cut plane).
    public var thickness = 2.0
    /// false: a shell of constant thickness standing on its rim. true: a relief, the space between
    /// the face and the cut plane filled solid.
    public var base = false
    /// Millimetres: the cut plane lies this far behind the frontmost point (the face looks +z);
    /// everything behind it is cut away and the rim above it is carried down onto it.
    public var depth = SolidOptions.defaultDepth
    /// Printer build volume in millimetres (width x, depth y, height z): the part is scaled down
    /// uniformly, never up, to fit it. nil: life size.
    public var fit: SIMD3<Double>? = nil

    /// Accepted thickness, millimetres: thinner walls would fall below 32-bit float resolution on
    /// a face-sized part.
    public static let thicknessRange = 0.01...1000.0
    /// ``thicknessRange`` as messages state it.
    public static let thicknessRangeText = "from 0.01 to 1000 mm"
    /// Default ``depth``: a face mask from the nose tip back to the cheeks and the temples.
    public static let defaultDepth = 40.0
    /// Accepted depth, millimetres.
    public static let depthRange = 1.0...1000.0
    public static let depthRangeText = "from 1 to 1000 mm"

    /// A build volume written `WxDxH` in millimetres (`250x210x210`), nil unless three positive
    /// finite numbers.
    public static func parseBuildVolume(_ text: String) -> SIMD3<Double>? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 3, let w = parts[0], let d = parts[1], let h = parts[2],
            w > 0, d > 0, h > 0, w.isFinite, d.isFinite, h.isFinite
        else { return nil }
        return SIMD3(w, d, h)
    }

    public init(
        thickness: Double = 2.0, base: Bool = false, depth: Double = SolidOptions.defaultDepth,
        fit: SIMD3<Double>? = nil
    ) {
        self.thickness = thickness
        self.base = base
        self.depth = depth
        self.fit = fit
    }
}

/// Closes an open face surface into a watertight, outward-oriented solid in printing position.
///
/// The surface (CCW seen from outside, +z out of the face) must be edge-manifold, consistently
/// wound and have at least one boundary loop. Its longest boundary loop is the outer rim; every
/// other loop (eyes, mouth, nostrils) is filled with a fair patch (``fillHoles(_:)``). Where the
/// surface crosses itself (the corners of closed lips), it is smoothed locally until it does not
/// (`Untangle`). Then:
/// 1. **Cut** by the plane ``SolidOptions/depth`` behind the frontmost point; the rim above the
///    plane is carried straight down onto it by a skirt, so the part stands on the plane
///    (`PlaneTrim`). With ``SolidOptions/fit``, scaled down uniformly to fit the build volume.
/// 2. **thickness**: a copy of the surface is offset behind it along smoothed vertex normals
///    (rim vertices within the plane), wound the other way and joined to the front along the rim
///    by a band of quads in the plane. The offset is reduced where the surface curves more tightly
///    than the thickness (convex radius below the offset) and, iteratively, wherever the back
///    surface would cross itself or the front. That back decides the cut; then the back is made
///    again as the level set of the distance to the front (`LevelSetShell`), so the wall is as
///    thick as asked and solid where the face folds tighter than two walls, joined to the rim by
///    a ring in the plane (the offset back, pushed out to the thickness, where that fails).
///    **base**: the rim, which lies in the plane, is capped by ear clipping: a solid relief.
/// 3. **Placed**: centred on x and y, the plane at z = 0, the face looking up (+z).
/// 4. With a vertex count: the longest edges are split at their middles (the shape does not
///    change) until the count is reached.
///
/// The result has no boundary, no non-manifold or inconsistent edge and positive signed volume.
public enum Solidify {
    enum Constants {
        /// Smoothing passes over the offset directions (each averages a vertex normal with its
        /// neighbours').
        static let normalSmoothing = 4
        /// Fraction of the local convex radius of curvature an offset may use.
        static let curvatureFraction = 0.7
        /// Rounds of "find crossings → reduce the offsets there" in thickness mode.
        static let repairRounds = 12
        /// Smallest cosine allowed between an offset direction and an incident face normal.
        static let coneMargin = 0.2
        static let conePasses = 8
        /// Cuts tried, each ``depthStep`` times the depth of the one before.
        static let depthTries = 16
        static let depthStep = 0.9
        /// Largest factor a crease may lengthen an offset by.
        static let creaseLimit = 3.0
        /// Height of a shell's plinth (the vertical wall it stands on), in thicknesses.
        static let plinthThicknesses = 2.0
        /// Lowest height of a shell's back surface off its rim, in thicknesses.
        static let bedMarginFraction = 0.05
        /// Times the front is smoothed where the back still crosses it, before the cut moves.
        static let frontRelaxTries = 4
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

    /// A solid part and the uniform scale ``SolidOptions/fit`` applied (1 at life size).
    public struct Part: Sendable {
        public var mesh: Mesh
        public var scale: Double
        /// Millimetres from the frontmost point to the cut: ``SolidOptions/depth``, or less where
        /// the rim overhung the cut asked for.
        public var depth: Double
        /// The front's triangles: the first ones of ``mesh`` (nil once padded to a vertex count).
        package var frontTriangles: Int? = nil
    }

    /// The skirted surface in printing position (centred on x/y, the cut at z = 0), its rim,
    /// adjacency and (base) the triangulation of its outline; nil when its skirt cuts into it or
    /// (base) its outline crosses itself.
    static func position(_ skirted: Mesh, skirtStart: Int, plane: Float, base: Bool) throws(UsageError)
        -> (front: Mesh, rim: [UInt32], adjacency: Adjacency, outline: [SIMD3<Int32>]?)?
    {
        var front = skirted
        let (lo, hi) = front.bounds
        let shift = SIMD3<Float>((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, plane)
        for i in front.positions.indices {
            front.positions[i] -= shift
            front.positions[i].z = max(0, front.positions[i].z)
        }
        let adjacency = Adjacency(triangles: front.triangles, vertexCount: front.vertexCount)
        let loops = BoundaryLoops(front, adjacency: adjacency)
        guard loops.loops.count == 1, let r = loops.rimIndex(front.positions) else { return nil }
        // A cut that passed within Float's resolution of a vertex leaves a needle without area.
        guard MeshCheck(front).degenerateTriangles == 0 else { return nil }
        let rim = loops.loops[r]
        var skirt = [Bool](repeating: false, count: front.triangleCount)
        for t in skirtStart..<front.triangleCount { skirt[t] = true }
        guard SelfIntersection.pairs(front, only: skirt, limit: 1).isEmpty else { return nil }
        if base {
            guard BoundaryLoops.xyArea(rim, front.positions) > 0 else {
                throw UsageError(
                    "base mode needs a face looking toward +z: its rim, seen from the front, must run counter-clockwise around the face"
                )
            }
            guard let outline = outline(front, rim: rim) else { return nil }
            return (front, rim, adjacency, outline)
        }
        return (front, rim, adjacency, nil)
    }

    /// Closes `mesh` into a solid in printing position (see ``Solidify``). `unitInMillimetres` is
    /// the length of one mesh unit in millimetres (1 for a mesh in mm, 1000 in metres); the result
    /// is in the same unit. With `vertexCount`, the result has exactly that many vertices.
    ///
    /// Throws ``UsageError`` when the mesh is empty, already closed, not edge-manifold, not
    /// consistently wound, has degenerate triangles or non-finite coordinates, when the options
    /// are out of range, when `vertexCount` is below what the solid needs, or (base mode) when the
    /// rim seen from the front is not a simple counter-clockwise outline.
    public static func solid(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(FaceScanError) -> Mesh {
        try part(mesh, options: options, unitInMillimetres: unitInMillimetres, vertexCount: vertexCount).mesh
    }

    /// ``solid(_:options:unitInMillimetres:vertexCount:)`` with the scale it applied.
    public static func part(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(FaceScanError) -> Part {
        do {
            return try makePart(mesh, options: options, unitInMillimetres: unitInMillimetres, vertexCount: vertexCount)
        } catch {
            throw .badSetting(error)
        }
    }

    /// ``part(_:options:unitInMillimetres:vertexCount:)`` with the narrow error, for callers that
    /// name the input themselves (``UsageError/naming(input:)``).
    package static func makePart(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(UsageError) -> Part {
        guard SolidOptions.thicknessRange.contains(options.thickness) else {
            throw UsageError("solid thickness must be \(SolidOptions.thicknessRangeText) (got \(options.thickness))")
        }
        guard SolidOptions.depthRange.contains(options.depth) else {
            throw UsageError("solid depth must be \(SolidOptions.depthRangeText) (got \(options.depth))")
        }
        if let fit = options.fit, !(fit.min() > 0 && fit.max().isFinite) {
            throw UsageError(
                "the build volume to fit must be three positive sizes in mm (got \(fit.x)x\(fit.y)x\(fit.z))")
        }
        guard unitInMillimetres.isFinite, unitInMillimetres > 0 else {
            throw UsageError("the mesh unit must be a positive length in millimetres (got \(unitInMillimetres))")
        }
        try validate(mesh)
        // 1. Close every hole but the rim, cut behind the face and skirt the rim down to the cut.
        //    Where the skirt would cut into the face (a rim overhanging the cut, as under a chin)
        //    or its outline would cross itself, the cut moves forward until it does not: a
        //    cut that leaves the whole rim behind it is a plane section, always clean.
        //    The same when the closed part would cross itself where the face did not.
        //    Where the face crosses itself (closed lips), it is first smoothed there until it does
        //    not: a back surface behind a crossing would cross the front as well.
        let (surface, ownCrossings) = Untangle.untangled(fillHoles(mesh))
        let frontmost = surface.bounds.max.z
        let thickness = options.thickness / unitInMillimetres
        var depth = options.depth
        var best: Part? = nil
        var bestFront: (mesh: Mesh, rim: [UInt32], adjacency: Adjacency)? = nil
        for _ in 0..<Constants.depthTries {
            if Task.isCancelled { throw UsageError("cancelled") }  // an async finish was cancelled
            let plane = Float(Double(frontmost) - depth / unitInMillimetres)
            // A shell stands on a vertical wall twice its thickness tall, so its back surface
            // never reaches the bed.
            let plinth = options.base ? 0 : Float(Constants.plinthThicknesses * thickness)
            guard let trimmed = PlaneTrim.trimAndSkirt(surface, plane: plane, plinth: plinth) else {
                throw UsageError("nothing of the surface lies within \(depth) mm of its frontmost point")
            }
            guard
                let placed = try position(
                    trimmed.mesh, skirtStart: trimmed.skirtStart, plane: plane, base: options.base)
            else {
                depth *= Constants.depthStep
                continue
            }
            var front = placed.front
            let (rim, adjacency, outline) = (placed.rim, placed.adjacency, placed.outline)
            // 2. Scaled down to fit the build volume.
            var scale = 1.0
            if let fit = options.fit {
                let (lo, hi) = front.bounds
                let size = SIMD3<Double>(hi - lo) * unitInMillimetres
                scale = min(1, min(fit.x / size.x, min(fit.y / size.y, fit.z / size.z)))
                // Uniform: the adjacency and the outline's triangulation still hold.
                if scale < 1 { front = front.scaledUnchecked(by: Float(scale)) }
            }
            // 3. Back surface or cap; what the solid adds must not cross anything.
            var solid: Mesh
            var crossings: Int? = nil  // known when the front was checked below
            if let outline {
                solid = cap(front, rim: rim, outline: outline)
            } else {
                solid = shell(
                    front, adjacency: adjacency, rim: rim, thickness: thickness, skirtStart: trimmed.skirtStart)
                // Where the back still crosses the front (a fold tighter than the repair can
                // follow, as at a mouth's corner), the front is smoothed there and the back made
                // again, a few times, before the cut moves forward.
                var fixed = [Bool](repeating: false, count: front.vertexCount)
                for v in rim { fixed[Int(v)] = true }
                for t in trimmed.skirtStart..<front.triangleCount {
                    for c in 0..<3 { fixed[Int(front.triangles[3 * t + c])] = true }
                }
                for _ in 0..<Constants.frontRelaxTries {
                    let pairs = SelfIntersection.pairs(solid)
                    crossings = pairs.count
                    guard pairs.count > ownCrossings else { break }
                    var seeds: [Int] = []
                    for pair in pairs {
                        let (a, b) = (Int(min(pair.x, pair.y)), Int(max(pair.x, pair.y)))
                        if a < trimmed.skirtStart && b >= front.triangleCount { seeds.append(a) }
                    }
                    guard !seeds.isEmpty else { break }
                    var relaxed = front
                    Untangle.relax(&relaxed, around: seeds, adjacency: adjacency, fixed: fixed)
                    guard !Untangle.hasFlatTriangle(relaxed) else { break }
                    front = relaxed
                    solid = shell(
                        front, adjacency: adjacency, rim: rim, thickness: thickness, skirtStart: trimmed.skirtStart)
                    crossings = nil
                }
            }
            let part = Part(mesh: solid, scale: scale, depth: depth, frontTriangles: front.triangleCount)
            if best == nil { (best, bestFront) = (part, (front, rim, adjacency)) }
            // No more crossing pairs than the face itself had (a scan's lips may overlap).
            if (crossings ?? SelfIntersection.pairs(solid, limit: ownCrossings + 1).count) <= ownCrossings {
                (best, bestFront) = (part, (front, rim, adjacency))
                break
            }
            depth *= Constants.depthStep
        }
        guard var part = best else {
            throw UsageError(
                "could not cut the surface into a part that stands on a plane (tried depths down to \(depth) mm)")
        }
        // The shell's wall as thick as asked: the back made again as the level set of the distance
        // to the front (solid where the face folds tighter than the wall; `LevelSetShell` refuses
        // a back or ring that crosses anything, so the front's own crossings are all there are);
        // where that fails, the offset back pushed out to the thickness where it lies closer (no
        // crossing added: the crossing check above still holds).
        if !options.base, let front = bestFront {
            if let levelSet = LevelSetShell.shell(
                front.mesh, rim: front.rim, thickness: thickness, backVertices: front.mesh.vertexCount)
            {
                part.mesh = levelSet
            } else {
                var onRim = [Bool](repeating: false, count: front.mesh.vertexCount)
                for v in front.rim { onRim[Int(v)] = true }
                WallThickness.thicken(
                    &part.mesh, front: front.mesh, adjacency: front.adjacency, fixed: onRim, thickness: thickness,
                    bed: Constants.bedMarginFraction * thickness)
            }
        }
        var solid = part.mesh
        // 4. Exact vertex count: straight longest-edge splits do not change the shape.
        if let target = vertexCount {
            solid = try padded(solid, to: target)
            part.frontTriangles = nil
        }
        let check = MeshCheck(solid)
        guard check.isWatertight, check.isClean else {
            throw UsageError("could not close the surface into a solid (\(check.summary))")
        }
        part.mesh = solid
        return part
    }

    /// `solid` with exactly `target` vertices: its longest edges split at their middles (the
    /// shape does not change; no angle falls below half the smallest before).
    static func padded(_ solid: Mesh, to target: Int) throws(UsageError) -> Mesh {
        guard target >= solid.vertexCount else {
            throw UsageError(
                "a solid of this surface needs at least \(solid.vertexCount) vertices (\(target) requested)")
        }
        let padded = EdgeRefinement.refine(solid, to: target, curved: false)
        guard padded.vertexCount == target else {
            throw UsageError("could not split this solid to \(target) vertices (\(padded.vertexCount) at most)")
        }
        return padded
    }

    // MARK: Input check

    static func validate(_ mesh: Mesh) throws(UsageError) {
        let c = MeshCheck(mesh)
        guard c.triangleCount > 0 else { throw UsageError("cannot make a solid of a mesh without triangles") }
        guard c.outOfRangeTriangles == 0 else {
            throw UsageError("the mesh has \(c.outOfRangeTriangles) triangles with out-of-range vertex indices")
        }
        guard c.nonFiniteVertices == 0 else {
            throw UsageError("the mesh has \(c.nonFiniteVertices) vertices with non-finite coordinates")
        }
        guard c.degenerateTriangles == 0, c.duplicateTriangles == 0 else {
            throw UsageError(
                "the mesh has \(c.degenerateTriangles) degenerate and \(c.duplicateTriangles) duplicate triangles")
        }
        guard c.boundaryEdges > 0 else { throw UsageError("the mesh has no boundary: it is already closed") }
        guard c.nonManifoldEdges == 0 else {
            throw UsageError(
                "the mesh is not edge-manifold (\(c.nonManifoldEdges) edges shared by more than two triangles)")
        }
        guard c.inconsistentEdges == 0 else {
            throw UsageError(
                "the mesh is not consistently wound (\(c.inconsistentEdges) edges traversed the same way by both triangles)"
            )
        }
    }

    // MARK: Thickness mode

    /// Front + offset back + rim band (in the bed plane z = 0, where the rim lies).
    /// Triangles from `skirtStart` on are the plinth: its vertices are offset by the mitre rule
    /// alone (the fold between face and plinth is a crease, not a tight curve).
    static func shell(
        _ surface: Mesh, adjacency: Adjacency, rim: [UInt32], thickness: Double,
        skirtStart: Int = Int.max
    ) -> Mesh {
        let n = surface.vertexCount
        let p = surface.positions.map { SIMD3<Double>($0) }
        var normals = coneCorrected(surface, smoothedNormals(surface, adjacency: adjacency))
        let bedMargin = Constants.bedMarginFraction * thickness
        // Offset per vertex: the thickness, limited by the convex radius of curvature (a point
        // offset further than the radius of the sphere touching the surface from inside folds).
        var offset = [Double](repeating: thickness, count: n)
        // Rim vertices lie on the bed (z = 0): they move within it, as far as makes the wall as
        // thick as asked across a surface meeting the bed at a slant (at most three times).
        var onRim = [Bool](repeating: false, count: n)
        for v in rim { onRim[Int(v)] = true }
        for v in rim {
            let nv = normals[Int(v)]
            let flat = SIMD3<Double>(nv.x, nv.y, 0)
            let l = norm3(flat)
            normals[Int(v)] = l > 1e-6 ? flat / l : .zero
            offset[Int(v)] = l > 1e-6 ? min(3 * thickness, thickness / l) : 0
        }
        // At a crease (the fold between the face and its plinth) a vertex moves further, so that
        // every incident face's plane moves back by the thickness (at most three times).
        var leastCosine = [Double](repeating: 1, count: n)
        for t in 0..<surface.triangleCount {
            let f = SIMD3<Double>(surface.faceNormal(t))
            for c in 0..<3 {
                let v = Int(surface.triangles[3 * t + c])
                leastCosine[v] = min(leastCosine[v], dot3(normals[v], f))
            }
        }
        // Plinth vertices (on a plinth triangle) skip the curvature limit; those on plinth
        // triangles only (the wall below the fold) move straight in, level, by the thickness.
        var onPlinth = [Bool](repeating: false, count: n)
        var offPlinth = [Bool](repeating: false, count: n)
        for t in 0..<surface.triangleCount {
            for c in 0..<3 {
                let v = Int(surface.triangles[3 * t + c])
                if t >= skirtStart { onPlinth[v] = true } else { offPlinth[v] = true }
            }
        }
        for v in 0..<n where onPlinth[v] && !offPlinth[v] && !onRim[v] {
            let flat = SIMD3<Double>(normals[v].x, normals[v].y, 0)
            let l = norm3(flat)
            if l > 1e-6 {
                normals[v] = flat / l
                leastCosine[v] = 1
            }
        }
        for v in 0..<n where !onRim[v] {
            offset[v] = thickness / max(leastCosine[v], 1 / Constants.creaseLimit)
        }
        for v in 0..<n where !onRim[v] && !onPlinth[v] {
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
        var solid = Mesh(uncheckedPositions: surface.positions + surface.positions, triangles: triangles, uvs: uvs)
        // Place the back surface. Where it crosses anything (a thin fold such as an eyelid margin
        // meeting its patch, an ear), lower the offsets of the back vertices involved by 30 % and
        // test again; later rounds test only triangles with a back vertex in the region touched
        // so far (the rest cannot have changed). The first round tests every triangle with a
        // back vertex (back and band): crossings of the front with itself are the surface's own
        // and touch no back vertex.
        var region = [Bool](repeating: false, count: n)
        var flagged = [Bool](repeating: false, count: tc) + [Bool](repeating: true, count: solid.triangleCount - tc)
        for round in 0...Constants.repairRounds {
            for v in 0..<n {
                var q = p[v] - offset[v] * normals[v]
                // Nothing of the back surface below the bed; its rim on it.
                q.z = onRim[v] ? 0 : max(q.z, bedMargin)
                solid.positions[n + v] = SIMD3<Float>(q)
            }
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
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                    region[Int(adjacency.neighbors[k])] = true
                }
            }
            for v in 0..<n where touched[v] {
                offset[v] = max(Constants.minimumOffsetFraction * thickness, offset[v] * 0.7)
            }
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
        return solid
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
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                    s += nrm[Int(adjacency.neighbors[k])]
                }
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

    /// The ear-clipping triangulation of the rim seen from +z, nil when it crosses itself.
    static func outline(_ front: Mesh, rim: [UInt32]) -> [SIMD3<Int32>]? {
        EarClipping.triangulate(
            rim.map { SIMD2<Double>(Double(front.positions[Int($0)].x), Double(front.positions[Int($0)].y)) })
    }

    /// Front + the rim's outline (in the bed plane z = 0) capped, facing −z.
    static func cap(_ front: Mesh, rim: [UInt32], outline: [SIMD3<Int32>]) -> Mesh {
        var solid = front
        // Counter-clockwise seen from +z, reversed to face −z (uses rim edge b → a).
        for t in outline {
            solid.triangles += [rim[Int(t.x)], rim[Int(t.z)], rim[Int(t.y)]]
        }
        return solid
    }
}
