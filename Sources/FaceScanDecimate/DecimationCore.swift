import CSIMD
import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The simplifier's scratch memory (one allocation, ``ScratchLayout``) as typed runs
/// (``ScratchRun``), and the hot loops over them. A trivially copyable view: each hot function
/// copies it into a local first, so that the compiler keeps the runs' addresses in registers
/// while it stores through them. `@unchecked Sendable`: every step that runs on two threads
/// (classification, ranking, sorting, the two halves of a collapse pass) reads shared state and
/// writes disjoint slots.
///
/// The decimation's unsafe pointer code is in this file only (CONTRIBUTING.md, "Unsafe code"):
/// the allocation and its carving, ``ScratchRun``, the classification scratch carved from the
/// candidates' memory and the vector placement kernel's call; the step files
/// (QuadricSimplifier+*.swift) index runs.
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
    let pos: ScratchRun<SIMD3<Float>>
    let uv: ScratchRun<SIMD2<Float>>
    let quad: ScratchRun<Quadric>
    /// Sum of the input's (area-weighted) face normals around every vertex merged into this one:
    /// which side of the input surface is out, near the vertex.
    let refNormal: ScratchRun<SIMD3<Float>>
    let flags: ScratchRun<UInt8>
    let touched: ScratchRun<UInt32>
    let mark: ScratchRun<UInt32>
    /// Which half of the mesh (split at the median along the longest axis) a vertex belongs to,
    /// fixed for the whole run; and per pass, that half or `Self.seam` when some triangle around
    /// the vertex reaches into the other half.
    let region: ScratchRun<UInt8>
    let tag: ScratchRun<UInt8>
    let adjOffsets: ScratchRun<UInt32>
    // Per triangle corner.
    let tri: ScratchRun<UInt32>
    let adj: ScratchRun<UInt32>
    // Candidate edges (at most one per half-edge) in gathering order, and the indices of those a
    // pass takes, sorted by cost.
    let cand: ScratchRun<Candidate>
    /// `cand`'s memory (``candidateBytes(triangles:)``), which classification uses first for its
    /// scratch (see ``classifyAndAccumulate(_:)``): fewer fresh pages.
    let candBytes: UnsafeMutableRawPointer
    let order: ScratchRun<Ranked>
    /// Per entry of `order` in a pass split in halves: which step collapses it (half 0 or 1, or
    /// `Self.seam`; see ``collapsePassSplit(_:budget:pass:stamp:)``).
    let side: ScratchRun<UInt8>
    let histogram: ScratchRun<UInt32>
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
        candBytes = UnsafeMutableRawPointer(take.take(UInt8.self, candidateBytes).base)
        cand = ScratchRun(candBytes.bindMemory(to: Candidate.self, capacity: max(corners, 1)))
        histogram = take.take(UInt32.self, 2 * Self.histogramStride)
        take.finish()
        if n > 0 { mesh.positions.withUnsafeBufferPointer { pos.base.initialize(from: $0.baseAddress!, count: n) } }
        if let uvs = mesh.uvs, n > 0 {
            uvs.withUnsafeBufferPointer { uv.base.initialize(from: $0.baseAddress!, count: n) }
        }
        if corners > 0 {
            mesh.triangles.withUnsafeBufferPointer { tri.base.initialize(from: $0.baseAddress!, count: corners) }
        }
        // quad, refNormal and flags (trivial types) are written for every vertex by
        // `classifyAndAccumulate` before anything reads them.
        touched.update(repeating: 0, count: n)
        adjOffsets.update(repeating: 0, count: n + 1)
        mark.update(repeating: 0, count: n)
        region.update(repeating: 0, count: n)
        tag.update(repeating: 0, count: n)
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

/// A run of `Element`s in the simplifier's scratch memory (carved by ``ScratchLayout/Cursor``,
/// owned and freed by the ``QuadricSimplifier`` whose ``DecimationCore`` holds it): indexed like
/// an array, offset like a slice (`run + k` starts at element k), filled in bulk. Trivially
/// copyable, a machine word: the hot loops keep it in a register. Like the pointer it wraps, it
/// does not check bounds: the core sizes every run from the mesh (vertices, corners, the
/// histograms) and indexes it with vertex, corner and slot numbers below those sizes.
struct ScratchRun<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>

    init(_ base: UnsafeMutablePointer<Element>) { self.base = base }

    subscript(i: Int) -> Element {
        @inline(__always) unsafeAddress { UnsafePointer(base + i) }
        @inline(__always) nonmutating unsafeMutableAddress { base + i }
    }

    /// The run from element `k` on.
    @inline(__always)
    static func + (run: ScratchRun, k: Int) -> ScratchRun { ScratchRun(run.base + k) }

    /// Sets the first `count` elements to `value`.
    @inline(__always)
    func update(repeating value: Element, count: Int) { base.update(repeating: value, count: count) }

    /// Copies the first `count` elements of `source` over the first `count` of this run.
    @inline(__always)
    func update(from source: ScratchRun, count: Int) { base.update(from: source.base, count: count) }

    /// `body` with a run of `count` elements of the stack (or heap), valid during the call only.
    @inline(__always)
    static func withTemporary<R>(count: Int, _ body: (ScratchRun) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Element.self, capacity: count) { body(ScratchRun($0.baseAddress!)) }
    }
}

/// Per-triangle planes and per-corner neighbours for ``DecimationCore/classifyAndAccumulate(_:)``:
/// each thread writes its own range of slots.
struct ClassifyScratch: Sendable {
    let planes: ScratchRun<SIMD4<Double>>
    let normals: ScratchRun<SIMD3<Float>>
    let nextOf: ScratchRun<UInt32>
    let prevOf: ScratchRun<UInt32>
}

extension DecimationCore {
    /// The classification scratch for `triangleSlots` triangles, carved from `cand`'s memory
    /// (candidates come later: ``endClassifyScratch(_:)`` gives the memory back to them).
    func classifyScratch(_ triangleSlots: Int) -> ClassifyScratch {
        var take = ScratchLayout.Cursor(base: candBytes, byteCount: Self.classifyScratchBytes(triangles: triangleSlots))
        let scratch = ClassifyScratch(
            planes: take.take(SIMD4<Double>.self, triangleSlots), normals: take.take(SIMD3<Float>.self, triangleSlots),
            nextOf: take.take(UInt32.self, 3 * triangleSlots), prevOf: take.take(UInt32.self, 3 * triangleSlots))
        take.finish()
        return scratch
    }

    /// `cand`'s memory typed as candidates again after the classification scratch.
    func endClassifyScratch(_ triangleSlots: Int) {
        _ = candBytes.bindMemory(to: Candidate.self, capacity: max(3 * triangleSlots, 1))
    }

    /// The vector kernel's placement of the interior candidates `cand[pending[0..<count]]`
    /// (`facescan_place_collapses`: NaN cost for any it cannot place).
    func placeWithKernel(_ pending: ScratchRun<UInt32>, _ count: Int, in cand: ScratchRun<Candidate>) {
        let quadWords = UnsafeRawPointer(quad.base).assumingMemoryBound(to: Double.self)
        let posWords = UnsafeRawPointer(pos.base).assumingMemoryBound(to: Float.self)
        let candWords = UnsafeMutableRawPointer(cand.base).assumingMemoryBound(to: Float.self)
        // SIMD3<Double> keeps x, y, z as its first three doubles.
        withUnsafeBytes(of: centre) { c in
            _ = facescan_place_collapses(
                quadWords, posWords, c.baseAddress!.assumingMemoryBound(to: Double.self),
                Tuning.exactDeterminant, Tuning.regularisation, pending.base, count, candWords)
        }
    }
}

/// The simplifier's scratch arrays carved from one allocation, which its owner frees in one call
/// (``QuadricSimplifier``'s `deinit`): nothing is kept for later. Every array starts on a 64-byte
/// boundary. Not zero-filled: the owner writes every element before it reads it.
///
/// On Linux a region of 2 MiB or more is its own mapping, 2 MiB-aligned, that asks for
/// transparent huge pages (`MADV_HUGEPAGE`; unmapped by ``Region/free()``): its first touch costs
/// one page fault per 2 MiB instead of one per 4 KiB (a decimation in a fresh process touches
/// all of its scratch; the time saved: CHANGELOG.md, issue 36's decimation round). Where huge pages are off it costs
/// what `malloc` would.
enum ScratchLayout {
    static let alignment = 64
    static let hugePage = 2 << 20

    /// One region: `base` for `byteCount` bytes; `mapping`/`mappingBytes` when it is a mapping of
    /// its own (else nil: from `allocate`).
    struct Region {
        let base: UnsafeMutableRawPointer
        let mapping: UnsafeMutableRawPointer?
        let mappingBytes: Int

        /// Gives the memory back to the system (or to `malloc`).
        func free() {
            #if os(Linux)
            if let mapping {
                munmap(mapping, mappingBytes)
                return
            }
            #endif
            base.deallocate()
        }
    }

    /// Bytes an array of `count` (at least one) `T` takes, padding included.
    static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (max(count, 1) * MemoryLayout<T>.stride + alignment - 1) & ~(alignment - 1)
    }

    /// `byteCount` bytes, 64-byte aligned (2 MiB-aligned huge pages for 2 MiB or more on Linux);
    /// the caller frees them with ``Region/free()``.
    static func allocate(byteCount: Int) -> Region {
        #if os(Linux)
        if byteCount >= hugePage {
            // Whole huge pages, and one more of slack to align the start.
            let hugeBytes = (byteCount + hugePage - 1) & ~(hugePage - 1)
            let length = hugeBytes + hugePage
            if let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                m != MAP_FAILED
            {
                let address = (Int(bitPattern: m) + hugePage - 1) & ~(hugePage - 1)
                let base = UnsafeMutableRawPointer(bitPattern: address)!
                _ = madvise(base, hugeBytes, MADV_HUGEPAGE)
                return Region(base: base, mapping: m, mappingBytes: length)
            }
        }
        #endif
        return Region(
            base: UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: alignment),
            mapping: nil, mappingBytes: 0)
    }

    /// Hands out consecutive arrays of a region, in the order the owner sized them with
    /// ``ScratchLayout/bytes(_:_:)``.
    struct Cursor {
        private var offset = 0
        let base: UnsafeMutableRawPointer
        let byteCount: Int

        init(base: UnsafeMutableRawPointer, byteCount: Int) {
            self.base = base
            self.byteCount = byteCount
        }

        /// The next array of `count` (at least one) `T`.
        mutating func take<T>(_ type: T.Type, _ count: Int) -> ScratchRun<T> {
            let size = ScratchLayout.bytes(type, count)
            precondition(offset + size <= byteCount, "scratch region sized too small")
            defer { offset += size }
            return ScratchRun((base + offset).bindMemory(to: type, capacity: max(count, 1)))
        }

        /// Checks that the arrays taken fill the region exactly (its size was summed from the same
        /// list).
        func finish() {
            precondition(offset == byteCount, "scratch region sized \(byteCount) bytes, used \(offset)")
        }
    }
}
