import CSIMD
import FaceScanCore

// Quadric edge-collapse decimation to an exact vertex count.
//
// Papers:
// - Michael Garland, Paul S. Heckbert. "Surface Simplification Using Quadric Error Metrics".
//   SIGGRAPH 1997. (Plane quadrics, optimal vertex placement, boundary quadrics from planes through
//   a boundary edge perpendicular to its face.)
// - Peter Lindstrom. "Out-of-Core Simplification of Large Polygonal Models". SIGGRAPH 2000.
//   (Regularised placement: minimise the quadric plus a small pull towards the edge midpoint.)
// - Tamal K. Dey, Herbert Edelsbrunner, Sumanta Guha, Dmitry V. Nekhayev. "Topology Preserving
//   Edge Contraction". Publ. Inst. Math. (Beograd) 66 (1999). (The link condition.)
// - Arseny Kapoulkine, meshoptimizer `simplifier.cpp`: collapsing in passes (rank all edges, sort
//   by quantised cost, collapse an independent set in cost order) instead of a global heap.
//
// Recipe (`QuadricSimplifier.init` then `decimate(to:floor:)`), one file per step:
//   1. build adjacency: vertex → triangle lists (QuadricSimplifier+Adjacency.swift);
//   2. quadrics and classification: face and heavy boundary quadrics, boundary and locked
//      vertices (QuadricSimplifier+Classify.swift; the quadric itself in Quadric.swift);
//   then passes until the exact vertex count:
//   3. rank every collapsible edge: placement, cost (QuadricSimplifier+Rank.swift);
//   4. sort by quantised cost, chunk by chunk (QuadricSimplifier+Sort.swift);
//   5. collapse in order, each vertex at most once per pass, every collapse checked against the
//      live mesh: link condition, pinch (QuadricSimplifier+Collapse.swift), flips and slivers
//      (QuadricSimplifier+ShapeCheck.swift);
//   6. compact the triangles and rebuild the adjacency for the next pass; at the end, compact the
//      vertices (``QuadricSimplifier/mesh()``).
// The state all steps share (pointers into one scratch allocation) is ``DecimationCore``
// (DecimationCore.swift); unsafe pointer code stays in these step files.
//
// Two halves (QuadricSimplifier+Halves.swift): meshes from 4 096 triangles collapse in two halves
// of the mesh split at the median of the longest axis: each half takes, in cost order, the edges
// whose ends and surrounding triangles lie inside it (memory the other half never touches), then
// the edges along the seam follow on one thread. From 32 768 triangles (with two threads allowed)
// the halves, the ranking and the quadrics run on two threads (each writing its own slots); below,
// on the calling thread, both halves in one scan of the sorted edges. Every step's result depends
// only on its own data, so the output is the same bytes on one or two threads.
//
// Passes stop only when the target is reached or no edge at all may collapse (the last attempt
// ranks every edge, at any cost). A run that stops at S vertices reports S as the smallest count
// it reaches; every count above S is reached exactly.

/// Quadric edge-collapse decimation of one indexed triangle mesh, in place on scratch memory it
/// owns (allocated once in `init`, freed in `deinit`), with a second thread it owns for large
/// meshes (started on first use, joined in `deinit`).
///
/// Vertex indices keep their input numbering until ``mesh()`` compacts them (preserving order).
/// Collapses never move a boundary vertex off the boundary, never join two boundary vertices
/// through an interior edge, never create a non-manifold edge, a duplicate, degenerate or flipped
/// triangle. Vertices on non-manifold or inconsistently wound edges, or where two boundary fans
/// touch, are locked (never removed, never moved). Every input triangle has three distinct
/// corners (``Decimation`` drops the others first).
struct QuadricSimplifier: ~Copyable {
    enum Tuning {
        /// Boundary plane weight relative to face quadrics (per squared edge length).
        static let boundaryWeight = 300.0
        /// `det(A) / trace(A)³` above which placement is the exact minimum of the quadric.
        static let exactDeterminant = 1e-3
        /// Cost added to every collapse along the boundary, relative to moving by the edge's
        /// length (ranks it after interior collapses of equal cost).
        static let boundaryTieBreak = 1e-9
        /// `ε / trace(A)` of the regularised placement.
        static let regularisation = 1e-5
        /// A collapse is rejected when it turns a triangle's normal by more than acos(this).
        static let minNormalCosine = 0.25
        /// A collapse is rejected when a triangle around it ends up more than acos(this) away from
        /// the input's normal around the merged vertex.
        static let minReferenceCosine = 0.05
        /// A collapse is rejected when a new corner angle's sin² falls below this.
        static let minSineSquared = 1e-10
        /// A collapse is rejected when a triangle around it ends up with a corner angle whose sin²
        /// is below this (sin² 6°) and below its smallest corner's before the move: the shape term
        /// that keeps slivers out (a triangle already worse may not get worse still).
        static let qualitySineSquared = 0.010926
        /// Candidates per locally sorted chunk (see ``DecimationCore/sortCandidates(_:limitKey:sides:)``).
        static let sortChunk = 8192
        /// Each pass collapses edges up to 1.5 × the cost found at this fraction of its ranked
        /// edges…
        static let decimationPassFraction = 0.6
        /// …or, once fewer collapses are left, at this many times the collapses left: the last
        /// passes go in nearly cost order. (ICT face 9 409 → 5 000: RMS 18.1 → 16.4 µm, same
        /// passes; twice-subdivided face → 10 000: 2.4 → 0.8 µm with 7 % fewer edges ranked than
        /// 0.4 throughout.)
        static let budgetShare = 2.5
        /// …but at least this many more than the collapses left: the cheapest edges a last pass
        /// finds blocked (a flip, the link condition) stay blocked, and a pass that only reaches
        /// past them a few at a time ranks the whole mesh again for a handful of collapses (ICT
        /// face → 4 500: 6 passes, the last three for 10, 2 and 5 collapses; now 4, the last for
        /// 17). Takes effect only when fewer than 171 collapses are left.
        static let tailCandidates = 256
        /// Triangle slots from which the passes work in two halves (see
        /// QuadricSimplifier+Halves.swift; on one thread or two, the same bytes).
        static let parallelTriangles = 4_096
        /// Input triangles from which a simplifier allowed two threads starts its second one.
        /// Below, the halves run one after the other on the calling thread: the ICT face
        /// spends less on one thread than it saves on two once a thread start, a wake-up per step
        /// and a core shared with other work are paid (the measurement: CHANGELOG.md, issue 36's
        /// decimation round).
        static let secondThreadTriangles = 32_768
    }

    var core: DecimationCore
    /// The second thread of the core's two-sided steps (started with the simplifier, joined when the
    /// simplifier goes away).
    private let sides: Parallel.Pair?
    /// Vertices still referenced.
    private(set) var liveVertices: Int
    /// Triangle slots in use (dead ones are dropped by the next compaction).
    private(set) var triangleSlots: Int
    private var stamp: UInt32 = 0

    /// Prepares `mesh` (every vertex referenced, no triangle repeating a corner; see
    /// ``Decimation``) for decimation: classifies
    /// vertices and accumulates quadrics.
    ///
    /// - Complexity: O(t · valence) for t triangles.
    ///
    /// `threads`: 1 runs everything on the calling thread, more lets large meshes use two; the
    /// result is the same bytes either way.
    ///
    /// `vectorPlacement`: rank interior edges four at a time with AVX2 where the CPU has it; the
    /// result is the same bytes either way (tests compare the two).
    init(
        _ mesh: Mesh, threads: Int = 2,
        vectorPlacement: Bool = true
    ) {
        assert(
            !stride(from: 0, to: mesh.triangles.count, by: 3).contains {
                Decimation.repeatsACorner(mesh.triangles, $0)
            },
            "a triangle repeats a corner")
        let sides = threads > 1 && mesh.triangleCount >= Tuning.secondThreadTriangles ? Parallel.Pair() : nil
        self.sides = sides
        core = DecimationCore(mesh, sides: sides, vectorPlacement: vectorPlacement)
        liveVertices = mesh.vertexCount
        triangleSlots = mesh.triangleCount
        // 1. Vertex → triangle lists.
        core.buildAdjacency(triangleSlots)
        // 2. Quadrics, boundary and locked vertices.
        core.classifyAndAccumulate(triangleSlots)
    }

    deinit { core.deallocate() }

    /// Whether classification locked a vertex (non-manifold edge or vertex, inconsistent
    /// winding): a clean manifold mesh has none.
    var hasLockedVertices: Bool {
        let flags = core.flags
        for v in 0..<core.vertexCount where flags[v] & DecimationCore.Flag.locked != 0 { return true }
        return false
    }

    /// Keeps the vertices flagged in `keep` where they are: no collapse moves or removes them.
    mutating func lock(_ keep: [Bool]) {
        let flags = core.flags
        for v in 0..<min(core.vertexCount, keep.count) where keep[v] { flags[v] |= DecimationCore.Flag.locked }
    }

    /// Collapses edges until `max(target, floor)` vertices remain or no collapse is allowed.
    /// Returns the number of vertices reached. Each pass: compact → adjacency → rank → sort →
    /// collapse the cheapest edges, each vertex at most once. A pass that makes no collapse goes
    /// on at any cost (``collapseAnyCost(_:budget:pass:enough:)``); with `stall`, so does a pass
    /// that makes fewer than that share of the collapses left (a mesh of slivers, as marching
    /// tetrahedra make, whose cheap collapses the shape term mostly refuses: without it, passes
    /// of a few collapses each, one ranking of the whole mesh per pass, until one makes none).
    mutating func decimate(to target: Int, floor: Int = 4, stall: Double = 0) -> Int {
        let goal = max(target, floor)
        // Large meshes collapse in two halves (on two threads when allowed; same bytes either way).
        let split = triangleSlots >= Tuning.parallelTriangles
        if split { core.assignRegions() }
        var pass: UInt32 = 0
        while liveVertices > goal && !Cancellation.requested {
            pass += 1
            // 6. Compact and re-list (the first pass uses the adjacency `init` built).
            if pass > 1 { triangleSlots = core.compactAndList(triangleSlots) }
            // 3. Rank every collapsible edge.
            let count = core.gatherCandidates(triangleSlots)
            if count == 0 { break }
            // 4. Sort the cheaper ones: up to 1.5 × the cost at a fraction of the ranked edges.
            let budget = liveVertices - goal
            let limit = core.limitKey(count, fraction: passFraction(candidates: count, budget: budget))
            let halves = split && triangleSlots >= Tuning.parallelTriangles
            if halves { core.tagSeam(triangleSlots) }
            let nsorted = core.sortCandidates(count, limitKey: limit, sides: halves)
            // 5. Collapse in cost order.
            var done =
                halves
                ? core.collapsePassSplit(nsorted, budget: budget, pass: pass, stamp: &stamp)
                : core.collapsePass(nsorted, budget: budget, pass: pass, stamp: &stamp)
            let enough = max(1, Int(stall * Double(budget)))
            if done < enough {
                done += collapseAnyCost(count, budget: budget - done, pass: pass, enough: enough - done)
            }
            liveVertices -= done
            if done == 0 { break }
        }
        triangleSlots = core.compactTriangles(triangleSlots)
        return liveVertices
    }

    /// The share of a pass's ranked edges whose cost (× 1.5) bounds the edges it sorts and tries.
    private func passFraction(candidates count: Int, budget: Int) -> Double {
        min(
            Tuning.decimationPassFraction,
            max(Tuning.budgetShare * Double(budget), Double(budget + Tuning.tailCandidates)) / Double(count))
    }

    /// When every cheap edge is blocked (fewer than `enough` collapses made): a pass over all
    /// `count` ranked edges at any cost, trying a collapse its placement would spoil onto the kept
    /// endpoint instead; if still fewer than `enough`, one pass without the shape term (a mesh of
    /// needles already, where every collapse makes one worse), so that the count stays reachable.
    /// Returns the collapses made.
    private mutating func collapseAnyCost(_ count: Int, budget: Int, pass: UInt32, enough: Int = 1) -> Int {
        let all = core.sortCandidates(count, limitKey: UInt32(DecimationCore.bucketCount - 1))
        var done = core.collapsePass(all, budget: budget, pass: pass, stamp: &stamp, endpointFallback: true)
        if done < enough {
            core.qualitySineSquared = 0
            done += core.collapsePass(all, budget: budget - done, pass: pass, stamp: &stamp, endpointFallback: true)
            core.qualitySineSquared = Float(Tuning.qualitySineSquared)
        }
        return done
    }

    /// The decimated mesh: live vertices renumbered in their input order, live triangles in order.
    func mesh() -> Mesh {
        let c = core
        let n = c.vertexCount, corners = 3 * triangleSlots
        // The new numbers, in the marks' memory (zero again afterwards: below every stamp).
        let remap = c.mark
        defer { remap.update(repeating: 0, count: n) }
        remap.update(repeating: UInt32.max, count: n)
        for i in 0..<corners { remap[Int(c.tri[i])] = 0 }
        var live = 0
        for v in 0..<n where remap[v] == 0 {
            remap[v] = UInt32(truncatingIfNeeded: live)
            live += 1
        }
        // A per-vertex array's values at the live vertices, in their new order (the live
        // vertices ascending: their new numbers count up).
        func liveValues<T>(_ values: ScratchRun<T>) -> [T] {
            var out: [T] = []
            out.reserveCapacity(live)
            for v in 0..<n where remap[v] != UInt32.max { out.append(values[v]) }
            return out
        }
        let positions = liveValues(c.pos)
        let uvs = c.hasUVs ? liveValues(c.uv) : nil
        var triangles = [UInt32](repeating: 0, count: corners)
        for i in 0..<corners { triangles[i] = remap[Int(c.tri[i])] }
        return Mesh(uncheckedPositions: positions, triangles: triangles, uvs: uvs)
    }
}
