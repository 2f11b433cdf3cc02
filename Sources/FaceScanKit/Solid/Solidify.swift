/// How ``Solidify/solid(_:options:unitInMillimetres:vertexCount:)`` closes a face surface and
/// places it for printing.
public struct SolidOptions: Sendable, Hashable, Codable {
    /// Millimetres. Thickness mode: the wall thickness (the back surface lies this far behind the
    /// face along the vertex normals). Base mode: unused (the back is the flat cut plane).
    public var thickness = 2.0
    /// false: a shell of constant thickness standing on its rim. true: a relief, the space between
    /// the face and the cut plane filled solid.
    public var base = false
    /// Millimetres: the cut plane lies this far behind the frontmost point, along the face's
    /// forward axis; everything behind it is cut away and the rim above it is carried down onto it.
    public var depth = SolidOptions.defaultDepth
    /// Printer build volume in millimetres (width x, depth y, height z): the part is scaled down
    /// uniformly, never up, to fit it less ``fitMargin`` on each side of the bed. nil: life size.
    public var fit: SIMD3<Double>? = nil
    /// Millimetres kept free on each side of the bed (x and y) when fitting: room for the slicer's
    /// skirt or brim (PrusaSlicer's skirt lies 6 mm from the part, Cura's brim is 8 mm wide).
    public var fitMargin = SolidOptions.defaultFitMargin
    /// true: the part is cut and laid on the bed along the face's own forward axis and symmetry
    /// plane, found from the surface. false: along the capture's axes (+z forward, +y up).
    public var align = true

    /// Accepted thickness, millimetres: thinner walls would fall below 32-bit float resolution on
    /// a face-sized part.
    public static let thicknessRange = 0.01...1000.0
    /// ``thicknessRange`` as messages state it.
    public static let thicknessRangeText = "from 0.01 to 1000 mm"
    /// Default ``depth``, the rule: a face is about 45 mm deep from its nose tip to where its
    /// cheeks turn toward the ears; the cut lies behind that, plus a shell's plinth (two
    /// thicknesses) and a margin for the eye sockets' outer corners and the jaw line, so the whole
    /// face, eyes, cheeks and forehead, is on the part. A scan that ends sooner is carried down to
    /// the cut by a vertical skirt; one that overhangs the cut (under the chin) moves it forward,
    /// and ``Solidify/Part`` says so.
    public static let defaultDepth = 60.0
    /// Default ``fitMargin``, millimetres.
    public static let defaultFitMargin = 10.0
    /// Accepted ``fitMargin``, millimetres.
    public static let fitMarginRange = 0.0...100.0
    /// ``fitMarginRange`` as messages state it.
    public static let fitMarginRangeText = "from 0 to 100 mm"
    /// Accepted depth, millimetres.
    public static let depthRange = 1.0...1000.0
    /// ``depthRange`` as messages state it.
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

    /// Options for a solid part (see each property; lengths in millimetres); not checked here.
    public init(
        thickness: Double = 2.0, base: Bool = false, depth: Double = SolidOptions.defaultDepth,
        fit: SIMD3<Double>? = nil, fitMargin: Double = SolidOptions.defaultFitMargin, align: Bool = true
    ) {
        self.thickness = thickness
        self.base = base
        self.depth = depth
        self.fit = fit
        self.fitMargin = fitMargin
        self.align = align
    }
}

/// Closes an open face surface into a watertight, outward-oriented solid in printing position.
///
/// The surface (CCW seen from outside) must be edge-manifold, consistently wound and have at least
/// one boundary loop. Its longest boundary loop is the outer rim. The recipe, one named step each:
/// 1. **Openings closed**: every other loop (eyes, mouth, nostrils) is filled with a fair patch
///    (``fillHoles(_:)``), so the part has no hole where the face has an opening.
/// 2. **Face frame**: the face's own forward axis and symmetry plane (`FaceFrame`); the part is
///    cut and laid on the bed along them, so a face turned in its capture's coordinates comes out
///    straight and its two halves alike.
/// 3. **Untangled**: where the surface crosses itself (the corners of closed lips) it is smoothed
///    locally until it does not (`Untangle`).
/// 4. **Cut** by the plane ``SolidOptions/depth`` behind the frontmost point, along the forward
///    axis; the rim above the plane is carried straight down onto it by a skirt (`PlaneTrim`).
///    Only where that skirt would cut into the face (a rim overhanging the cut) does the cut move
///    forward, and the part says so (``Part/depth`` below ``Part/askedDepth``).
/// 5. **Budget**: with a vertex count, the surface is decimated until the cut front leaves room for
///    the back (a shell's front takes at most half the count).
/// 6. **Fit**: with ``SolidOptions/fit``, scaled down uniformly to the build volume less
///    ``SolidOptions/fitMargin`` on every side of the bed, room for the slicer's skirt or brim.
/// 7. **Back**: a shell's back is the level set of the distance to the front (`LevelSetShell`), so
///    the wall is as thick as asked everywhere and solid where the face folds tighter than two
///    walls; a relief's rim, which lies in the plane, is capped by ear clipping.
/// 8. **Count**: the longest edges are split at their middles (the shape does not change) until the
///    count is reached.
///
/// Placed: centred on x and y, the plane at z = 0, the face looking up (+z). The result has no
/// boundary, no non-manifold or inconsistent edge and positive signed volume.
public enum Solidify {
    enum Constants {
        /// Cuts tried, each ``depthStep`` times the depth of the one before.
        static let depthTries = 16
        static let depthStep = 0.9
        /// Tries to make a shell's back, the cut moved forward by ``depthStep`` after each failure.
        static let backTries = 3
        /// Height of a shell's plinth (the vertical wall it stands on), in thicknesses.
        static let plinthThicknesses = 2.0
        /// Height of a relief's plinth, millimetres.
        static let reliefLift = 1.0
        /// Decimations tried to bring the cut front within its share of a vertex count.
        static let budgetTries = 8
        /// A shell's front's share of a vertex count (its back, smooth and unseen, needs fewer).
        static let frontShare = 0.6
        /// Fewest vertices a shell's back may take when no vertex count is asked (its front's
        /// count otherwise): a coarse surface (a few triangles over a bowl) still gets a back
        /// that follows it at one thickness.
        static let freeBackVertices = 2000
    }

    /// How far the face frame turned the surface, in degrees, in the capture's axes: yaw (the
    /// forward axis turned toward +x), pitch (raised toward +y), roll (the right axis raised
    /// toward +y). Zero for a face that already looked along +z, upright.
    public struct Turn: Sendable, Equatable, Hashable, Codable {
        /// Degrees the forward axis turned toward +x.
        public var yaw: Double
        /// Degrees the forward axis was raised toward +y.
        public var pitch: Double
        /// Degrees the right axis was raised toward +y.
        public var roll: Double
        /// A turn from its yaw, pitch and roll, degrees.
        public init(yaw: Double, pitch: Double, roll: Double) {
            self.yaw = yaw
            self.pitch = pitch
            self.roll = roll
        }
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

    /// A solid part, how it was placed, and the uniform scale ``SolidOptions/fit`` applied.
    public struct Part: Sendable {
        /// The closed, outward-oriented part in printing position, in the caller's unit.
        public var mesh: Mesh
        /// The uniform scale ``SolidOptions/fit`` applied (1 at life size).
        public var scale: Double
        /// Millimetres from the frontmost point to the cut the part stands on: ``askedDepth``, or
        /// less where the rim overhung the cut asked for (the cut then moved forward).
        public var depth: Double
        /// ``SolidOptions/depth`` as asked.
        public var askedDepth: Double
        /// How far the part was turned into the face's own frame (zero with ``SolidOptions/align`` off).
        public var turn: Turn
        /// The front's triangles: the first ones of ``mesh`` (nil once padded to a vertex count).
        package var frontTriangles: Int? = nil
        /// Whether the cut lies where it was asked.
        public var cutAsAsked: Bool { depth >= askedDepth }
    }

    /// Closes `mesh` into a solid in printing position (see ``Solidify``). `unitInMillimetres` is
    /// the length of one mesh unit in millimetres (1 for a mesh in mm, 1000 in metres); the result
    /// is in the same unit. With `vertexCount`, the surface is decimated as needed and the result
    /// has exactly that many vertices.
    ///
    /// Throws ``UsageError`` when the mesh is empty, already closed, not edge-manifold, not
    /// consistently wound, has degenerate triangles or non-finite coordinates, when the options
    /// are out of range, when `vertexCount` cannot be reached, or (base mode) when the rim seen
    /// from the front is not a simple counter-clockwise outline.
    public static func solid(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(FaceScanError) -> Mesh {
        try part(mesh, options: options, unitInMillimetres: unitInMillimetres, vertexCount: vertexCount).mesh
    }

    /// ``solid(_:options:unitInMillimetres:vertexCount:)`` with how the part was placed.
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
        try check(options, unitInMillimetres: unitInMillimetres)
        try validate(mesh)
        let unit = unitInMillimetres
        let thickness = options.thickness / unit
        // 1. Openings closed, 2. the face's frame (from the whole surface).
        let closed = fillHoles(mesh)
        let frame = options.align ? FaceFrame.estimate(closed) : .identity
        try Cancellation.check()
        // 3.–4. Untangled, turned, cut (moved forward only where the skirt would cut into the face);
        // 5. with a vertex count, of the surface decimated until the front leaves room for the back.
        var front: Front
        if let target = vertexCount {
            front = try budgeted(closed, frame: frame, options: options, unit: unit, target: target)
        } else {
            front = try cut(closed, frame: frame, options: options, unit: unit, from: options.depth)
        }
        // 6. Fit, 7. back (a shell's made once; the cut moves forward only when it cannot be made).
        var part: Part? = nil
        var tries = 0
        while part == nil {
            try Cancellation.check()
            let scale = try fitScale(front.mesh, options: options, unit: unit)
            let placed = scale < 1 ? front.mesh.scaledUnchecked(by: Float(scale)) : front.mesh
            // A shell too large for the distance field is refused before any work on it (a cut
            // moved forward only makes it smaller).
            if tries == 0, front.outline == nil,
                LevelSetShell.DistanceGrid.spacing(placed, thickness: thickness) == nil
            {
                let (lo, hi) = placed.bounds
                let size = (SIMD3<Double>(hi - lo) * unit).rounded(.toNearestOrAwayFromZero)
                throw UsageError(
                    "a shell \(size.x)x\(size.y)x\(size.z) mm with a \(options.thickness) mm wall needs more than \(LevelSetShell.Constants.maximumGridPoints) points of distance field (the limit, about 1 GB and 5 s): give --fit, a thicker --thickness, or --base"
                )
            }
            let backBudget =
                vertexCount.map { $0 - placed.vertexCount } ?? max(placed.vertexCount, Constants.freeBackVertices)
            let solid: Mesh?
            if let outline = front.outline {
                solid = cap(placed, rim: front.rim, outline: outline)
            } else {
                solid = LevelSetShell.shell(
                    placed, rim: front.rim, thickness: thickness, backVertices: max(backBudget, 0))
            }
            try Cancellation.check()
            if let solid {
                part = Part(
                    mesh: solid, scale: scale, depth: front.depth, askedDepth: options.depth,
                    turn: frame.degrees, frontTriangles: placed.triangleCount)
                break
            }
            tries += 1
            guard tries < Constants.backTries else {
                throw UsageError(
                    "could not make a shell's back behind this surface (cut tried down to \(front.depth) mm; try --base or a smaller --thickness)"
                )
            }
            let surface = vertexCount == nil ? closed : front.surface
            front = try cut(
                surface, frame: frame, options: options, unit: unit, from: front.depth * Constants.depthStep)
        }
        guard var part else { throw UsageError("could not close the surface into a solid") }
        // 8. Exact vertex count: straight longest-edge splits do not change the shape.
        if let target = vertexCount {
            part.mesh = try padded(part.mesh, to: target)
            try Cancellation.check()
            part.frontTriangles = nil
        }
        let check = MeshCheck(part.mesh)
        guard check.isWatertight, check.isClean else {
            throw UsageError("could not close the surface into a solid (\(check.summary))")
        }
        return part
    }

    /// The one-line warning for a part whose cut moved forward from where it was asked.
    public static func movedCutWarning(_ part: Part) -> String {
        func mm(_ x: Double) -> String { String((x * 10).rounded() / 10) }
        return
            "the cut moved forward to \(mm(part.depth)) mm (asked \(mm(part.askedDepth)) mm): the scan's rim overhangs a deeper cut; give --depth to choose it"
    }

    // MARK: Steps

    /// The options' ranges, before any work.
    static func check(_ options: SolidOptions, unitInMillimetres: Double) throws(UsageError) {
        guard SolidOptions.thicknessRange.contains(options.thickness) else {
            throw UsageError("solid thickness must be \(SolidOptions.thicknessRangeText) (got \(options.thickness))")
        }
        guard SolidOptions.depthRange.contains(options.depth) else {
            throw UsageError("solid depth must be \(SolidOptions.depthRangeText) (got \(options.depth))")
        }
        guard SolidOptions.fitMarginRange.contains(options.fitMargin) else {
            throw UsageError(
                "the margin around a fitted part must be \(SolidOptions.fitMarginRangeText) (got \(options.fitMargin))")
        }
        if let fit = options.fit {
            guard fit.min() > 0, fit.max().isFinite else {
                throw UsageError(
                    "the build volume to fit must be three positive sizes in mm (got \(fit.x)x\(fit.y)x\(fit.z))")
            }
            guard min(fit.x, fit.y) > 2 * options.fitMargin else {
                throw UsageError(
                    "the build volume \(fit.x)x\(fit.y)x\(fit.z) mm leaves no room inside a margin of \(options.fitMargin) mm on each side"
                )
            }
        }
        guard unitInMillimetres.isFinite, unitInMillimetres > 0 else {
            throw UsageError("the mesh unit must be a positive length in millimetres (got \(unitInMillimetres))")
        }
    }

    /// A cut front in printing position: the surface it was cut from (turned, untangled), the cut
    /// depth in millimetres, the skirted front, its rim and (base) the rim's triangulation.
    struct Front {
        var surface: Mesh
        var depth: Double
        var mesh: Mesh
        var rim: [UInt32]
        var outline: [SIMD3<Int32>]?
    }

    /// `surface` untangled, turned into `frame`, cut `depth` millimetres behind its frontmost point
    /// (or, where the skirt would cut into the face there, the first cut in front of it that stands
    /// cleanly, each ``Constants/depthStep`` of the one before) and placed.
    static func cut(_ surface: Mesh, frame: FaceFrame.Rotation, options: SolidOptions, unit: Double, from depth: Double)
        throws(UsageError) -> Front
    {
        var turned = Untangle.untangled(surface).mesh
        if frame != .identity {
            for i in turned.positions.indices {
                turned.positions[i] = SIMD3<Float>(frame.apply(SIMD3<Double>(turned.positions[i])))
            }
        }
        let frontmost = turned.bounds.max.z
        // A shell stands on a vertical wall twice its thickness tall, so its back never reaches the bed.
        // A relief is cut a little above its plane too: a hole the cut opens inside the face (a deep
        // eye socket) is then filled above the bed, not on it where the cap lies.
        let lift = options.base ? Constants.reliefLift : Constants.plinthThicknesses * options.thickness
        let plinth = Float(lift / unit)
        var depth = depth
        for _ in 0..<Constants.depthTries {
            try Cancellation.check()
            let plane = Float(Double(frontmost) - depth / unit)
            guard let trimmed = PlaneTrim.trimAndSkirt(turned, plane: plane, plinth: plinth) else {
                throw UsageError("nothing of the surface lies within \(depth) mm of its frontmost point")
            }
            if let placed = try position(
                trimmed.mesh, skirtStart: trimmed.skirtStart, plane: plane, base: options.base)
            {
                return Front(
                    surface: surface, depth: depth, mesh: placed.front, rim: placed.rim, outline: placed.outline)
            }
            depth *= Constants.depthStep
        }
        throw UsageError(
            "could not cut the surface into a part that stands on a plane (tried depths down to \(depth) mm)")
    }

    /// The cut of `closed` decimated so the front takes at most its share of `target`: all of it
    /// for a relief, ``Constants/frontShare`` for a shell (its back takes the rest). The first
    /// decimation is guessed from the share of the vertices in front of the cut.
    static func budgeted(
        _ closed: Mesh, frame: FaceFrame.Rotation, options: SolidOptions, unit: Double, target: Int
    ) throws(UsageError) -> Front {
        let share = options.base ? target : Int(Double(target) * Constants.frontShare)
        var frontmost = -Double.infinity
        for p in closed.positions { frontmost = max(frontmost, frame.apply(SIMD3<Double>(p)).z) }
        let plane = frontmost - options.depth / unit
        var kept = 0
        for p in closed.positions where frame.apply(SIMD3<Double>(p)).z >= plane { kept += 1 }
        // The skirt adds about a tenth.
        // Refined at most to twice the target: a cut keeping a sliver of the surface is padded.
        var want = Int(Double(closed.vertexCount) * Double(share) / (1.1 * Double(max(kept, 1))))
        want = min(want, max(closed.vertexCount, 2 * target))
        var depth = options.depth
        var fewest = Int.max
        for _ in 0..<Constants.budgetTries {
            try Cancellation.check()
            want = min(want, Decimation.maximumTargetVertices)
            guard want >= Decimation.minimumVertices else { break }
            let surface = want == closed.vertexCount ? closed : try Decimation.simplify(closed, exactly: want)
            let cut = try cut(surface, frame: frame, options: options, unit: unit, from: depth)
            depth = cut.depth
            fewest = min(fewest, cut.mesh.vertexCount)
            if cut.mesh.vertexCount <= share { return cut }
            want = min(want - 1, Int(Double(want) * Double(share) / Double(cut.mesh.vertexCount) * 0.98))
        }
        guard fewest < Int.max else {
            throw UsageError(
                "cannot reach \(target) vertices for a solid part: its front alone needs more than \(share)")
        }
        let needs = options.base ? fewest : Int((Double(fewest) / Constants.frontShare).rounded(.up))
        throw UsageError("cannot reach \(target) vertices for a solid part: the fewest found is \(needs)")
    }

    /// The uniform scale (at most 1) that fits `front`'s part into the build volume less the margin.
    static func fitScale(_ front: Mesh, options: SolidOptions, unit: Double) throws(UsageError) -> Double {
        guard let fit = options.fit else { return 1 }
        let (lo, hi) = front.bounds
        let size = SIMD3<Double>(hi - lo) * unit
        let room = SIMD3<Double>(fit.x - 2 * options.fitMargin, fit.y - 2 * options.fitMargin, fit.z)
        return min(1, min(room.x / size.x, min(room.y / size.y, room.z / size.z)))
    }

    /// The skirted surface in printing position (centred on x/y, the cut at z = 0), its rim and
    /// (base) the triangulation of its outline; nil when its skirt cuts into it or (base) its
    /// outline crosses itself.
    static func position(_ skirted: Mesh, skirtStart: Int, plane: Float, base: Bool) throws(UsageError)
        -> (front: Mesh, rim: [UInt32], outline: [SIMD3<Int32>]?)?
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
            return (front, rim, outline)
        }
        return (front, rim, nil)
    }

    /// `solid` with exactly `target` vertices: its longest edges off the bed split at their
    /// middles (the shape does not change; no angle falls below half the smallest before). The
    /// bed's edges are left as they are: splitting the long chords of a relief's flat cap put
    /// new vertices within hundredths of a millimetre of each other, which slicers (CuraEngine)
    /// report as overlapping faces.
    static func padded(_ solid: Mesh, to target: Int) throws(UsageError) -> Mesh {
        guard target >= solid.vertexCount else {
            throw UsageError(
                "a solid of this surface needs at least \(solid.vertexCount) vertices (\(target) requested)")
        }
        let padded = EdgeRefinement.refine(solid, to: target, curved: false, sparingPlane: 0)
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
