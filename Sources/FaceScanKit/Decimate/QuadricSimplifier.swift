import CSIMD
import Dispatch

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
// Recipe (`QuadricSimplifier.decimate(to:floor:)`):
//   classify vertices (boundary, locked) → build quadrics (faces + heavy boundary planes) → repeat
//   passes { compact triangles → vertex→triangle CSR → rank every collapsible edge → counting-sort
//   by quantised cost → collapse in order, each vertex at most once per pass, every collapse checked
//   against the live mesh (link condition, pinch, flips, slivers) } until the exact vertex count.
//
// Two cores: meshes from 4 096 triangles on rank edges and build quadrics on two threads (each
// writing its own slots), and collapse in two halves of the mesh split at the median of the
// longest axis: each half takes, in cost order, the edges whose ends and surrounding triangles
// lie inside it (memory the other half never touches), then the edges along the seam follow on
// one thread. Every step's result depends only on its own data, so the output is the same bytes
// on one or two threads.
//
// Passes stop only when the target is reached or no edge at all may collapse (the last attempt
// ranks every edge, at any cost). A run that stops at S vertices reports S as the smallest count
// it reaches; every count above S is reached exactly.

/// A symmetric quadric `Q(x) = xᵀAx + 2bᵀx + c` stored as its 10 distinct coefficients, in double.
struct Quadric {
    var a00 = 0.0, a01 = 0.0, a02 = 0.0, a11 = 0.0, a12 = 0.0, a22 = 0.0
    var b0 = 0.0, b1 = 0.0, b2 = 0.0, c = 0.0

    /// `w · (n·x + d)²` for the plane `n·x + d = 0` (`n` of unit length).
    @inline(__always)
    init(plane n: SIMD3<Double>, d: Double, weight w: Double) {
        let wn = w * n
        a00 = wn.x * n.x
        a01 = wn.x * n.y
        a02 = wn.x * n.z
        a11 = wn.y * n.y
        a12 = wn.y * n.z
        a22 = wn.z * n.z
        b0 = wn.x * d
        b1 = wn.y * d
        b2 = wn.z * d
        c = w * d * d
    }

    init() {}

    /// `(p.xyz · x + p.w)²`: the quadric of a plane scaled by the square root of its weight.
    @inline(__always)
    init(scaledPlane p: SIMD4<Double>) {
        self.init(plane: SIMD3(p.x, p.y, p.z), d: p.w, weight: 1)
    }

    @inline(__always)
    mutating func add(_ q: Quadric) {
        a00 += q.a00
        a01 += q.a01
        a02 += q.a02
        a11 += q.a11
        a12 += q.a12
        a22 += q.a22
        b0 += q.b0
        b1 += q.b1
        b2 += q.b2
        c += q.c
    }

    @inline(__always)
    func evaluate(_ p: SIMD3<Double>) -> Double {
        let x = p.x, y = p.y, z = p.z
        let quad = a00 * x * x + a11 * y * y + a22 * z * z + 2 * (a01 * x * y + a02 * x * z + a12 * y * z)
        return quad + 2 * (b0 * x + b1 * y + b2 * z) + c
    }

    /// The point minimising `Q(x)` when `A` is well conditioned (its determinant at least
    /// `Tuning.exactDeterminant · trace³`), else `Q(x) + ε|x − m|²` with `ε` a small fraction of
    /// `trace(A)`: the point nearest `m` along directions `Q` leaves (almost) free, such as flat or
    /// ridge regions. Never worse than `m` in `Q`. `nil` when not finite.
    @inline(__always)
    func regularisedMinimum(near m: SIMD3<Double>) -> SIMD3<Double>? {
        let trace = a00 + a11 + a22
        guard trace > 0 else { return nil }
        // Cofactors of A; when A is well conditioned they solve it directly (the same arithmetic
        // as the regularised branch with ε = 0).
        var c00 = a11 * a22 - a12 * a12
        var c01 = a02 * a12 - a01 * a22
        var c02 = a01 * a12 - a02 * a11
        var det = a00 * c00 + a01 * c01 + a02 * c02
        var m00 = a00, m11 = a11, m22 = a22
        var r0 = -b0, r1 = -b1, r2 = -b2
        if !(det > QuadricSimplifier.Tuning.exactDeterminant * trace * trace * trace) {
            let eps = trace * QuadricSimplifier.Tuning.regularisation
            m00 = a00 + eps
            m11 = a11 + eps
            m22 = a22 + eps
            r0 = eps * m.x - b0
            r1 = eps * m.y - b1
            r2 = eps * m.z - b2
            c00 = m11 * m22 - a12 * a12
            c01 = a02 * a12 - a01 * m22
            c02 = a01 * a12 - a02 * m11
            det = m00 * c00 + a01 * c01 + a02 * c02
            guard det > 0 else { return nil }
        }
        let c11 = m00 * m22 - a02 * a02
        let c12 = a01 * a02 - m00 * a12
        let c22 = m00 * m11 - a01 * a01
        let inv = 1 / det
        let x = SIMD3<Double>(
            c00 * r0 + c01 * r1 + c02 * r2,
            c01 * r0 + c11 * r1 + c12 * r2,
            c02 * r0 + c12 * r1 + c22 * r2) * inv
        guard x.x.isFinite, x.y.isFinite, x.z.isFinite else { return nil }
        return x
    }
}

/// Quadric edge-collapse decimation of one indexed triangle mesh, in place on scratch memory it
/// owns (allocated once in `init`, freed in `deinit`).
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
        /// Candidates per locally sorted chunk (see `DecimationCore.sortCandidates`).
        static let sortChunk = 8192
        /// After refinement, each pass collapses edges up to 1.5 × the cost found at this fraction
        /// of its sorted edges.
        static let passFraction = 0.4
        /// When decimating, at this fraction…
        static let decimationPassFraction = 0.6
        /// …or, once fewer collapses are left, at this many times the collapses left: the last
        /// passes go in nearly cost order. (ICT face 9 409 → 5 000: RMS 18.1 → 16.4 µm, same
        /// passes; twice-subdivided face → 10 000: 2.4 → 0.8 µm with 7 % fewer edges ranked than
        /// 0.4 throughout. After refinement this made the error worse as often as better.)
        static let budgetShare = 2.5
        /// …but at least this many more than the collapses left: the cheapest edges a last pass
        /// finds blocked (a flip, the link condition) stay blocked, and a pass that only reaches
        /// past them a few at a time ranks the whole mesh again for a handful of collapses (ICT
        /// face → 4 500: 6 passes, the last three for 10, 2 and 5 collapses; now 4, the last for
        /// 17). Takes effect only when fewer than 171 collapses are left.
        static let tailCandidates = 256
        /// Triangle slots from which edges are ranked on two threads.
        static let parallelTriangles = 4_096
    }

    var core: DecimationCore
    /// Where the core's scratch memory goes back to.
    private let cache: ArenaCache?
    /// Whether the last passes narrow to the collapses left (``Tuning/budgetShare``): not after
    /// refinement, where it made the error worse as often as better.
    let narrowsLastPasses: Bool
    /// Vertices still referenced.
    private(set) var liveVertices: Int
    /// Triangle slots in use (dead ones are dropped by the next compaction).
    private(set) var triangleSlots: Int
    private var stamp: UInt32 = 0

    /// Prepares `mesh` (every vertex referenced, no triangle repeating a corner; see
    /// ``Decimation``) for decimation: classifies
    /// vertices and accumulates quadrics.
    ///
    /// `origin`: when `mesh` is `origin.mesh` subdivided `origin.levels` times by ``Subdivision``
    /// (triangle `t` lies in the subdivided input triangle `t >> 2·levels`), the quadrics measure
    /// the distance to the planes of `origin.mesh` rather than of `mesh`, so collapses pull the
    /// refined surface back towards the input.
    /// - Complexity: O(t · valence) for t triangles.
    ///
    /// `threads`: 1 runs everything on the calling thread, more lets large meshes use two; the
    /// result is the same bytes either way.
    ///
    /// `cache`: where the scratch memory comes from and goes back to (see ``ScratchArena``).
    ///
    /// `vectorPlacement`: rank interior edges four at a time with AVX2 where the CPU has it; the
    /// result is the same bytes either way (tests compare the two).
    init(_ mesh: Mesh, origin: (mesh: Mesh, levels: Int)? = nil, threads: Int = 2, cache: ArenaCache? = .shared,
         vectorPlacement: Bool = true) {
        assert(!stride(from: 0, to: mesh.triangles.count, by: 3).contains { Decimation.repeatsACorner(mesh.triangles, $0) },
               "a triangle repeats a corner")
        core = DecimationCore(mesh, threads: threads, cache: cache, vectorPlacement: vectorPlacement)
        self.cache = cache
        narrowsLastPasses = origin == nil
        liveVertices = mesh.vertexCount
        triangleSlots = mesh.triangleCount
        core.buildAdjacency(triangleSlots)
        if let origin {
            precondition(origin.mesh.triangleCount << (2 * origin.levels) == mesh.triangleCount, "origin does not match")
            origin.mesh.positions.withUnsafeBufferPointer { p in
                origin.mesh.triangles.withUnsafeBufferPointer { t in
                    core.classifyAndAccumulate(triangleSlots, origin: Origin(positions: p, triangles: t, levels: origin.levels))
                }
            }
        } else {
            core.classifyAndAccumulate(triangleSlots, origin: nil)
        }
    }

    deinit { core.deallocate(to: cache) }

    /// Whether classification locked a vertex (non-manifold edge or vertex, inconsistent
    /// winding): a clean manifold mesh has none.
    var hasLockedVertices: Bool {
        let flags = core.flags
        for v in 0..<core.vertexCount where flags[v] & DecimationCore.Flag.locked != 0 { return true }
        return false
    }

    /// Collapses edges until `max(target, floor)` vertices remain or no collapse is allowed.
    /// Returns the number of vertices reached. Each pass: compact → adjacency → rank → sort →
    /// collapse the cheapest edges, each vertex at most once.
    mutating func decimate(to target: Int, floor: Int = 4) -> Int {
        let goal = max(target, floor)
        // Large meshes collapse in two halves (on two threads when allowed; same bytes either way).
        let split = triangleSlots >= Tuning.parallelTriangles
        if split { core.assignRegions() }
        var pass: UInt32 = 0
        while liveVertices > goal {
            pass += 1
            if pass > 1 {
                triangleSlots = core.compactTriangles(triangleSlots)
                core.buildAdjacency(triangleSlots)
            }
            let count = core.gatherCandidates(triangleSlots)
            if count == 0 { break }
            let budget = liveVertices - goal
            let fraction = narrowsLastPasses
                ? min(Tuning.decimationPassFraction, max(Tuning.budgetShare * Double(budget), Double(budget + Tuning.tailCandidates)) / Double(count)) : Tuning.passFraction
            let limit = core.limitKey(count, fraction: fraction)
            let halves = split && triangleSlots >= Tuning.parallelTriangles
            if halves { core.tagSeam(triangleSlots) }
            let nsorted = core.sortCandidates(count, limitKey: limit, sides: halves)
            var done: Int
            if halves {
                done = core.collapsePassSplit(nsorted, budget: budget, pass: pass, stamp: &stamp)
            } else {
                done = core.collapsePass(nsorted, budget: budget, pass: pass, stamp: &stamp)
            }
            if done == 0 {
                // Every cheap edge is blocked: allow any cost, and a collapse its placement would
                // spoil onto the kept endpoint instead, before giving up.
                let all = core.sortCandidates(count, limitKey: UInt32(DecimationCore.bucketCount - 1))
                done = core.collapsePass(all, budget: budget, pass: pass, stamp: &stamp, endpointFallback: true)
                if done == 0 {
                    // The shape term blocks every collapse (a mesh of needles already, where every
                    // collapse makes one worse): one pass without it, so the count stays reachable.
                    core.qualitySineSquared = 0
                    done = core.collapsePass(all, budget: budget, pass: pass, stamp: &stamp, endpointFallback: true)
                    core.qualitySineSquared = Float(Tuning.qualitySineSquared)
                }
            }
            liveVertices -= done
            if done == 0 { break }
        }
        triangleSlots = core.compactTriangles(triangleSlots)
        return liveVertices
    }

    /// Moves every vertex to the minimum of its quadric (regularised towards where it is) when no
    /// triangle around it flips or degenerates. After refinement (quadrics of the input's planes)
    /// this pulls the vertices the collapses left on the smoothed surface back to the input.
    mutating func relocate() {
        core.buildAdjacency(triangleSlots)
        core.relocate()
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
        // A per-vertex array's values at the live vertices, in their new order.
        func liveValues<T>(_ values: UnsafeMutablePointer<T>) -> [T] {
            [T](unsafeUninitializedCapacity: live) { out, count in
                for v in 0..<n where remap[v] != UInt32.max { (out.baseAddress! + Int(remap[v])).initialize(to: values[v]) }
                count = live
            }
        }
        let positions = liveValues(c.pos)
        let uvs = c.hasUVs ? liveValues(c.uv) : nil
        let triangles = [UInt32](unsafeUninitializedCapacity: corners) { out, count in
            for i in 0..<corners { (out.baseAddress! + i).initialize(to: remap[Int(c.tri[i])]) }
            count = corners
        }
        return Mesh(positions: positions, triangles: triangles, uvs: uvs)
    }
}

/// The two sides' results of ``DecimationCore/bothCounts(_:)``: each side writes its own slot,
/// read only after both have returned.
private struct SharedCounts: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int>
}

/// Per-triangle planes and per-corner neighbours for ``DecimationCore/classifyAndAccumulate(_:origin:)``:
/// each thread writes its own range of slots.
struct ClassifyScratch: @unchecked Sendable {
    let planes: UnsafeMutablePointer<SIMD4<Double>>
    let normals: UnsafeMutablePointer<SIMD3<Float>>
    let nextOf: UnsafeMutablePointer<UInt32>
    let prevOf: UnsafeMutablePointer<UInt32>
}

/// One ranked edge collapse: `drop` merges into `keep`, which moves to `(x, y, z)`.
struct Candidate {
    var x: Float, y: Float, z: Float
    var cost: Float
    var drop: UInt32, keep: UInt32

    @inline(__always) var position: SIMD3<Float> { SIMD3(x, y, z) }
}

/// A candidate's place in a pass's cost order: its two ends, read for every entry the pass
/// visits, with the candidate itself (for the placement) read only when neither end is taken yet.
struct Ranked {
    var drop: UInt32, keep: UInt32
    var candidate: UInt32
}

/// The input a refined mesh was subdivided from (see ``QuadricSimplifier/init(_:origin:)``).
struct Origin: @unchecked Sendable {
    let positions: UnsafeBufferPointer<SIMD3<Float>>
    let triangles: UnsafeBufferPointer<UInt32>
    let levels: Int

    /// The input triangle and its edge (`k`: corner `k` → corner `k + 1`) that half-edge `k` of
    /// refined triangle `t` lies on, or `nil` for a half-edge inside an input triangle. Child `j`
    /// (< 3) of a triangle keeps corner `j`; its half-edge 0 lies on parent edge `j`, its half-edge
    /// 2 on parent edge `j + 2 (mod 3)`; child 3 and every half-edge 1 are inside.
    @inline(__always)
    func edge(_ t: Int, _ k: Int) -> (triangle: Int, edge: Int)? {
        var t = t, k = k
        for _ in 0..<levels {
            let j = t & 3
            if j == 3 || k == 1 { return nil }
            k = k == 0 ? j : (j + 2) % 3
            t >>= 2
        }
        return (t, k)
    }
}

/// Pointers into the simplifier's scratch memory and the hot loops over them. A trivially
/// copyable view: each hot function copies it into a local first, so that the compiler keeps the
/// pointers in registers while it stores through them. `@unchecked Sendable`: every step that runs
/// on two threads (classification, ranking, sorting, the two halves of a collapse pass) reads
/// shared state and writes disjoint slots.
struct DecimationCore: @unchecked Sendable {
    typealias Tuning = QuadricSimplifier.Tuning
    enum Flag {
        static let boundary: UInt8 = 1
        static let locked: UInt8 = 2
    }

    static let deadTriangle = UInt32.max
    /// 12-bit cost keys (exponent and 4 mantissa bits of a non-negative Float).
    static let keyShift: UInt32 = 19
    static let bucketCount = 1 << 12
    /// Entries of each of the two histograms (one per thread): a count per key shifted by one,
    /// and the sort's bucket for keys past its limit.
    static let histogramStride = bucketCount + 2

    let vertexCount: Int
    let hasUVs: Bool
    /// Threads the parallel steps may use (1 or 2).
    let threads: Int
    /// Whether this core holds ``HelperThread/shared`` for its second side (else, with two
    /// threads, Dispatch runs it).
    let helped: Bool
    /// Whether interior edges are placed four at a time (``placePending(_:from:_:in:histogram:)``).
    let vectorPlacement: Bool
    /// The input's bounding box (``assignRegions()`` splits it).
    let bounds: (lo: SIMD3<Float>, hi: SIMD3<Float>)
    /// Quadrics are built around the bounding-box centre, for precision.
    let centre: SIMD3<Double>
    /// The power of two near 1 / (typical edge length) that ``fourKeepShape(_:_:)`` scales edges by.
    let shapeScale: Float
    /// The shape term's bound (``QuadricSimplifier/Tuning/qualitySineSquared``); 0 turns it off
    /// for a pass in which it blocks every collapse.
    var qualitySineSquared = Float(QuadricSimplifier.Tuning.qualitySineSquared)
    // Per vertex.
    let pos: UnsafeMutablePointer<SIMD3<Float>>
    let uv: UnsafeMutablePointer<SIMD2<Float>>
    let quad: UnsafeMutablePointer<Quadric>
    /// Sum of the input's (area-weighted) face normals around every vertex merged into this one:
    /// which side of the input surface is out, near the vertex.
    let refNormal: UnsafeMutablePointer<SIMD3<Float>>
    let flags: UnsafeMutablePointer<UInt8>
    let touched: UnsafeMutablePointer<UInt32>
    let mark: UnsafeMutablePointer<UInt32>
    /// Which half of the mesh (split at the median along the longest axis) a vertex belongs to,
    /// fixed for the whole run; and per pass, that half or `Self.seam` when some triangle around
    /// the vertex reaches into the other half.
    let region: UnsafeMutablePointer<UInt8>
    let tag: UnsafeMutablePointer<UInt8>
    let adjOffsets: UnsafeMutablePointer<UInt32>
    // Per triangle corner.
    let tri: UnsafeMutablePointer<UInt32>
    let adj: UnsafeMutablePointer<UInt32>
    // Candidate edges (at most one per half-edge) in gathering order, and the indices of those a
    // pass takes, sorted by cost.
    let cand: UnsafeMutablePointer<Candidate>
    /// `cand`'s memory (``candidateBytes(triangles:)``), which classification uses first for its
    /// scratch (see ``classifyAndAccumulate(_:origin:)``): fewer fresh pages.
    let candBytes: UnsafeMutableRawPointer
    let order: UnsafeMutablePointer<Ranked>
    /// Per entry of `order` in a pass split in halves: which step collapses it (half 0 or 1, or
    /// `Self.seam`; see ``collapsePassSplit(_:budget:pass:stamp:)``).
    let side: UnsafeMutablePointer<UInt8>
    let histogram: UnsafeMutablePointer<UInt32>
    /// The memory of every array above.
    let arena: ScratchArena

    init(_ mesh: Mesh, threads: Int, cache: ArenaCache?, vectorPlacement: Bool) {
        self.threads = threads
        helped = Self.splitsInTwo(mesh.triangleCount, threads: threads) && HelperThread.shared.acquire()
        assert(MemoryLayout<Quadric>.stride == 80 && MemoryLayout<Candidate>.stride == 24
               && MemoryLayout<Candidate>.offset(of: \Candidate.drop) == 16, "layout the vector placement reads")
        self.vectorPlacement = vectorPlacement && facescan_place_collapses_available() == 1
        let n = mesh.vertexCount
        let corners = 3 * mesh.triangleCount
        vertexCount = n
        hasUVs = mesh.uvs != nil
        let (lo, hi) = mesh.bounds
        bounds = (lo, hi)
        centre = (SIMD3<Double>(lo) + SIMD3<Double>(hi)) * 0.5
        let extent = SIMD3<Double>(hi) - SIMD3<Double>(lo)
        shapeScale = Self.shapeScale(diagonal: Self.dot(extent, extent).squareRoot(), vertices: n)
        typealias A = ScratchArena
        let candidateBytes = Self.candidateBytes(triangles: mesh.triangleCount)
        let perVertex = 2 * A.bytes(SIMD3<Float>.self, n) + A.bytes(SIMD2<Float>.self, hasUVs ? n : 1)
            + A.bytes(Quadric.self, n) + 3 * A.bytes(UInt8.self, n) + 2 * A.bytes(UInt32.self, n) + A.bytes(UInt32.self, n + 1)
        let perCorner = 2 * A.bytes(UInt32.self, corners) + A.bytes(Ranked.self, corners) + A.bytes(UInt8.self, corners) + A.bytes(UInt8.self, candidateBytes)
        arena = ScratchArena(byteCount: perVertex + perCorner + A.bytes(UInt32.self, 2 * Self.histogramStride), cache: cache)
        if arena.fresh && helped {
            // Its first touches, on two threads.
            let arena = self.arena
            HelperThread.shared.run { k in arena.touch(part: k, of: 2) }
        }
        var take = ScratchArena.Cursor(arena)
        pos = take.take(SIMD3<Float>.self, n)
        refNormal = take.take(SIMD3<Float>.self, n)
        uv = take.take(SIMD2<Float>.self, hasUVs ? n : 1)
        quad = take.take(Quadric.self, n)
        flags = take.take(UInt8.self, n)
        region = take.take(UInt8.self, n)
        tag = take.take(UInt8.self, n)
        touched = take.take(UInt32.self, n)
        mark = take.take(UInt32.self, n)
        adjOffsets = take.take(UInt32.self, n + 1)
        tri = take.take(UInt32.self, corners)
        adj = take.take(UInt32.self, corners)
        order = take.take(Ranked.self, corners)
        side = take.take(UInt8.self, corners)
        candBytes = UnsafeMutableRawPointer(take.take(UInt8.self, candidateBytes))
        cand = candBytes.bindMemory(to: Candidate.self, capacity: max(corners, 1))
        histogram = take.take(UInt32.self, 2 * Self.histogramStride)
        take.finish()
        if n > 0 { mesh.positions.withUnsafeBufferPointer { pos.initialize(from: $0.baseAddress!, count: n) } }
        if let uvs = mesh.uvs, n > 0 { uvs.withUnsafeBufferPointer { uv.initialize(from: $0.baseAddress!, count: n) } }
        if corners > 0 { mesh.triangles.withUnsafeBufferPointer { tri.initialize(from: $0.baseAddress!, count: corners) } }
        // quad, refNormal and flags (trivial types) are written for every vertex by
        // `classifyAndAccumulate` before anything reads them.
        touched.initialize(repeating: 0, count: n)
        adjOffsets.initialize(repeating: 0, count: n + 1)
        mark.initialize(repeating: 0, count: n)
        region.initialize(repeating: 0, count: n)
        tag.initialize(repeating: 0, count: n)
    }

    /// ``shapeScale``: a power of two near `√vertices / diagonal`, the inverse of a typical edge's
    /// length on a surface mesh spanning `diagonal`; 1 for an empty or flat-to-a-point mesh.
    static func shapeScale(diagonal: Double, vertices: Int) -> Float {
        guard diagonal > 0, diagonal.isFinite, vertices > 0 else { return 1 }
        let edge = diagonal / Double(vertices).squareRoot()
        let exponent = max(-100, min(100, -Int(edge.exponent)))
        return Float(sign: .plus, exponent: exponent, significand: 1)
    }

    /// Bytes allocated for `cand` (see ``candBytes``): room for a candidate per corner, or for
    /// the classification scratch, whichever is larger.
    static func candidateBytes(triangles: Int) -> Int {
        max(ScratchArena.bytes(Candidate.self, 3 * triangles), classifyScratchBytes(triangles: triangles))
    }

    /// Bytes of the classification scratch, in the order ``classifyAndAccumulate(_:origin:)``
    /// takes it: per triangle a plane and a normal, per corner its next and previous corner with 8
    /// slots of padding each (a fan's last 8-lane block may reach past the last corner).
    static func classifyScratchBytes(triangles: Int) -> Int {
        ScratchArena.bytes(SIMD4<Double>.self, triangles) + ScratchArena.bytes(SIMD3<Float>.self, triangles)
            + 2 * ScratchArena.bytes(UInt32.self, 3 * triangles + 8)
    }

    /// Gives the scratch memory back to `cache` (see ``ScratchArena/release(to:)``) and the
    /// helper thread back.
    func deallocate(to cache: ArenaCache?) {
        arena.release(to: cache)
        if helped { HelperThread.shared.release() }
    }

    @inline(__always)
    func local(_ v: UInt32) -> SIMD3<Double> { SIMD3<Double>(pos[Int(v)]) - centre }

    @inline(__always)
    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    @inline(__always)
    static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { a.x * b.x + a.y * b.y + a.z * b.z }

    @inline(__always)
    static func key(_ cost: Float) -> UInt32 {
        cost.isFinite ? cost.bitPattern >> keyShift : UInt32(bucketCount - 1)
    }

    /// The corners following and preceding `a` in triangle `t` (winding order).
    @inline(__always)
    func around(_ a: UInt32, in t: Int) -> (next: UInt32, prev: UInt32) {
        let base = 3 * t
        let x = tri[base], y = tri[base + 1], z = tri[base + 2]
        if x == a { return (y, z) }
        if y == a { return (z, x) }
        return (x, y)
    }

    // MARK: - Setup

    /// Vertex → triangle CSR over the live triangle slots (count → prefix-sum → fill with the
    /// offsets as cursors → shift back). Triangles of a vertex are listed in ascending order.
    /// Large meshes count and fill on two threads, each over half of the slots (see
    /// ``buildAdjacencyInHalves(_:)``): the same lists.
    func buildAdjacency(_ triangleSlots: Int) {
        if splitsInTwo(triangleSlots) {
            buildAdjacencyInHalves(triangleSlots)
            return
        }
        let s = self
        let n = s.vertexCount
        let off = s.adjOffsets
        off.update(repeating: 0, count: n + 1)
        s.countCorners(0, triangleSlots, into: off + 1)
        for v in 0..<n { off[v + 1] += off[v] }
        s.fillLists(0, triangleSlots, cursors: off)
        s.shiftOffsets(from: off)
    }

    /// ``buildAdjacency(_:)`` on two threads: the first half of the triangle slots counts into
    /// `adjOffsets` and fills from each vertex's start, the second counts into `mark` and fills
    /// from the start plus the first half's count, so each list is still in ascending triangle
    /// order. `mark` is zero afterwards (below every stamp).
    func buildAdjacencyInHalves(_ triangleSlots: Int) {
        let s = self
        let n = s.vertexCount
        let off = s.adjOffsets, second = s.mark
        let half = triangleSlots / 2
        // Per half: the corners of each vertex in its slots; then, as cursors, where the next
        // triangle of the vertex goes.
        s.bothSides(parallel: true) { k in
            let counts = k == 0 ? s.adjOffsets + 1 : s.mark
            counts.update(repeating: 0, count: n)
            s.countCorners(k == 0 ? 0 : half, k == 0 ? half : triangleSlots, into: counts)
        }
        var start: UInt32 = 0
        for v in 0..<n {
            let first = off[v + 1], rest = second[v]
            off[v] = start
            second[v] = start + first
            start += first + rest
        }
        s.bothSides(parallel: true) { k in
            s.fillLists(k == 0 ? 0 : half, k == 0 ? half : triangleSlots, cursors: k == 0 ? s.adjOffsets : s.mark)
        }
        // The second half's cursors stop at the next vertex's start.
        s.shiftOffsets(from: second)
        second.update(repeating: 0, count: n)
    }

    /// Adds one to `counts[v]` for each corner `v` of the live triangles in slots `lo..<hi`.
    @inline(__always)
    func countCorners(_ lo: Int, _ hi: Int, into counts: UnsafeMutablePointer<UInt32>) {
        let tri = self.tri
        var i = 3 * lo
        let end = 3 * hi
        while i < end {
            if tri[i] != Self.deadTriangle {
                counts[Int(tri[i])] += 1
                counts[Int(tri[i + 1])] += 1
                counts[Int(tri[i + 2])] += 1
            }
            i += 3
        }
    }

    /// Lists each live triangle of slots `lo..<hi` under its corners, at `cursors[v]`, advancing it.
    @inline(__always)
    func fillLists(_ lo: Int, _ hi: Int, cursors: UnsafeMutablePointer<UInt32>) {
        let tri = self.tri, adj = self.adj
        for t in lo..<hi {
            let base = 3 * t
            if tri[base] == Self.deadTriangle { continue }
            for k in 0..<3 {
                let v = Int(tri[base + k])
                adj[Int(cursors[v])] = UInt32(truncatingIfNeeded: t)
                cursors[v] += 1
            }
        }
    }

    /// `adjOffsets` from the cursors after filling: vertex `v`'s cursor stopped where `v + 1`'s
    /// list starts.
    @inline(__always)
    func shiftOffsets(from cursors: UnsafeMutablePointer<UInt32>) {
        let off = adjOffsets
        var v = vertexCount
        while v > 0 {
            off[v] = cursors[v - 1]
            v -= 1
        }
        off[0] = 0
    }

    /// True when some live triangle of `a` has the directed edge `a → b`.
    @inline(__always)
    func hasHalfEdge(from a: UInt32, to b: UInt32) -> Bool {
        var i = Int(adjOffsets[Int(a)])
        let end = Int(adjOffsets[Int(a) + 1])
        while i < end {
            if around(a, in: Int(adj[i])).next == b { return true }
            i += 1
        }
        return false
    }

    /// Accumulates area-weighted face quadrics; marks boundary vertices and adds heavy boundary
    /// quadrics (plane through the boundary edge, perpendicular to its face); locks vertices the
    /// simplifier must not touch. Needs a current adjacency.
    ///
    /// Two steps, each split over two threads for large meshes and each writing only its own
    /// slots, so the result is the same bytes on one or two threads: (1) every triangle's scaled
    /// plane and normal; (2) every vertex sums the planes of its triangles in ascending triangle
    /// order and classifies itself from its own triangle list alone: half-edge `a → b` has an
    /// opposite when `b` precedes `a` in another triangle of `a`, and incoming half-edge `p → a`
    /// is a boundary edge when no triangle of `a` has `a → p`.
    func classifyAndAccumulate(_ triangleSlots: Int, origin: Origin?) {
        let s = self
        let corners = 3 * triangleSlots
        // The scratch lives in `cand`'s memory (candidates come later).
        var take = ScratchArena.Cursor(base: s.candBytes, byteCount: Self.classifyScratchBytes(triangles: triangleSlots))
        let planes = take.take(SIMD4<Double>.self, triangleSlots)
        let normals = take.take(SIMD3<Float>.self, triangleSlots)
        let nextOf = take.take(UInt32.self, corners + 8)
        let prevOf = take.take(UInt32.self, corners + 8)
        take.finish()
        (nextOf + corners).initialize(repeating: 0, count: 8)
        (prevOf + corners).initialize(repeating: 0, count: 8)
        defer { _ = s.candBytes.bindMemory(to: Candidate.self, capacity: max(corners, 1)) }
        let scratch = ClassifyScratch(planes: planes, normals: normals, nextOf: nextOf, prevOf: prevOf)
        let parallel = triangleSlots >= Tuning.parallelTriangles
        s.inHalves(triangleSlots, parallel: parallel) { lo, hi in
            s.facePlanes(lo, hi, origin: origin, scratch)
        }
        // The fan check's marks: `mark` for the first half of the vertices, `touched` for the
        // second (each thread its own), cleared for the passes afterwards.
        s.inHalves(s.vertexCount, parallel: parallel) { lo, hi in
            s.classifyVertices(lo, hi, origin: origin, scratch, seen: lo == 0 ? s.mark : s.touched)
        }
        s.mark.update(repeating: 0, count: s.vertexCount)
        s.touched.update(repeating: 0, count: s.vertexCount)
    }

    /// Whether a step over `triangleSlots` triangle slots writes two separate halves and joins
    /// them (worth it from ``Tuning/parallelTriangles`` on, with two threads).
    @inline(__always)
    func splitsInTwo(_ triangleSlots: Int) -> Bool { Self.splitsInTwo(triangleSlots, threads: threads) }

    static func splitsInTwo(_ triangleSlots: Int, threads: Int) -> Bool {
        triangleSlots >= Tuning.parallelTriangles && threads > 1
    }

    /// Runs `body(lo, hi)` over `0..<count`: as two halves, on two threads when `parallel` and
    /// `threads` allows, else in order on the calling thread.
    @inline(__always)
    func inHalves(_ count: Int, parallel: Bool, _ body: @Sendable (Int, Int) -> Void) {
        let half = count / 2
        bothSides(parallel: parallel && count > 1) { k in
            if k == 0 { body(0, half) } else { body(half, count) }
        }
    }

    /// `body(0)` and `body(1)` through ``bothSides(parallel:_:)`` (parallel), returning both results.
    func bothCounts(_ body: @Sendable (Int) -> Int) -> (Int, Int) {
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        defer { counts.deallocate() }
        let shared = SharedCounts(base: counts)
        bothSides(parallel: true) { k in shared.base[k] = body(k) }
        return (counts[0], counts[1])
    }

    /// Moves `count` elements from `p + from` down to `p + to` (`to ≤ from`), front to back: how
    /// the second side's output joins the first's.
    @inline(__always)
    static func moveDown<T>(_ p: UnsafeMutablePointer<T>, from: Int, to: Int, count: Int) {
        if to == from { return }
        for i in 0..<count { p[to + i] = p[from + i] }
    }

    /// `body(0)` and `body(1)`: on two threads when `parallel` and `threads` allows, else in
    /// order. Callers make the two sides independent, so the outcome does not depend on which.
    @inline(__always)
    func bothSides(parallel: Bool, _ body: @Sendable (Int) -> Void) {
        if parallel && helped {
            HelperThread.shared.run(body)
        } else if parallel && threads > 1 {
            DispatchQueue.concurrentPerform(iterations: 2, execute: body)
        } else {
            body(0)
            body(1)
        }
    }

    /// Step 1 of ``classifyAndAccumulate(_:origin:)`` for triangles `lo..<hi`: the plane scaled so
    /// that its quadric is area-weighted (`(n, d)·√(area)`; zero for a degenerate triangle) and the
    /// area-weighted normal.
    func facePlanes(_ lo: Int, _ hi: Int, origin: Origin?, _ out: ClassifyScratch) {
        let s = self
        let tri = s.tri
        // The input triangle's plane, shared by its 4^levels consecutive children: computed once.
        var cachedOrigin = -1
        var originPlane: (unit: SIMD3<Double>, anchor: SIMD3<Double>)? = nil
        for t in lo..<hi {
            let base = 3 * t
            let i0 = tri[base], i1 = tri[base + 1], i2 = tri[base + 2]
            let p0 = s.local(i0)
            let nrm = Self.cross(s.local(i1) - p0, s.local(i2) - p0)
            let len = Self.dot(nrm, nrm).squareRoot()
            out.normals[t] = SIMD3<Float>(nrm)
            guard len > 0 else {
                out.planes[t] = .zero
                continue
            }
            var unit = nrm / len
            var anchor = p0
            if let origin {
                // The plane of the input triangle this one was subdivided from.
                let ot = t >> (2 * origin.levels)
                if ot != cachedOrigin {
                    cachedOrigin = ot
                    let ob = 3 * ot
                    let o0 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob])]) - s.centre
                    let o1 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 1])]) - s.centre
                    let o2 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 2])]) - s.centre
                    let on = Self.cross(o1 - o0, o2 - o0)
                    let ol = Self.dot(on, on).squareRoot()
                    originPlane = ol > 0 ? (on / ol, o0) : nil
                }
                if let originPlane {
                    unit = originPlane.unit
                    anchor = originPlane.anchor
                }
            }
            let w = (0.5 * len).squareRoot()
            out.planes[t] = SIMD4(unit.x * w, unit.y * w, unit.z * w, -Self.dot(unit, anchor) * w)
        }
    }

    /// Step 2 of ``classifyAndAccumulate(_:origin:)`` for vertices `lo..<hi`. `seen`: a mark per
    /// vertex for ``isClosedManifoldFan(_:_:count:seen:stamp:)``, all zero (vertex `a` stamps
    /// `2a + 1` and `2a + 2`, above every earlier vertex's).
    func classifyVertices(_ lo: Int, _ hi: Int, origin: Origin?, _ scratch: ClassifyScratch, seen: UnsafeMutablePointer<UInt32>) {
        let s = self
        let adj = s.adj, off = s.adjOffsets
        let nextOf = scratch.nextOf, prevOf = scratch.prevOf
        let lanes = SIMD8<UInt32>(0, 1, 2, 3, 4, 5, 6, 7), zero = SIMD8<UInt32>()
        for a in lo..<hi {
            let first = Int(off[a]), last = Int(off[a + 1])
            let va = UInt32(a)
            var q = Quadric()
            var normal = SIMD3<Float>.zero
            var flag: UInt8 = 0
            for i in first..<last {
                let t = Int(adj[i])
                let (n, p) = s.around(va, in: t)
                nextOf[i] = n
                prevOf[i] = p
                q.add(Quadric(scaledPlane: scratch.planes[t]))
                normal += scratch.normals[t]
            }
            if !Self.isClosedManifoldFan(nextOf + first, prevOf + first, count: last - first,
                                         seen: seen, stamp: UInt32(truncatingIfNeeded: 2 * a + 1)) {
                var outgoingBoundary = 0
                for i in first..<last {
                    let b = nextOf[i], p = prevOf[i]
                    // `a → b` has an opposite when some triangle of `a` has `b → a` (b precedes
                    // a); an edge used twice in one direction (b or p repeated) is not manifold.
                    // Counted 8 fan slots at a time, lanes past the fan masked off.
                    let vb = SIMD8<UInt32>(repeating: b), vp = SIMD8<UInt32>(repeating: p)
                    var outB = SIMD8<UInt32>(), inB = SIMD8<UInt32>(), outP = SIMD8<UInt32>(), inP = SIMD8<UInt32>()
                    var j = first
                    while j < last {
                        let live = lanes .< SIMD8<UInt32>(repeating: UInt32(truncatingIfNeeded: last - j))
                        let nv = UnsafeRawPointer(nextOf + j).loadUnaligned(as: SIMD8<UInt32>.self)
                        let pv = UnsafeRawPointer(prevOf + j).loadUnaligned(as: SIMD8<UInt32>.self)
                        outB &+= zero.replacing(with: 1, where: live .& (nv .== vb))
                        inB &+= zero.replacing(with: 1, where: live .& (pv .== vb))
                        outP &+= zero.replacing(with: 1, where: live .& (nv .== vp))
                        inP &+= zero.replacing(with: 1, where: live .& (pv .== vp))
                        j += 8
                    }
                    let nOutB = outB.wrappedSum(), nInB = inB.wrappedSum()
                    let nOutP = outP.wrappedSum(), nInP = inP.wrappedSum()
                    if nOutB > 1 || nInB > 1 || nOutP > 1 || nInP > 1 { flag |= Flag.locked }
                    let t = Int(adj[i])
                    if nInB == 0 {
                        outgoingBoundary += 1
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: va, to: b, origin: origin) { q.add(bq) }
                    }
                    if nOutP == 0 {
                        flag |= Flag.boundary
                        if let bq = s.boundaryQuadric(t, from: p, to: va, origin: origin) { q.add(bq) }
                    }
                }
                // Two boundary fans touching at one vertex: not a manifold vertex, keep it.
                if outgoingBoundary > 1 { flag |= Flag.locked }
            }
            s.quad[a] = q
            s.refNormal[a] = normal
            s.flags[a] = flag
        }
    }

    /// Whether a fan (corner `i` follows the vertex by `next[i]` and precedes it by `prev[i]`)
    /// closes around its vertex as one manifold disc: no neighbour repeats among `next`, and each
    /// `prev` is a `next` not yet matched (then, both being `count` distinct values, the two sets
    /// are equal: every half-edge has its opposite). The common case of
    /// ``classifyVertices(_:_:origin:_:seen:)``: a mark per neighbour instead of four counts per
    /// corner; `false` sends the fan to the corner-by-corner classification.
    /// `seen`: marks per vertex, none equal to `stamp` (it leaves `stamp` and `stamp + 1`).
    @inline(__always)
    static func isClosedManifoldFan(_ next: UnsafeMutablePointer<UInt32>, _ prev: UnsafeMutablePointer<UInt32>, count: Int,
                                    seen: UnsafeMutablePointer<UInt32>, stamp: UInt32) -> Bool {
        let isNext = stamp, matched = stamp &+ 1
        var bad: UInt32 = 0
        for i in 0..<count {
            let b = Int(next[i])
            bad |= seen[b] == isNext ? 1 : 0
            seen[b] = isNext
        }
        for i in 0..<count {
            let p = Int(prev[i])
            bad |= seen[p] != isNext ? 1 : 0
            seen[p] = matched
        }
        return bad == 0
    }

    /// The heavy quadric of boundary half-edge `a → b` of triangle `t`: the plane through the edge
    /// perpendicular to the triangle (to the input's edge and triangle it lies on, after
    /// refinement), weighted by the squared edge length.
    @inline(__always)
    func boundaryQuadric(_ t: Int, from a: UInt32, to b: UInt32, origin: Origin?) -> Quadric? {
        let s = self
        let base = 3 * t
        var c0 = s.local(tri[base]), c1 = s.local(tri[base + 1]), c2 = s.local(tri[base + 2])
        var pa = s.local(a), pb = s.local(b)
        let k = tri[base] == a ? 0 : (tri[base + 1] == a ? 1 : 2)
        if let origin, let (ot, oe) = origin.edge(t, k) {
            // The input's boundary edge this one lies on, and its triangle.
            let ob = 3 * ot
            c0 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob])]) - s.centre
            c1 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 1])]) - s.centre
            c2 = SIMD3<Double>(origin.positions[Int(origin.triangles[ob + 2])]) - s.centre
            pa = oe == 0 ? c0 : (oe == 1 ? c1 : c2)
            pb = oe == 0 ? c1 : (oe == 1 ? c2 : c0)
        }
        let nrm = Self.cross(c1 - c0, c2 - c0)
        let m = Self.cross(pb - pa, nrm)
        let ml = Self.dot(m, m).squareRoot()
        guard ml > 0 else { return nil }
        let mu = m / ml
        let own = s.local(b) - s.local(a)
        return Quadric(plane: mu, d: -Self.dot(mu, pa), weight: Tuning.boundaryWeight * Self.dot(own, own))
    }

    // MARK: - Passes

    /// Removes dead triangle slots, keeping order; returns the new slot count.
    func compactTriangles(_ triangleSlots: Int) -> Int {
        let tri = self.tri
        var w = 0
        for t in 0..<triangleSlots {
            let r = 3 * t
            if tri[r] == Self.deadTriangle { continue }
            if w != r {
                tri[w] = tri[r]
                tri[w + 1] = tri[r + 1]
                tri[w + 2] = tri[r + 2]
            }
            w += 3
        }
        return w / 3
    }

    /// Ranks every collapsible edge once: its cost, the vertex that survives and where it goes;
    /// counts the cost keys into `histogram` (shifted by one bucket). Returns the number of candidates.
    /// Large meshes are ranked on two threads, each over half of the triangle slots into its own
    /// part of `cand` and its own histogram; the parts are then joined in slot order, so the
    /// result is the same bytes as ranking on one thread.
    func gatherCandidates(_ triangleSlots: Int) -> Int {
        let s = self
        let h = s.histogram, h1 = s.histogram + Self.histogramStride
        guard s.splitsInTwo(triangleSlots) else {
            return s.gatherRange(0, triangleSlots, into: 0, histogram: h)
        }
        let half = triangleSlots / 2
        let (c0, c1) = s.bothCounts { k in
            k == 0
                ? s.gatherRange(0, half, into: 0, histogram: s.histogram)
                : s.gatherRange(half, triangleSlots, into: 3 * half, histogram: s.histogram + Self.histogramStride)
        }
        Self.moveDown(s.cand, from: 3 * half, to: c0, count: c1)
        for k in 0...Self.bucketCount { h[k] += h1[k] }
        return c0 + c1
    }

    /// Ranks the edges of triangle slots `lo..<hi` into `cand[start...]`, counting their keys
    /// into `h`; returns how many.
    func gatherRange(_ lo: Int, _ hi: Int, into start: Int, histogram h: UnsafeMutablePointer<UInt32>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.placementBatch) { buffer in
            gatherRange(lo, hi, into: start, histogram: h, pending: buffer.baseAddress!)
        }
    }

    /// Interior edges placed by one call of the vector kernel.
    static let placementBatch = 256

    /// `pending`: room for ``placementBatch`` interior edges waiting to be placed: their slots in
    /// `cand`.
    func gatherRange(_ lo: Int, _ hi: Int, into start: Int, histogram h: UnsafeMutablePointer<UInt32>,
                     pending: UnsafeMutablePointer<UInt32>) -> Int {
        let s = self
        let tri = s.tri, flags = s.flags, pos = s.pos
        let cand = s.cand + start
        let deferred = s.vectorPlacement
        h.update(repeating: 0, count: Self.bucketCount + 1)
        var count = 0
        var waiting = 0
        let corners = 3 * hi
        var base = 3 * lo
        while base < corners {
            for k in 0..<3 {
                let a = tri[base + k], b = tri[base + (k == 2 ? 0 : k + 1)]
                let fa = flags[Int(a)], fb = flags[Int(b)]
                if (fa | fb) == 0 && deferred {
                    // Interior (the common case): ranked from its half-edge with `a < b`, placed
                    // with the next batch (``placePending``, which also counts its key). Written
                    // either way and kept only then: no branch on the order of a and b.
                    // Ends only: the batch writes the placement and cost.
                    cand[count].drop = max(a, b)
                    cand[count].keep = min(a, b)
                    pending[waiting] = UInt32(truncatingIfNeeded: count)
                    let kept = a < b ? 1 : 0
                    count += kept
                    waiting += kept
                    if waiting == Self.placementBatch {
                        s.placePending(pending, waiting, in: cand, histogram: h)
                        waiting = 0
                    }
                    continue
                }
                if (fa | fb) & Flag.locked != 0 { continue }
                let ba = fa & Flag.boundary != 0, bb = fb & Flag.boundary != 0
                if ba && bb {
                    // Only a boundary edge (no opposite half-edge) may join two boundary vertices.
                    if s.hasHalfEdge(from: b, to: a) { continue }
                } else if a > b {
                    continue  // an interior edge is ranked from its other half-edge
                }
                let keep: UInt32, drop: UInt32
                let target: SIMD3<Float>
                var cost: Double
                if ba && bb {
                    let q = s.sum(a, b)
                    // Along the boundary: onto the cheaper endpoint, so the rim only ever loses
                    // vertices and never bulges past the input's rim.
                    let ca = q.evaluate(s.local(a)), cb = q.evaluate(s.local(b))
                    if ca < cb || (ca == cb && a < b) {
                        keep = a
                        drop = b
                        cost = ca
                    } else {
                        keep = b
                        drop = a
                        cost = cb
                    }
                    target = pos[Int(keep)]
                    // Ties with interior collapses (flat, straight rims) go to the interior.
                    let e = s.local(a) - s.local(b)
                    cost += Tuning.boundaryTieBreak * (q.a00 + q.a11 + q.a22) * Self.dot(e, e)
                } else if !ba && !bb {
                    keep = min(a, b)
                    drop = max(a, b)
                    (target, cost) = s.interiorPlacement(s.sum(a, b), a, b)
                } else {
                    // Between the rim and the interior: the interior vertex goes onto the rim
                    // vertex, which stays put.
                    keep = ba ? a : b
                    drop = ba ? b : a
                    target = pos[Int(keep)]
                    cost = s.sum(a, b).evaluate(s.local(keep))
                }
                let fc: Float = cost > 0 ? Float(cost) : 0
                cand[count] = Candidate(x: target.x, y: target.y, z: target.z, cost: fc, drop: drop, keep: keep)
                h[Int(Self.key(fc)) + 1] += 1
                count += 1
            }
            base += 3
        }
        if waiting > 0 { s.placePending(pending, waiting, in: cand, histogram: h) }
        return count
    }

    /// The quadric of edge `a`–`b`: the sum of its ends'.
    @inline(__always)
    func sum(_ a: UInt32, _ b: UInt32) -> Quadric {
        var q = quad[Int(a)]
        q.add(quad[Int(b)])
        return q
    }

    /// Where collapsing interior edge `a`–`b` (quadric `q`, the sum of theirs) puts the merged
    /// vertex, and the cost: the regularised minimum of `q` near the midpoint, else the best of the
    /// endpoints and the midpoint.
    @inline(__always)
    func interiorPlacement(_ q: Quadric, _ a: UInt32, _ b: UInt32) -> (SIMD3<Float>, Double) {
        let pa = local(a), pb = local(b)
        let mid = (pa + pb) * 0.5
        if let x = q.regularisedMinimum(near: mid) { return (SIMD3<Float>(x + centre), q.evaluate(x)) }
        let ca = q.evaluate(pa), cb = q.evaluate(pb), cm = q.evaluate(mid)
        if cm <= ca && cm <= cb { return (SIMD3<Float>(mid + centre), cm) }
        return ca <= cb ? (pos[Int(a)], ca) : (pos[Int(b)], cb)
    }

    /// Places the interior candidates at `cand[pending[0..<count]]` with the vector kernel (the
    /// scalar ``interiorPlacement(_:_:_:)`` for any it cannot place, from the lower end, its
    /// `keep`, as gathering ranks an interior edge) and counts their keys into `h`.
    func placePending(_ pending: UnsafeMutablePointer<UInt32>, _ count: Int,
                      in cand: UnsafeMutablePointer<Candidate>, histogram h: UnsafeMutablePointer<UInt32>) {
        let quadWords = UnsafeRawPointer(quad).assumingMemoryBound(to: Double.self)
        let posWords = UnsafeRawPointer(pos).assumingMemoryBound(to: Float.self)
        let candWords = UnsafeMutableRawPointer(cand).assumingMemoryBound(to: Float.self)
        // SIMD3<Double> keeps x, y, z as its first three doubles.
        withUnsafeBytes(of: centre) { c in
            _ = facescan_place_collapses(quadWords, posWords, c.baseAddress!.assumingMemoryBound(to: Double.self),
                                         Tuning.exactDeterminant, Tuning.regularisation, pending, count, candWords)
        }
        for i in 0..<count {
            let slot = Int(pending[i])
            if cand[slot].cost.isNaN {
                let a = cand[slot].keep, b = cand[slot].drop
                let (target, cost) = interiorPlacement(sum(a, b), a, b)
                cand[slot].x = target.x
                cand[slot].y = target.y
                cand[slot].z = target.z
                cand[slot].cost = cost > 0 ? Float(cost) : 0
            }
            h[Int(Self.key(cand[slot].cost)) + 1] += 1
        }
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
                : s.sortChunks(mid, count, limitKey: limitKey, sides: sides, histogram: s.histogram + Self.histogramStride)
        }
        Self.moveDown(s.order, from: mid, to: first, count: second)
        if sides { Self.moveDown(s.side, from: mid, to: first, count: second) }
        return first + second
    }

    /// Sorts candidates `lo..<hi` (`lo` a multiple of the chunk size) chunk by chunk into
    /// `order[lo...]` (and, with `sides`, their sides into `side[lo...]`), using `h`
    /// (`limitKey + 3` entries) as scratch; returns how many.
    func sortChunks(_ lo: Int, _ hi: Int, limitKey: UInt32, sides: Bool, histogram h: UnsafeMutablePointer<UInt32>) -> Int {
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

    /// See ``QuadricSimplifier/relocate()``; needs a current adjacency.
    func relocate() {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: ShapeBatch.slots) { relocate(batchSlots: $0.baseAddress!) }
    }

    func relocate(batchSlots: UnsafeMutablePointer<UInt32>) {
        let s = self
        let tri = s.tri, adj = s.adj, off = s.adjOffsets
        for v in 0..<s.vertexCount {
            let lo = Int(off[v]), hi = Int(off[v + 1])
            if lo == hi || s.flags[v] & Flag.locked != 0 { continue }
            let q = s.quad[v]
            guard let x = q.regularisedMinimum(near: s.local(UInt32(v))) else { continue }
            let p = SIMD3<Float>(x + s.centre)
            let move = Move(s, UInt32(v), to: p, reference: s.refNormal[v])
            var ok = true
            var batch = ShapeBatch(batchSlots)
            for i in lo..<hi {
                let base = 3 * Int(adj[i])
                if !s.keepsShape(tri[base], tri[base + 1], tri[base + 2], move, &batch) {
                    ok = false
                    break
                }
            }
            if ok && s.flushShapes(&batch, move) { s.pos[v] = p }
        }
    }

    /// Collapses the sorted candidates in order, each vertex at most once per pass, at most
    /// `budget` of them. Returns the number of collapses (= vertices removed).
    /// With `endpointFallback`, a candidate refused at its placement is tried at the kept
    /// vertex's position (a half-edge collapse).
    func collapsePass(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, endpointFallback: Bool = false) -> Int {
        resetMarksIfNeeded(count, stamp: &stamp)
        return collapseRange(count, budget: budget, pass: pass, stamp: &stamp, only: Self.anyRegion, endpointFallback: endpointFallback)
    }

    /// ``collapsePass(_:budget:pass:stamp:)`` on two threads: each half of the mesh collapses its
    /// own edges (both ends, and every triangle around them, inside the half: see ``tagSeam(_:)``)
    /// in cost order with half the budget, touching memory the other half never reads; then the
    /// edges along the seam go, on one thread, with what is left of the budget (and, when a half
    /// ran out of its share, every remaining edge in cost order). Each half's
    /// result depends only on its own data, so the outcome is the same bytes on one or two threads.
    /// Needs `order` sorted with `sides` (``sortCandidates(_:limitKey:sides:)``) after
    /// ``tagSeam(_:)`` for the current triangles.
    func collapsePassSplit(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32) -> Int {
        resetMarksIfNeeded(count, stamp: &stamp)
        let s = self
        // Each side stamps at most 2 marks per candidate: disjoint stamp ranges.
        let base = stamp
        let span = UInt32(2 * count + 2)
        let half = budget / 2
        let (d0, d1) = s.bothCounts { k in
            var local = base &+ UInt32(k) &* span
            return s.collapseRange(count, budget: k == 0 ? half : budget - half, pass: pass, stamp: &local, only: UInt8(k))
        }
        stamp = base &+ 2 &* span
        var done = d0 + d1
        done += collapseRange(count, budget: budget - done, pass: pass, stamp: &stamp, only: Self.seam)
        if (d0 == half || d1 == budget - half) && done < budget {
            // One half ran out of its share while budget is left: go on in plain cost order.
            done += collapseRange(count, budget: budget - done, pass: pass, stamp: &stamp, only: Self.anyRegion)
        }
        return done
    }

    /// `tag` value of a vertex with a triangle reaching into the other half.
    static let seam: UInt8 = 2
    /// `only` value of ``collapseRange(_:budget:pass:stamp:only:)`` that takes every candidate.
    static let anyRegion: UInt8 = 3

    /// Restarts the mark stamps before they could wrap around within the coming pass.
    func resetMarksIfNeeded(_ count: Int, stamp: inout UInt32) {
        if UInt64(stamp) + 4 * UInt64(count) + 8 >= UInt64(UInt32.max) {
            mark.update(repeating: 0, count: vertexCount)
            stamp = 0
        }
    }

    /// Collapses, in order, the sorted candidates that `only` selects: those whose `side` is
    /// `only` (0 or 1: both ends tagged with that half; `Self.seam`: at least one end on the
    /// seam), or all (`Self.anyRegion`); each vertex at most once per pass, at most `budget`
    /// collapses.
    func collapseRange(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, only: UInt8,
                       endpointFallback: Bool = false) -> Int {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * ShapeBatch.slots) { batches in
            collapseRange(count, budget: budget, pass: pass, stamp: &stamp, only: only, endpointFallback: endpointFallback,
                          batches: batches.baseAddress!)
        }
    }

    /// `batches`: room for the two ``ShapeBatch``es of ``canCollapse(drop:keep:to:stamp:batches:)``.
    func collapseRange(_ count: Int, budget: Int, pass: UInt32, stamp: inout UInt32, only: UInt8,
                       endpointFallback: Bool, batches: UnsafeMutablePointer<UInt32>) -> Int {
        let s = self
        let cand = s.cand, order = s.order, touched = s.touched, side = s.side
        var done = 0
        var i = 0
        while i < count && done < budget {
            if only != Self.anyRegion && side[i] != only {
                i += 1
                continue
            }
            let r = order[i]
            i += 1
            let u = r.drop, v = r.keep
            if touched[Int(u)] == pass || touched[Int(v)] == pass { continue }
            var p = cand[Int(r.candidate)].position
            if !s.canCollapse(drop: u, keep: v, to: p, stamp: &stamp, batches: batches) {
                guard endpointFallback, p != s.pos[Int(v)] else { continue }
                p = s.pos[Int(v)]
                guard s.canCollapse(drop: u, keep: v, to: p, stamp: &stamp, batches: batches) else { continue }
            }
            s.collapse(drop: u, keep: v, to: p)
            touched[Int(u)] = pass
            touched[Int(v)] = pass
            done += 1
        }
        return done
    }

    /// Splits the vertices into two halves at the median (a 4 096-bin histogram) of the
    /// input's bounding box's longest axis (called before any collapse moves a vertex).
    func assignRegions() {
        let n = vertexCount
        guard n > 0 else { return }
        let (lo, hi) = bounds
        let extent = hi - lo
        let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2)
        let origin = lo[axis], width = extent[axis]
        guard width > 0 else { return }
        let bins = 4096
        let scale = Float(bins) / width
        // Coordinate `axis` of vertex v (SIMD3<Float> has the stride of four Floats).
        let coordinate = UnsafeRawPointer(pos).assumingMemoryBound(to: Float.self) + axis
        assert(MemoryLayout<SIMD3<Float>>.stride == 4 * MemoryLayout<Float>.stride)
        var counts = [Int](repeating: 0, count: bins)
        for v in 0..<n { counts[min(bins - 1, max(0, Int((coordinate[4 * v] - origin) * scale)))] += 1 }
        var seen = 0, split = bins
        for b in 0..<bins {
            seen += counts[b]
            if 2 * seen >= n {
                split = b + 1
                break
            }
        }
        for v in 0..<n { region[v] = Int((coordinate[4 * v] - origin) * scale) < split ? 0 : 1 }
    }

    /// Tags every vertex with its region, or `Self.seam` when a live triangle around it has a
    /// vertex of the other region.
    func tagSeam(_ triangleSlots: Int) {
        let tri = self.tri, region = self.region, tag = self.tag
        tag.update(from: region, count: vertexCount)
        var i = 0
        let corners = 3 * triangleSlots
        while i < corners {
            let a = Int(tri[i])
            if a != Int(Self.deadTriangle) {
                let b = Int(tri[i + 1]), c = Int(tri[i + 2])
                let r = region[a]
                if region[b] != r || region[c] != r {
                    tag[a] = Self.seam
                    tag[b] = Self.seam
                    tag[c] = Self.seam
                }
            }
            i += 3
        }
    }

    /// Link condition, pinch, duplicate, flip and sliver checks of collapsing `u` into `v` at `p`,
    /// against the live mesh. Two walks, one per fan: each checks the shape of the triangles that
    /// survive around its vertex while it gathers (u) or tests (v) the neighbours.
    @inline(__always)
    func canCollapse(drop u: UInt32, keep v: UInt32, to p: SIMD3<Float>, stamp: inout UInt32,
                     batches: UnsafeMutablePointer<UInt32>) -> Bool {
        let tri = self.tri, adj = self.adj, mark = self.mark
        stamp &+= 2
        let s1 = stamp, s2 = stamp &+ 1
        let uLo = Int(adjOffsets[Int(u)]), uHi = Int(adjOffsets[Int(u) + 1])
        let vLo = Int(adjOffsets[Int(v)]), vHi = Int(adjOffsets[Int(v) + 1])
        let ref = refNormal[Int(u)] + refNormal[Int(v)]
        let moveU = Move(self, u, to: p, reference: ref), moveV = Move(self, v, to: p, reference: ref)
        // 1. Neighbours of u; the triangles on the edge and their opposite vertices; every other
        //    triangle of u must keep its shape with u at p.
        var shared = 0
        var o0 = UInt32.max, o1 = UInt32.max
        var uBatch = ShapeBatch(batches)
        for i in uLo..<uHi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == v || y == v || z == v {
                shared += 1
                let o = x ^ y ^ z ^ u ^ v
                if shared == 1 { o0 = o } else { o1 = o }
            } else if !keepsShape(x, y, z, moveU, &uBatch) {
                return false
            }
            mark[Int(x)] = s1
            mark[Int(y)] = s1
            mark[Int(z)] = s1
        }
        guard flushShapes(&uBatch, moveU) else { return false }
        let bothBoundary = flags[Int(u)] & flags[Int(v)] & Flag.boundary != 0
        if shared == 2 {
            if bothBoundary { return false }  // would pinch the surface at an interior edge
        } else if shared != 1 || !bothBoundary {
            return false
        }
        // 2. Link condition: the common neighbours are exactly the opposite vertices. Every other
        //    triangle of v must keep its shape with v at p, and not be (o0, o1, v) while u has
        //    (o0, o1, u): the two would become copies of one triangle.
        // A neighbour counts once: marked `s2` once seen (u and v beforehand, as they never count).
        mark[Int(u)] = s2
        mark[Int(v)] = s2
        var common = 0
        var vHasOpposites = false
        var vBatch = ShapeBatch(batches + ShapeBatch.slots)
        for i in vLo..<vHi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            common &+= mark[Int(x)] == s1 ? 1 : 0
            mark[Int(x)] = s2
            common &+= mark[Int(y)] == s1 ? 1 : 0
            mark[Int(y)] = s2
            common &+= mark[Int(z)] == s1 ? 1 : 0
            mark[Int(z)] = s2
            if x == u || y == u || z == u { continue }
            if shared == 2 && Self.holdsBoth(x, y, z, o0, o1) { vHasOpposites = true }
            if !keepsShape(x, y, z, moveV, &vBatch) { return false }
        }
        if common != shared || !flushShapes(&vBatch, moveV) { return false }
        if vHasOpposites && hasTriangleWithBoth(uLo, uHi, o0, o1, besides: v) { return false }
        // A boundary edge's one triangle dies: its corners must keep a triangle each (a lone
        // triangle, or a fan of one, would leave a vertex behind unreferenced).
        if shared == 1 {
            let oLo = Int(adjOffsets[Int(o0)]), oHi = Int(adjOffsets[Int(o0) + 1])
            guard hasTriangleSurviving(oLo, oHi, u, v),
                  hasTriangleSurviving(uLo, uHi, u, v) || hasTriangleSurviving(vLo, vHi, u, v) else { return false }
        }
        return true
    }

    /// Whether adjacency slots `lo..<hi` hold a live triangle that does not have both `a` and `b`.
    @inline(__always)
    func hasTriangleSurviving(_ lo: Int, _ hi: Int, _ a: UInt32, _ b: UInt32) -> Bool {
        for i in lo..<hi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if !Self.holdsBoth(x, y, z, a, b) { return true }
        }
        return false
    }

    /// Whether adjacency slots `lo..<hi` hold a live triangle with both `a` and `b` but not `c`.
    @inline(__always)
    func hasTriangleWithBoth(_ lo: Int, _ hi: Int, _ a: UInt32, _ b: UInt32, besides c: UInt32) -> Bool {
        for i in lo..<hi {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == c || y == c || z == c { continue }
            if Self.holdsBoth(x, y, z, a, b) { return true }
        }
        return false
    }

    /// Whether triangle `(x, y, z)` has both `a` and `b` as corners.
    @inline(__always)
    static func holdsBoth(_ x: UInt32, _ y: UInt32, _ z: UInt32, _ a: UInt32, _ b: UInt32) -> Bool {
        (x == a || y == a || z == a) && (x == b || y == b || z == b)
    }

    /// One vertex moving (to the placement of a collapse, or to its quadric's minimum), as
    /// ``keepsShape(_:_:_:_:_:)`` checks it against each triangle around it: read once per fan.
    struct Move {
        let vertex: UInt32
        let from: SIMD3<Float>
        let to: SIMD3<Float>
        /// The input's normal around the vertex (after a collapse, around both merged ones),
        /// scaled by `shapeScale²`.
        let reference: SIMD3<Float>
        let referenceLength2: Float

        @inline(__always)
        init(_ core: DecimationCore, _ vertex: UInt32, to p: SIMD3<Float>, reference: SIMD3<Float>) {
            self.vertex = vertex
            from = core.pos[Int(vertex)]
            to = p
            self.reference = reference * (core.shapeScale * core.shapeScale)
            referenceLength2 = (self.reference * self.reference).sum()
        }
    }

    /// The triangles around one moving vertex waiting for ``fourKeepShape(_:_:)``: the other two
    /// corners of each, in winding order (`corners[i]`, `corners[4 + i]`), in memory the caller
    /// provides (``slots`` entries; scalar stores, which later scalar loads read back directly).
    struct ShapeBatch {
        static let slots = 8
        let corners: UnsafeMutablePointer<UInt32>
        var count = 0

        @inline(__always)
        init(_ corners: UnsafeMutablePointer<UInt32>) { self.corners = corners }
    }

    /// Adds triangle `(x, y, z)` around `move.vertex` to `batch`; checks the batch once it holds
    /// four. False when a checked triangle would not keep its shape (see ``fourKeepShape(_:_:)``).
    @inline(__always)
    func keepsShape(_ x: UInt32, _ y: UInt32, _ z: UInt32, _ move: Move, _ batch: inout ShapeBatch) -> Bool {
        // Selects, not branches: where the vertex sits in the triangle is random.
        let c = move.vertex
        let atX = x == c, atY = y == c
        batch.corners[batch.count] = atX ? y : (atY ? z : x)
        batch.corners[4 + batch.count] = atX ? z : (atY ? x : y)
        batch.count += 1
        guard batch.count == 4 else { return true }
        batch.count = 0
        return fourKeepShape(batch, move)
    }

    /// Checks the triangles left in `batch` (``keepsShape(_:_:_:_:_:)``), and empties it.
    @inline(__always)
    func flushShapes(_ batch: inout ShapeBatch, _ move: Move) -> Bool {
        guard batch.count > 0 else { return true }
        // Slots past the last triangle repeat the first.
        for i in batch.count..<4 {
            batch.corners[i] = batch.corners[0]
            batch.corners[4 + i] = batch.corners[4]
        }
        batch.count = 0
        return fourKeepShape(batch, move)
    }

    /// Whether the four triangles `(move.vertex, corners[i], corners[4 + i])` of `batch` keep their orientation
    /// when `move.vertex` moves to `move.to`: each normal turns by less than
    /// acos(minNormalCosine), still faces the side `move.reference` points to, and the triangle
    /// stays well away from degenerate. One triangle per lane, in Float: the edge vectors are
    /// differences of Float positions (nearly exact), scaled by a power of two (``shapeScale``,
    /// exact) so that products of four stay far from Float's underflow and overflow whatever the
    /// mesh's units.
    @inline(__always)
    func fourKeepShape(_ batch: ShapeBatch, _ move: Move) -> Bool {
        typealias V = SIMD4<Float>
        let c = batch.corners
        let pb0 = pos[Int(c[0])], pb1 = pos[Int(c[1])], pb2 = pos[Int(c[2])], pb3 = pos[Int(c[3])]
        let pd0 = pos[Int(c[4])], pd1 = pos[Int(c[5])], pd2 = pos[Int(c[6])], pd3 = pos[Int(c[7])]
        let bx = V(pb0.x, pb1.x, pb2.x, pb3.x), by = V(pb0.y, pb1.y, pb2.y, pb3.y), bz = V(pb0.z, pb1.z, pb2.z, pb3.z)
        let dx = V(pd0.x, pd1.x, pd2.x, pd3.x), dy = V(pd0.y, pd1.y, pd2.y, pd3.y), dz = V(pd0.z, pd1.z, pd2.z, pd3.z)
        let k = V(repeating: shapeScale)
        let from = move.from, to = move.to, ref = move.reference
        // Before the move: n0 = (b − c) × (d − c); after: n1 = f1 × f2, f1 = b − p, f2 = d − p.
        let e1x = (bx - V(repeating: from.x)) * k, e1y = (by - V(repeating: from.y)) * k, e1z = (bz - V(repeating: from.z)) * k
        let e2x = (dx - V(repeating: from.x)) * k, e2y = (dy - V(repeating: from.y)) * k, e2z = (dz - V(repeating: from.z)) * k
        let n0x = e1y * e2z - e1z * e2y, n0y = e1z * e2x - e1x * e2z, n0z = e1x * e2y - e1y * e2x
        let f1x = (bx - V(repeating: to.x)) * k, f1y = (by - V(repeating: to.y)) * k, f1z = (bz - V(repeating: to.z)) * k
        let f2x = (dx - V(repeating: to.x)) * k, f2y = (dy - V(repeating: to.y)) * k, f2z = (dz - V(repeating: to.z)) * k
        let n1x = f1y * f2z - f1z * f2y, n1y = f1z * f2x - f1x * f2z, n1z = f1x * f2y - f1y * f2x
        let dp = n0x * n1x + n0y * n1y + n0z * n1z
        let l1 = n1x * n1x + n1y * n1y + n1z * n1z
        let dr = n1x * V(repeating: ref.x) + n1y * V(repeating: ref.y) + n1z * V(repeating: ref.z)
        let l0 = n0x * n0x + n0y * n0y + n0z * n0z
        let g1 = f1x * f1x + f1y * f1y + f1z * f1z, g2 = f2x * f2x + f2y * f2y + f2z * f2z
        let minRef = V(repeating: Float(Tuning.minReferenceCosine * Tuning.minReferenceCosine))
        let minNormal = V(repeating: Float(Tuning.minNormalCosine * Tuning.minNormalCosine))
        let minSine = V(repeating: Float(Tuning.minSineSquared))
        let zero = V()
        // Written as the negations of the rejections, so that a NaN anywhere rejects.
        let facesOn = .!(dp .<= zero)
        let facesOut = .!(dr .<= zero) .& .!(dr * dr .<= minRef * l1 * V(repeating: move.referenceLength2))
        let turnsLittle = .!(dp * dp .< minNormal * l0 * l1)
        let notSliver = l1 .> minSine * g1 * g2
        // Shape: the smallest corner's sin² is |n|² over the largest product of two edges' squares.
        let e3x = (bx - dx) * k, e3y = (by - dy) * k, e3z = (bz - dz) * k
        let g3 = e3x * e3x + e3y * e3y + e3z * e3z
        let h1 = e1x * e1x + e1y * e1y + e1z * e1z, h2 = e2x * e2x + e2y * e2y + e2z * e2z
        let after = pointwiseMax(g1 * g2, pointwiseMax(g1 * g3, g2 * g3))
        let before = pointwiseMax(h1 * h2, pointwiseMax(h1 * g3, h2 * g3))
        let wellShaped = l1 .>= V(repeating: qualitySineSquared) * after
        let notWorse = l1 * before .>= l0 * after
        return all(facesOn .& facesOut .& turnsLittle .& notSliver .& (wellShaped .| notWorse))
    }

    /// Collapses `u` into `v`, which moves to `p`: quadrics add, the UV follows, u's triangles on
    /// the edge die and the others take `v`.
    @inline(__always)
    func collapse(drop u: UInt32, keep v: UInt32, to p: SIMD3<Float>) {
        let tri = self.tri, adj = self.adj
        let iu = Int(u), iv = Int(v)
        quad[iv].add(quad[iu])
        refNormal[iv] += refNormal[iu]
        if hasUVs {
            // The UV of the edge point nearest p.
            let pu = pos[iu], e = pos[iv] - pu
            let ee = (e * e).sum()
            var t: Float = 1
            if ee > 0 { t = min(max(((p - pu) * e).sum() / ee, 0), 1) }
            uv[iv] = uv[iu] + (uv[iv] - uv[iu]) * t
        }
        pos[iv] = p
        flags[iv] |= flags[iu] & Flag.boundary
        for i in Int(adjOffsets[iu])..<Int(adjOffsets[iu + 1]) {
            let base = 3 * Int(adj[i])
            let x = tri[base]
            if x == Self.deadTriangle { continue }
            let y = tri[base + 1], z = tri[base + 2]
            if x == v || y == v || z == v {
                tri[base] = Self.deadTriangle
            } else if x == u {
                tri[base] = v
            } else if y == u {
                tri[base + 1] = v
            } else {
                tri[base + 2] = v
            }
        }
    }
}

