import CSIMD
import FaceScanCore

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
    /// The second thread of the two-sided steps (nil: one thread), owned by the
    /// ``QuadricSimplifier`` that owns this core.
    unowned(unsafe) let sides: Parallel.Pair?
    /// Whether interior edges are placed four at a time (``placePending(_:_:in:histogram:)``).
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
    /// scratch (see ``classifyAndAccumulate(_:)``): fewer fresh pages.
    let candBytes: UnsafeMutableRawPointer
    let order: UnsafeMutablePointer<Ranked>
    /// Per entry of `order` in a pass split in halves: which step collapses it (half 0 or 1, or
    /// `Self.seam`; see ``collapsePassSplit(_:budget:pass:stamp:)``).
    let side: UnsafeMutablePointer<UInt8>
    let histogram: UnsafeMutablePointer<UInt32>
    /// The memory of every array above (``ScratchLayout``), freed by ``deallocate()``.
    let memory: ScratchLayout.Region

    /// `sides`: the second thread for two-sided steps, which the caller owns for as long as the
    /// core lives; nil runs both sides on the calling thread.
    init(_ mesh: Mesh, sides: Parallel.Pair?, vectorPlacement: Bool) {
        self.sides = sides
        threads = sides == nil ? 1 : 2
        assert(
            MemoryLayout<Quadric>.stride == 80 && MemoryLayout<Candidate>.stride == 24
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
        shapeScale = Self.shapeScale(diagonal: dot3(extent, extent).squareRoot(), vertices: n)
        typealias A = ScratchLayout
        let candidateBytes = Self.candidateBytes(triangles: mesh.triangleCount)
        let perVertex =
            2 * A.bytes(SIMD3<Float>.self, n) + A.bytes(SIMD2<Float>.self, hasUVs ? n : 1)
            + A.bytes(Quadric.self, n) + 3 * A.bytes(UInt8.self, n) + 2 * A.bytes(UInt32.self, n)
            + A.bytes(UInt32.self, n + 1)
        let perCorner =
            2 * A.bytes(UInt32.self, corners) + A.bytes(Ranked.self, corners) + A.bytes(UInt8.self, corners)
            + A.bytes(UInt8.self, candidateBytes)
        let byteCount = perVertex + perCorner + A.bytes(UInt32.self, 2 * Self.histogramStride)
        memory = A.allocate(byteCount: byteCount)
        var take = A.Cursor(base: memory.base, byteCount: byteCount)
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
        if corners > 0 {
            mesh.triangles.withUnsafeBufferPointer { tri.initialize(from: $0.baseAddress!, count: corners) }
        }
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
        max(ScratchLayout.bytes(Candidate.self, 3 * triangles), classifyScratchBytes(triangles: triangles))
    }

    /// Bytes of the classification scratch, in the order ``classifyAndAccumulate(_:)``
    /// takes it: per triangle a plane and a normal, per corner its next and previous corner.
    static func classifyScratchBytes(triangles: Int) -> Int {
        ScratchLayout.bytes(SIMD4<Double>.self, triangles) + ScratchLayout.bytes(SIMD3<Float>.self, triangles)
            + 2 * ScratchLayout.bytes(UInt32.self, 3 * triangles)
    }

    /// Frees the scratch memory.
    func deallocate() {
        memory.free()
    }

    @inline(__always)
    func local(_ v: UInt32) -> SIMD3<Double> { SIMD3<Double>(pos[Int(v)]) - centre }

    /// The corners following and preceding `a` in triangle `t` (winding order).
    @inline(__always)
    func around(_ a: UInt32, in t: Int) -> (next: UInt32, prev: UInt32) {
        let base = 3 * t
        let x = tri[base], y = tri[base + 1], z = tri[base + 2]
        if x == a { return (y, z) }
        if y == a { return (z, x) }
        return (x, y)
    }
}
