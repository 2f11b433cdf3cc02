import FaceScanCore
import FaceScanDecimate

/// Closes an open face surface into a watertight, outward-oriented solid in printing position.
///
/// The surface (CCW seen from outside) must be edge-manifold, consistently wound and have at least
/// one boundary loop. Its longest boundary loop is the outer rim. The recipe, one step per file:
/// 1. **Openings closed** (HoleFilling.swift): every other loop (eyes, mouth, nostrils) is filled
///    with a fair patch (``fillHoles(_:)``).
/// 2. **Face frame** (FaceFrame.swift): the face's own forward axis and symmetry plane; the part is
///    cut and laid on the bed along them.
/// 3. **Budget** (VertexBudget.swift): with a vertex count, the surface is decimated so the cut
///    front leaves room for the back (a shell's front takes at most 60 % of the count).
/// 4. **Untangled** (Untangle.swift) where the surface crosses itself, and turned into the frame.
/// 5. **Cut** (Cut.swift, PlaneTrim.swift) by the plane ``SolidOptions/depth`` behind the
///    frontmost point; the rim above it is carried straight down onto it by a skirt.
/// 6. **Fit**: with ``SolidOptions/fit``, scaled down uniformly to the build volume less
///    ``SolidOptions/fitMargin`` on every side of the bed.
/// 7. **Back**: a relief's rim, in the bed plane, is capped by ear clipping; a shell's back is the
///    level set of the distance to the front (ShellBack.swift and the files it names).
/// 8. **Count** (VertexBudget.swift): the longest edges split at their middles to the count.
///
/// **Retry policy** (`makePart(_:options:unitInMillimetres:vertexCount:)`, the only place that
/// retries). Every step makes one attempt and throws a `SolidError` saying why it failed; the
/// policy reads it and changes one thing, within a fixed number of attempts, so the cost is at
/// most that many times one attempt's (each bounded in its step):
/// - `SolidError/rimOverhangs(depth:)` (the skirt would cut into the face, or a relief's outline
///   crosses itself): the cut moves forward to 0.9 of its depth, at most `Constants/cutTries`
///   times in all — a rim overhanging the cut under the chin is the common case, and a shallower
///   cut keeps all of the face in front of it. A cut behind the whole surface moves at once to
///   0.9 of the depth where its plinth touches the surface (`forward(from:turned:options:unit:)`:
///   every cut behind it fails alike).
/// - `SolidError/frontOverBudget(vertices:share:)`: the surface is decimated again, to the count
///   the last front's size suggests, at most `Constants/budgetTries` times; then
///   `SolidError/vertexCountUnreachable(target:fewest:)`. Once a back has been tried, the
///   decimation is settled: a cut moved forward for the back keeps it.
/// - A shell's back, for one cut: the `LevelSetShell/Choice`s (margin and ball) in order until
///   one keeps at most 0.4 % of its area thinner than 0.9 of the wall, else the one nearest that;
///   a choice nearer the front than a back already made over that share is not tried (it would
///   be thinner still), nor one as near or nearer, with a ball no wider, than a back that still
///   crossed the front after its push-off (it would cross too), and a front that is not clean gets no back at all (the cut moves
///   forward); a choice whose back fails is skipped, but a back that cannot be decimated to its share
///   (`SolidError/backOverBudget(vertices:)`) ends the choices at once (every choice would
///   fail alike), and a back whose outline on the bed crosses the rim
///   (`SolidError/backCrossesRim(depth:)`: a notch of the rim narrower than the extraction's
///   spacing) ends them too, keeping the best back so far if there is one (every margin and ball
///   at this cut meets the notch alike). When every choice fails or the back is over its share
///   (`SolidError/backNotClosed(depth:)`, `SolidError/backCrossesFront(depth:)`), the cut moves
///   forward as above, at most `Constants/backTries` times: a shallower part has less to fold;
///   after a rim crossing it moves forward without counting a try, at most `Constants/rimMoves`
///   times. However the cuts go, a part extracts at most `Constants/mostBacks` backs in all.
/// - **Work allowance** (`Work/allowance`), counted in distance-field points (`Work/spent`:
///   each field's points, each extracted back vertex as `Constants/pointsPerBackVertex`). The
///   part's first back (its first cut's field and first choice) sets what the work may come to
///   in all: `Constants/retryFactor` times that first attempt's work less `Constants/retryMargin`,
///   or `Constants/retryWork`, the larger. A later choice, or a later cut with its field and one
///   back, is tried only while the work so far and its estimate (the last back's, the last
///   field's) stay within it; past it the best back of this cut is kept, or the last failure is
///   the answer. So a part costs at most about its allowance and one step more, whatever its
///   surface: a face's parts (a first attempt of millions of points) keep room for three more
///   cuts or so, and a small surface's retries never bring it past about `retryWork`.
/// - Anything else (an option, the surface, a grid over its budget, cancellation) is not retried.
public enum Solidify {
    enum Constants {
        /// Cuts tried in all, each 0.9 of the depth of the one before.
        static let cutTries = 16
        static let depthStep = 0.9
        /// Cuts a shell's back is tried at, the cut moved forward after each failure.
        static let backTries = 3
        /// Cuts moved forward because a back's outline on the bed crossed the rim
        /// (`SolidError/backCrossesRim(depth:)`) without counting a back try (later crossings
        /// count as `backTries`): one was enough for every part of 546 small surfaces, and each
        /// costs a distance field.
        static let rimMoves = 1
        /// Backs one part extracts in all, whatever the cuts: every choice at `backTries` cuts.
        static let mostBacks = backTries * LevelSetShell.Constants.mostChoices
        /// The work every part may spend in all, retries included, in distance-field points
        /// (`Work/spent`): about 40 ms of the solid step on this project's 2-core machine (a part
        /// takes about 8 ms and 0.22 ms per 1 000 points, over the 306 `fuzz-solids` surfaces).
        static let retryWork = 150_000
        /// The work a part may spend in all, in multiples of its first back's (field and
        /// extraction) less `retryMargin`, when that is more than `retryWork`. A face's first back
        /// costs millions of points (the ICT sample's 2 mm shell 2.1 million, its field 1.65
        /// million; as a 0.8 mm shell at 5 000 vertices 3.7 million, and its third cut brings it
        /// to about 10.9 million), so the cuts and backs a face needs fit as before; a small
        /// surface's first back of up to 230 000 points gets no retry past `retryWork` (one of
        /// 400 000, the corpus's 65 mm plate as a 1 mm shell of 1 420 vertices, gets another back).
        static let retryFactor = 5
        static let retryMargin = 1_000_000
        /// A back's extracted vertex in distance-field points: its extraction, decimation and
        /// push-off cost about what that many points of the field do (measured on small surfaces:
        /// 0.6 µs a nearest-point query, about 0.4 of a grid's points queried; 2–3 µs a vertex).
        static let pointsPerBackVertex = 12
        /// Height of a shell's plinth (the vertical wall it stands on), in thicknesses.
        static let plinthThicknesses = 2.0
        /// Height of a relief's plinth, millimetres.
        static let reliefLift = 1.0
        /// Decimations tried to bring the cut front within its share of a vertex count.
        static let budgetTries = 8
        /// A shell's front's share of a vertex count (its back, smooth and unseen, needs fewer).
        static let frontShare = 0.6
        /// Fewest vertices a shell's back takes (see ``backShare(front:target:)``): a coarse
        /// surface, a few triangles over a bowl, still gets a back that follows it at one
        /// thickness (a 73 mm bowl of 16 vertices as a 1 mm shell, its back at 64 vertices:
        /// walls up to 10 mm thick where its long edges cut across the hollow).
        static let freeBackVertices = 500
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
    }

    // MARK: Public API

    /// Fills every boundary loop except the longest (the outer rim) with a fair patch (Liepa 2003:
    /// minimum-dihedral triangulation, refinement to the surrounding edge length, bi-Laplacian
    /// fairing). The input's vertices and triangles come first, unchanged; new vertices get UVs
    /// interpolated from the loop when the mesh has UVs. A mesh with at most one loop is returned
    /// as is.
    /// - Complexity: O(n³) per loop of n ≤ 200 vertices, plus O(t + n) for the topology.
    public static func fillHoles(_ mesh: Mesh) -> Mesh {
        guard mesh.triangleCount > 0 else { return mesh }
        let topology = MeshTopology(mesh)
        guard topology.boundaryEdgeCount > 0 else { return mesh }
        let loops = topology.boundaryLoops()
        guard loops.loops.count > 1 else { return mesh }
        return HoleFilling.fill(
            mesh, adjacency: topology.neighbours(), loops: loops, keep: loops.rimIndex(mesh.positions))
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

    /// ``solid(_:options:unitInMillimetres:vertexCount:)`` with how the part was placed.
    public static func part(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(FaceScanError) -> Part {
        do throws(SolidError) {
            return try makePart(mesh, options: options, unitInMillimetres: unitInMillimetres, vertexCount: vertexCount)
        } catch {
            throw error.faceScanError
        }
    }

    /// Closes `mesh` into a solid in printing position (see ``Solidify``). `unitInMillimetres` is
    /// the length of one mesh unit in millimetres (1 for a mesh in mm, 1000 in metres); the result
    /// is in the same unit. With `vertexCount`, the surface is decimated as needed and the result
    /// has exactly that many vertices.
    ///
    /// Throws ``FaceScanError/badSetting(_:)`` when the mesh is empty, already closed, not
    /// edge-manifold, not consistently wound, has degenerate triangles or non-finite coordinates,
    /// when the options are out of range, when `vertexCount` cannot be reached, or (base mode)
    /// when the rim seen from the front is not a simple counter-clockwise outline;
    /// ``FaceScanError/cancelled`` when the task is cancelled.
    public static func solid(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres: Double,
        vertexCount: Int? = nil
    ) throws(FaceScanError) -> Mesh {
        try part(mesh, options: options, unitInMillimetres: unitInMillimetres, vertexCount: vertexCount).mesh
    }

    /// ``part(_:options:unitInMillimetres:vertexCount:)`` with the narrow error: the recipe and
    /// its retry policy (see ``Solidify``).
    package static func makePart(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres unit: Double, vertexCount target: Int? = nil
    ) throws(SolidError) -> Part {
        var work = Work()
        return try makePart(mesh, options: options, unitInMillimetres: unit, vertexCount: target, work: &work)
    }

    /// The work a part cost, counted (not timed): every distance field measured and every back
    /// extracted, failed attempts included.
    package struct Work: Sendable {
        /// Grid points of each distance field measured (one per cut a shell's back was tried at).
        package var fieldPoints: [Int] = []
        /// Each back extracted: its vertex budget (the share) and what the extraction did.
        package var backs: [(share: Int, extraction: LevelSetShell.ExtractionWork)] = []
        /// Each push-off of a back off the front (`LevelSetShell/pushOut(_:front:backTriangles:fixed:thickness:bvh:work:)`).
        package var pushes: [LevelSetShell.PushWork] = []
        /// What the work may come to in all (`spent`): set once the part's first back was
        /// tried (see `Solidify`'s work allowance); nil before.
        package var allowance: Int?

        package init() {}

        /// The work so far in distance-field points: every field's points, and each back's
        /// extracted vertices at `Constants/pointsPerBackVertex`.
        package var spent: Int {
            fieldPoints.reduce(0, +) + Constants.pointsPerBackVertex * extracted(last: backs.count)
        }

        /// The vertices the last `n` backs extracted.
        func extracted(last n: Int) -> Int { backs.suffix(n).reduce(0) { $0 + $1.extraction.vertices } }

        /// Whether another back, estimated as the last one, fits the allowance.
        var allowsBack: Bool { fits(field: 0) }

        /// Whether another cut, its field estimated as the last one and one back as the last
        /// one, fits the allowance.
        var allowsCut: Bool { fits(field: fieldPoints.last ?? 0) }

        /// Whether a field of `field` points and a back estimated as the last one fit the
        /// allowance (always before it is set).
        private func fits(field: Int) -> Bool {
            allowance.map { spent + field + Constants.pointsPerBackVertex * extracted(last: 1) <= $0 } ?? true
        }

        /// Sets the allowance from the work of the first attempt (once).
        mutating func settle() {
            if allowance == nil {
                allowance = max(Constants.retryWork, Constants.retryFactor * spent - Constants.retryMargin)
            }
        }
    }

    /// ``makePart(_:options:unitInMillimetres:vertexCount:)`` counting its work into `work`.
    package static func makePart(
        _ mesh: Mesh, options: SolidOptions, unitInMillimetres unit: Double, vertexCount target: Int? = nil,
        work: inout Work
    ) throws(SolidError) -> Part {
        do throws(UsageError) { try options.check(unitInMillimetres: unit) } catch { throw .badOption(error) }
        do throws(UsageError) { try SolidOptions.checkSurface(mesh, unitInMillimetres: unit) } catch {
            throw .badSurface(error.message)
        }
        try validate(mesh)
        // 1. Openings closed, 2. the face's frame (from the whole surface).
        let closed = fillHoles(mesh)
        let frame = options.align ? FaceFrame.estimate(closed) : .identity
        try SolidError.checkCancelled()
        // 3. The decimation to start from (nil: none), 4. its surface untangled and turned.
        var want = target.map { firstWant(closed, frame: frame, options: options, unit: unit, target: $0) }
        var turned = Solidify.turned(
            try want.map { w throws(SolidError) in try decimated(closed, to: w) } ?? closed, frame: frame)
        var depth = options.depth
        var (cuts, decimations, backs, rimCuts) = (0, 1, 0, 0)
        var fewestFront = Int.max
        while true {
            do throws(SolidError) {
                if let w = want, w < Decimation.minimumVertices || w > Decimation.maximumTargetVertices {
                    throw .vertexCountUnreachable(
                        target: target!, fewest: needs(fewestFront: fewestFront, base: options.base))
                }
                // 5. Cut, 6. fit, 7. back, 8. count.
                let front = try cut(turned, depth: depth, options: options, unit: unit)
                // The share is checked until the decimation is settled: a cut moved forward for
                // the back keeps it (the back takes what is left of the count).
                if let target, backs == 0 {
                    fewestFront = min(fewestFront, front.mesh.vertexCount)
                    let share = frontShare(target, base: options.base)
                    if front.mesh.vertexCount > share {
                        throw .frontOverBudget(vertices: front.mesh.vertexCount, share: share)
                    }
                }
                var part = try closedPart(
                    front, options: options, unit: unit, target: target, frame: frame, work: &work)
                if let target {
                    part.mesh = try padded(part.mesh, to: target)
                    part.frontTriangles = nil
                }
                let check = MeshCheck(part.mesh)
                guard check.isWatertight, check.isClean else { throw .notClosed(check.summary) }
                return part
            } catch {
                // The retry policy (see the type's documentation): one thing changes per failure.
                switch error {
                case .rimOverhangs where cuts + 1 < Constants.cutTries:
                    cuts += 1
                    depth = forward(from: depth, turned: turned, options: options, unit: unit)
                case .backCrossesRim
                where rimCuts < Constants.rimMoves && cuts + 1 < Constants.cutTries && work.allowsCut:
                    // The cut's failure, not its backs': the next cut, without counting a back try.
                    (rimCuts, cuts) = (rimCuts + 1, cuts + 1)
                    depth *= Constants.depthStep
                case .backNotClosed, .backCrossesFront, .backOverBudget, .backCrossesRim:
                    backs += 1
                    guard backs < Constants.backTries, cuts + 1 < Constants.cutTries, work.allowsCut else {
                        throw error.at(depth: depth)
                    }
                    cuts += 1
                    depth *= Constants.depthStep
                case .frontOverBudget(let vertices, let share):
                    guard decimations < Constants.budgetTries, let w = want else {
                        throw .vertexCountUnreachable(
                            target: target!, fewest: needs(fewestFront: fewestFront, base: options.base))
                    }
                    decimations += 1
                    want = min(nextWant(w, vertices: vertices, share: share), Decimation.maximumTargetVertices)
                    if want! >= Decimation.minimumVertices {
                        turned = Solidify.turned(try decimated(closed, to: want!), frame: frame)
                    }
                default:
                    throw error
                }
            }
        }
    }

    /// The next cut after one whose rim overhung: 0.9 of `depth`, or, when that cut left the
    /// whole surface in front of its plinth (nothing was cut), 0.9 of the depth where the plinth
    /// first touches the surface. Every cut behind the surface fails alike: its front is the whole
    /// surface, its rim and the outline seen from the front the same, and its skirt the same walls
    /// down from the rim, only longer (below every point of the surface, where nothing can cross
    /// them), so the cuts between are not tried (a 5 mm surface cut 60 mm behind paid 16 of them).
    static func forward(from depth: Double, turned: Mesh, options: SolidOptions, unit: Double) -> Double {
        let (lo, hi) = turned.bounds
        let touching = Double(hi.z - lo.z) * unit + plinth(options)
        return Constants.depthStep * min(depth, touching)
    }

    /// Millimetres the surface is cut above the cut plane, its rim then carried down to it: a
    /// shell stands on a vertical wall twice its thickness tall, so its back never reaches the
    /// bed; a relief is cut a little above its plane too, so a hole the cut opens inside the face
    /// (a deep eye socket) is filled above the bed, not on it where the cap lies.
    static func plinth(_ options: SolidOptions) -> Double {
        options.base ? Constants.reliefLift : Constants.plinthThicknesses * options.thickness
    }

    /// The vertices a shell's back takes behind a front of `front` vertices: as many as the front
    /// (a level set behind it has no finer detail), at least `Constants/freeBackVertices`. With a
    /// vertex count, what the count leaves (`target` less the front), but at most the larger of
    /// that and twice the front: the rest of the count is reached by splitting edges (``padded(_:to:)``),
    /// which costs nothing like a finer back's field, extraction and decimation (a cut keeping
    /// 128 front vertices of a part asked at 1 860: a back of 500, not 1 732; the cap binds at 29
    /// cuts of the fuzz kind's 306 surfaces, and at none of the samples' 24 parts).
    static func backShare(front: Int, target: Int?) -> Int {
        let own = max(front, Constants.freeBackVertices)
        return target.map { min($0 - front, max(own, 2 * front)) } ?? own
    }

    /// The cut front fitted and closed behind: a relief capped, a shell given its back (the
    /// back's choices tried as the retry policy says).
    static func closedPart(
        _ front: Front, options: SolidOptions, unit: Double, target: Int?, frame: FaceFrame.Rotation, work: inout Work
    ) throws(SolidError) -> Part {
        try SolidError.checkCancelled()
        let scale = fitScale(front.mesh, options: options, unit: unit)
        let placed = scale < 1 ? front.mesh.scaledUnchecked(by: Float(scale)) : front.mesh
        var part = Part(
            mesh: placed, scale: scale, depth: front.depth, askedDepth: options.depth, turn: frame.degrees,
            frontTriangles: placed.triangleCount)
        switch front.back {
        case .cap(let outline):
            part.mesh = cap(placed, rim: front.rim, outline: outline)
        case .shell:
            let backBudget = backShare(front: placed.vertexCount, target: target)
            let thickness = options.thickness / unit
            // A back is joined to the front as it is: a front that is not clean (a cut that left
            // a duplicate triangle) can give no clean part, whatever back is tried.
            guard MeshCheck(placed).isClean, work.backs.count < Constants.mostBacks else {
                throw .backNotClosed(depth: front.depth)
            }
            let field: LevelSetShell.Field
            do throws(SolidError) {
                field = try LevelSetShell.Field(placed, thickness: thickness, backVertices: max(backBudget, 1))
            } catch {
                guard case .gridTooLarge(let size, _, let points) = error else { throw error.at(depth: front.depth) }
                throw .gridTooLarge(size: size * unit, thickness: options.thickness, points: points)
            }
            work.fieldPoints.append(field.grid.distance.count)
            var best: (solid: Mesh, share: Double)? = nil
            var last = SolidError.backNotClosed(depth: front.depth)
            // A back made nearer the front than one already over the thin share would be thinner
            // still: such choices are skipped (the largest margin over the share ends the search).
            var thinAt = -Double.infinity
            // A back that still crosses the front after its push-off: a back as near the front
            // or nearer, its hollow opened by a ball no wider, would cross it too (skipped).
            var crossedAt: [LevelSetShell.Choice] = []
            // The field's first back was counted in when its cut was allowed (`Work/allowsCut`).
            var first = true
            for choice in LevelSetShell.choices(front: placed, thickness: thickness, backVertices: max(backBudget, 0))
            where work.backs.count < Constants.mostBacks && choice.margin >= thinAt
                && !crossedAt.contains(where: { choice.margin <= $0.margin && choice.opening <= $0.opening })
            {
                guard first || work.allowsBack else { break }
                defer {
                    first = false
                    work.settle()
                }
                let solid: Mesh
                do throws(SolidError) {
                    solid = try LevelSetShell.shell(
                        placed, rim: front.rim, thickness: thickness, choice: choice, backVertices: max(backBudget, 0),
                        field: field, work: &work)
                } catch {
                    if error == .cancelled { throw error }
                    if case .backOverBudget = error { throw error }
                    // The rim's notch meets every choice at this cut: the best so far, or the next cut.
                    if case .backCrossesRim = error {
                        if best != nil { break }
                        throw error.at(depth: front.depth)
                    }
                    if case .backCrossesFront = error { crossedAt.append(choice) }
                    last = error.at(depth: front.depth)
                    continue
                }
                let share = try LevelSetShell.thinShare(solid, front: placed, wall: 0.9 * thickness, bvh: field.bvh)
                if best == nil || share < best!.share { best = (solid, share) }
                if share <= LevelSetShell.Constants.thinShare { break }
                thinAt = max(thinAt, choice.margin)
            }
            guard let best else { throw last }
            part.mesh = best.solid
        }
        return part
    }

    /// The one-line warning for a part whose cut moved forward from where it was asked.
    public static func movedCutWarning(_ part: Part) -> String {
        func mm(_ x: Double) -> String { String((x * 10).rounded() / 10) }
        return
            "the cut moved forward to \(mm(part.depth)) mm (asked \(mm(part.askedDepth)) mm): the scan's rim overhangs a deeper cut; set the cut depth to choose it"
    }

    // MARK: Input check

    static func validate(_ mesh: Mesh) throws(SolidError) {
        let c = MeshCheck(mesh)
        guard c.triangleCount > 0 else { throw .badSurface("cannot make a solid of a mesh without triangles") }
        guard c.outOfRangeTriangles == 0 else {
            throw .badSurface("the mesh has \(c.outOfRangeTriangles) triangles with out-of-range vertex indices")
        }
        guard c.nonFiniteVertices == 0 else {
            throw .badSurface("the mesh has \(c.nonFiniteVertices) vertices with non-finite coordinates")
        }
        guard c.degenerateTriangles == 0, c.duplicateTriangles == 0 else {
            throw .badSurface(
                "the mesh has \(c.degenerateTriangles) degenerate and \(c.duplicateTriangles) duplicate triangles")
        }
        guard c.boundaryEdges > 0 else { throw .badSurface("the mesh has no boundary: it is already closed") }
        guard c.nonManifoldEdges == 0 else {
            throw .badSurface(
                "the mesh is not edge-manifold (\(c.nonManifoldEdges) edges shared by more than two triangles)")
        }
        guard c.inconsistentEdges == 0 else {
            throw .badSurface(
                "the mesh is not consistently wound (\(c.inconsistentEdges) edges traversed the same way by both triangles)"
            )
        }
    }
}

extension SolidError {
    /// The same failure naming the cut it happened at.
    func at(depth: Double) -> SolidError {
        switch self {
        case .backNotClosed: .backNotClosed(depth: depth)
        case .backCrossesFront: .backCrossesFront(depth: depth)
        case .backCrossesRim: .backCrossesRim(depth: depth)
        default: self
        }
    }
}
