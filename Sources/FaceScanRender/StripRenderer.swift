import CSIMD
import FaceScanCore

/// The hot core of ``Rasterizer``: binning, rasterisation into a strip-sized visibility buffer,
/// and colour interpolation/resolve. Unsafe buffer access stays in this file; every buffer pointer is taken
/// once per render, outside the loops.
enum StripRenderer {
    /// Output rows per strip: 16 rows at 2×2 supersampling of a 512² image is a 1024 × 32 sample
    /// strip, 256 KiB of visibility buffer.
    static let outputRowsPerStrip = 16
    /// Fractional bits of the fixed-point sample coordinates coverage is decided on.
    static let subpixelBits = 8
    /// One sample in fixed point.
    static let one = 1 << subpixelBits
    /// Screen coordinates are clamped to ±2²¹ samples before snapping (far outside the largest
    /// raster, 2¹⁷ samples), so a snapped coordinate fits 30 bits and an edge function 62.
    static let clampSamples: Float = 2_097_152
    /// Largest bounding-box side, in fixed point, of a triangle whose edge functions are stepped
    /// in 32 bits: an edge function inside the box is at most 2·side² < 2³¹ in magnitude.
    static let narrowSide: Int64 = 32_000

    /// Everything the loops read, as raw buffers valid during one `draw`.
    struct Inputs {
        let tris: UnsafeBufferPointer<UInt32>
        let screen: UnsafeBufferPointer<SIMD2<Float>>
        /// `screen` snapped to ``subpixelBits`` fractional bits (clamped far outside any raster):
        /// coverage is decided on these, exactly.
        let fixed: UnsafeBufferPointer<SIMD2<Int32>>
        let invDepth: UnsafeBufferPointer<Float>
        /// Per-vertex linear RGB of the outside (front) and inside (back) of the surface.
        let front: UnsafeBufferPointer<SIMD4<Float>>
        let back: UnsafeBufferPointer<SIMD4<Float>>
        let lut: UnsafeBufferPointer<UInt8>
    }

    /// Strip-local visibility buffer: per sample 1/depth (0 = empty) and
    /// `2 · triangle + (back face ? 1 : 0)` (−1 = empty).
    struct Strip {
        let z: UnsafeMutableBufferPointer<Float>
        let id: UnsafeMutableBufferPointer<Int32>
        let width: Int
        /// First sample row of the strip and its row count.
        var top = 0
        var rows = 0
    }

    /// Renders `positions`/`triangles` into `pixels` (RGBA8, `size²`) and `depth`: every vertex
    /// projected and lit (``Vertices``), every triangle binned by the strips it touches with its
    /// colour planes (``Triangles``), then every strip rasterised and resolved (``Run``). With
    /// `threads > 1` each step splits its work in two (vertices, triangles, strips) and runs the
    /// halves on the calling thread and one more (``Parallel/Pair``, joined before returning); each
    /// half writes only its own slots and the bins keep triangle order, so the bytes are identical
    /// for any thread count.
    static func draw<S: VertexShader>(
        positions: [SIMD3<Float>], triangles: [UInt32], normals: [SIMD3<Float>], camera: Camera, shader: S,
        size: Int, supersample ss: Int, threads: Int, pixels: inout [UInt8], depth: inout [Float]
    ) {
        let sides = threads > 1 ? Parallel.Pair() : nil
        let n = positions.count
        let screen = UnsafeMutableBufferPointer<SIMD2<Float>>.allocate(capacity: n)
        let fixed = UnsafeMutableBufferPointer<SIMD2<Int32>>.allocate(capacity: n)
        let invDepth = UnsafeMutableBufferPointer<Float>.allocate(capacity: n)
        let front = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: n)
        let back = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: n)
        defer {
            screen.deallocate()
            fixed.deallocate()
            invDepth.deallocate()
            front.deallocate()
            back.deallocate()
        }
        positions.withUnsafeBufferPointer { positions in
            normals.withUnsafeBufferPointer { normals in
                let vertices = Vertices(
                    positions: positions, normals: normals, camera: camera, shader: shader, screen: screen,
                    fixed: fixed, invDepth: invDepth, front: front, back: back)
                Parallel.both(on: sides) { k in vertices.run(k == 0 ? 0..<n / 2 : n / 2..<n) }
            }
        }
        triangles.withUnsafeBufferPointer { tris in
            SRGB.table.withUnsafeBufferPointer { lut in
                let input = Inputs(
                    tris: tris, screen: UnsafeBufferPointer(screen), fixed: UnsafeBufferPointer(fixed),
                    invDepth: UnsafeBufferPointer(invDepth), front: UnsafeBufferPointer(front),
                    back: UnsafeBufferPointer(back), lut: lut)
                pixels.withUnsafeMutableBufferPointer { out in
                    depth.withUnsafeMutableBufferPointer { dout in
                        binAndDraw(input, size: size, supersample: ss, sides: sides, out: out, depth: dout)
                    }
                }
            }
        }
    }

    /// Steps 2–3 of ``draw(positions:triangles:normals:camera:shader:size:supersample:threads:pixels:depth:)``
    /// (bins and colour planes) and the strips.
    static func binAndDraw(
        _ input: Inputs, size: Int, supersample ss: Int, sides: Parallel.Pair?, out: UnsafeMutableBufferPointer<UInt8>,
        depth dout: UnsafeMutableBufferPointer<Float>
    ) {
        let triangleCount = input.tris.count / 3, half = triangleCount / 2
        let stripCount = (size + outputRowsPerStrip - 1) / outputRowsPerStrip
        let planes = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: 3 * triangleCount)
        let rows = UnsafeMutableBufferPointer<SIMD4<Int32>>.allocate(capacity: triangleCount)
        // Per side and strip, the triangles it bins there, then the bin its next one goes to.
        let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 2 * stripCount)
        defer {
            planes.deallocate()
            rows.deallocate()
            counts.deallocate()
        }
        let binning = Triangles(
            input: input, width: size * ss, stripRows: outputRowsPerStrip * ss, stripCount: stripCount, rows: rows,
            planes: planes, counts: counts)
        Parallel.both(on: sides) { k in binning.setUp(k == 0 ? 0..<half : half..<triangleCount, side: k) }
        // Strip s's bins: side 0's triangles, then side 1's, each in triangle order.
        var offsets = [Int32](repeating: 0, count: stripCount + 1)
        for s in 0..<stripCount {
            let c0 = counts[s], c1 = counts[stripCount + s]
            counts[s] = offsets[s]
            counts[stripCount + s] = offsets[s] + c0
            offsets[s + 1] = offsets[s] + c0 + c1
        }
        let bins = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, Int(offsets[stripCount])))
        defer { bins.deallocate() }
        let slots = DisjointSlots(base: bins)
        Parallel.both(on: sides) { k in
            binning.fill(k == 0 ? 0..<half : half..<triangleCount, side: k, bins: slots.base)
        }
        let run = Run(
            input: input, bins: UnsafeBufferPointer(bins), offsets: offsets, boxes: UnsafeBufferPointer(rows),
            planes: UnsafeBufferPointer(planes), size: size, supersample: ss, out: out, depth: dout)
        // Strips alternate between the two sides: a face's triangles crowd some rows, and
        // alternate strips share that load evenly where two halves of the image would not.
        if let sides {
            sides.run { k in run.strips(stride(from: k, to: stripCount, by: 2)) }
        } else {
            run.strips(stride(from: 0, to: stripCount, by: 1))
        }
    }

    /// Step 1 of ``draw(positions:triangles:normals:camera:shader:size:supersample:threads:pixels:depth:)``:
    /// per vertex its screen position (and snapped), 1/depth, and its colour outside and inside.
    struct Vertices<S: VertexShader>: @unchecked Sendable {
        let positions: UnsafeBufferPointer<SIMD3<Float>>
        let normals: UnsafeBufferPointer<SIMD3<Float>>
        let camera: Camera
        let shader: S
        let screen: UnsafeMutableBufferPointer<SIMD2<Float>>
        let fixed: UnsafeMutableBufferPointer<SIMD2<Int32>>
        let invDepth: UnsafeMutableBufferPointer<Float>
        let front: UnsafeMutableBufferPointer<SIMD4<Float>>
        let back: UnsafeMutableBufferPointer<SIMD4<Float>>

        func run(_ range: Range<Int>) {
            for v in range {
                let (s, d) = camera.project(positions[v])
                screen[v] = s
                fixed[v] = SIMD2(snap(s.x), snap(s.y))
                invDepth[v] = d > 0 && d.isFinite ? 1 / d : 0
                // Lit outside and inside (the normal flipped towards the camera).
                var normal = camera.directionToCamera(normals[v])
                if normal == .zero { normal = SIMD3(0, 0, 1) }
                let f = shader.shade(vertex: v, normal: normal, frontFacing: true),
                    b = shader.shade(vertex: v, normal: -normal, frontFacing: false)
                front[v] = SIMD4(f, 0)
                back[v] = SIMD4(b, 0)
            }
        }
    }

    /// Steps 2 and 3 of ``draw(positions:triangles:normals:camera:shader:size:supersample:threads:pixels:depth:)``:
    /// per triangle its sample rows and colour planes, counted per strip (``setUp(_:side:)``),
    /// then listed in the bins of the strips it touches (``fill(_:side:bins:)``).
    struct Triangles: @unchecked Sendable {
        let input: Inputs
        let width: Int
        let stripRows: Int
        let stripCount: Int
        /// Per triangle its sample rows and columns, clipped to the raster: (y0, y1, x0, x1);
        /// y0 > y1 when it is not drawn.
        let rows: UnsafeMutableBufferPointer<SIMD4<Int32>>
        let planes: UnsafeMutableBufferPointer<SIMD4<Float>>
        /// `stripCount` slots per side: counts after ``setUp(_:side:)``, then the next free bin.
        let counts: UnsafeMutableBufferPointer<Int32>

        func setUp(_ range: Range<Int>, side: Int) {
            let count = counts.baseAddress! + side * stripCount
            count.update(repeating: 0, count: stripCount)
            for t in range {
                guard let (y0, y1, x0, x1) = rowRange(t, input, width: width, height: width) else {
                    rows[t] = SIMD4(1, 0, 0, 0)
                    continue
                }
                rows[t] = SIMD4(Int32(y0), Int32(y1), Int32(x0), Int32(x1))
                for s in (y0 / stripRows)...(y1 / stripRows) { count[s] += 1 }
                colorPlane(t, input, into: planes.baseAddress! + 3 * t)
            }
        }

        func fill(_ range: Range<Int>, side: Int, bins: UnsafeMutableBufferPointer<Int32>) {
            let next = counts.baseAddress! + side * stripCount
            for t in range where rows[t].x <= rows[t].y {
                for s in (Int(rows[t].x) / stripRows)...(Int(rows[t].y) / stripRows) {
                    bins[Int(next[s])] = Int32(t)
                    next[s] += 1
                }
            }
        }
    }

    /// One render's shared, read-only inputs and disjoint outputs (each strip writes only its
    /// own output rows).
    struct Run: @unchecked Sendable {
        let input: Inputs
        let bins: UnsafeBufferPointer<Int32>
        let offsets: [Int32]
        /// Per triangle its rows and columns (``Triangles/rows``).
        let boxes: UnsafeBufferPointer<SIMD4<Int32>>
        /// Per triangle, three colour planes (see ``colorPlane(_:_:into:)``).
        let planes: UnsafeBufferPointer<SIMD4<Float>>
        let size: Int
        let supersample: Int
        let out: UnsafeMutableBufferPointer<UInt8>
        let depth: UnsafeMutableBufferPointer<Float>

        /// The output pixel columns the triangles `bins[range]` reach.
        @inline(__always)
        func pixelColumns(_ range: Range<Int>) -> Range<Int> {
            var lo = Int32.max, hi = Int32.min
            for k in range {
                let box = boxes[Int(bins[k])]
                lo = min(lo, box.z)
                hi = max(hi, box.w)
            }
            return Int(lo) / supersample..<(Int(hi) / supersample + 1)
        }

        /// Rasterises and resolves the strips `range` steps through, with buffers of its own.
        func strips(_ range: StrideTo<Int>) {
            guard range.underestimatedCount > 0 else { return }
            let w = size * supersample, h = w
            let stripRows = outputRowsPerStrip * supersample
            // Seven samples of slack after the last row for `Span.fill8`.
            var zbuf = [Float](repeating: 0, count: w * stripRows + 7)
            var ibuf = [Int32](repeating: -1, count: w * stripRows + 7)
            zbuf.withUnsafeMutableBufferPointer { z in
                ibuf.withUnsafeMutableBufferPointer { id in
                    var strip = Strip(z: z, id: id, width: w)
                    for s in range {
                        // A strip no triangle reaches keeps its empty pixels (zero) and depths.
                        let first = Int(offsets[s]), last = Int(offsets[s + 1])
                        guard first < last else { continue }
                        strip.top = s * stripRows
                        strip.rows = min(stripRows, h - strip.top)
                        // Only the pixel columns its triangles reach are cleared and resolved: the
                        // others have no sample drawn, so they stay empty.
                        let columns = pixelColumns(first..<last)
                        let c0 = columns.lowerBound * supersample, c1 = columns.upperBound * supersample
                        for r in 0..<strip.rows {
                            (z.baseAddress! + r * w + c0).update(repeating: 0, count: c1 - c0)
                            (id.baseAddress! + r * w + c0).update(repeating: -1, count: c1 - c0)
                        }
                        for k in first..<last {
                            rasterize(Int(bins[k]), input, strip)
                        }
                        resolve(
                            strip, input, planes: planes, size: size, supersample: supersample, columns: columns,
                            pixels: out, depth: depth)
                    }
                }
            }
        }
    }

    /// The sample rows and columns a drawable triangle covers (clipped to the raster), or nil
    /// when it is behind the camera, degenerate once snapped, or off screen.
    @inline(__always)
    static func rowRange(_ t: Int, _ input: Inputs, width: Int, height: Int) -> (Int, Int, Int, Int)? {
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        // Behind or at the camera: not drawn (a framing camera never needs clipping).
        guard input.invDepth[i0] > 0, input.invDepth[i1] > 0, input.invDepth[i2] > 0 else { return nil }
        let p0 = input.fixed[i0], p1 = input.fixed[i1], p2 = input.fixed[i2]
        let ax = Int64(p1.x) - Int64(p0.x), ay = Int64(p1.y) - Int64(p0.y)
        let bx = Int64(p2.x) - Int64(p0.x), by = Int64(p2.y) - Int64(p0.y)
        guard ax * by != ay * bx else { return nil }
        let lo = pointwiseMin(p0, pointwiseMin(p1, p2)), hi = pointwiseMax(p0, pointwiseMax(p1, p2))
        let x0 = firstSample(lo.x), x1 = lastSample(hi.x)
        guard x0 <= x1, x1 >= 0, x0 < width else { return nil }
        let y0 = max(0, firstSample(lo.y)), y1 = min(height - 1, lastSample(hi.y))
        return y0 <= y1 ? (y0, y1, max(0, x0), min(width - 1, x1)) : nil
    }

    /// `v` (samples) in fixed point, rounded to nearest; clamped to ±``clampSamples``, NaN as 0.
    static func snap(_ v: Float) -> Int32 {
        let c = v.isNaN ? 0 : min(max(v, -clampSamples), clampSamples)
        return Int32((c * Float(one)).rounded())
    }

    /// The first sample whose centre (k + ½) is at or after the fixed-point coordinate `v`, and the
    /// last at or before it.
    @inline(__always)
    static func firstSample(_ v: Int32) -> Int { (Int(v) - one / 2 + one - 1) >> subpixelBits }

    @inline(__always)
    static func lastSample(_ v: Int32) -> Int { (Int(v) - one / 2) >> subpixelBits }

    /// Draws triangle `t` into the strip: per sample inside it and nearer than what is there,
    /// records its id and 1/depth.
    ///
    /// Coverage is exact: the edge functions are evaluated in integers on the snapped corners,
    /// and a sample exactly on an edge belongs to the triangle for which that edge is a left edge
    /// (interior to its right, x growing) or a top edge (horizontal, interior below) — the
    /// top-left rule. Two triangles sharing an edge from opposite sides therefore split its
    /// samples between them with none left out and none drawn twice, so a surface has no cracks.
    @inline(__always)
    static func rasterize(_ t: Int, _ input: Inputs, _ strip: Strip) {
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        let q0 = input.fixed[i0], q1 = input.fixed[i1], q2 = input.fixed[i2]
        let w = strip.width
        let lo = pointwiseMin(q0, pointwiseMin(q1, q2)), hi = pointwiseMax(q0, pointwiseMax(q1, q2))
        let x0 = max(0, firstSample(lo.x)), x1 = min(w - 1, lastSample(hi.x))
        let y0 = max(strip.top, firstSample(lo.y))
        let y1 = min(strip.top + strip.rows - 1, lastSample(hi.y))
        guard x0 <= x1, y0 <= y1 else { return }
        // Edge function of edge a→b at p: (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x);
        // e0 is edge 1→2 (it weights corner 0), e1 edge 2→0, e2 edge 0→1. Their sum is the
        // doubled signed area; screen y points down, so a triangle counter-clockwise from
        // outside has negative area, and all three are negated for it to make inside positive.
        let x0f = Int64(x0) << subpixelBits + Int64(one / 2), y0f = Int64(y0) << subpixelBits + Int64(one / 2)
        @inline(__always)
        func edge(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>) -> (dx: Int64, dy: Int64, origin: Int64) {
            let dx = Int64(b.x) - Int64(a.x), dy = Int64(b.y) - Int64(a.y)
            return (dx, dy, dx * (y0f - Int64(a.y)) - dy * (x0f - Int64(a.x)))
        }
        var e0 = edge(q1, q2), e1 = edge(q2, q0), e2 = edge(q0, q1)
        let doubleArea = e0.origin + e1.origin + e2.origin
        guard doubleArea != 0 else { return }
        let back: Int32 = doubleArea > 0 ? 1 : 0
        if doubleArea < 0 {
            e0 = (-e0.dx, -e0.dy, -e0.origin)
            e1 = (-e1.dx, -e1.dy, -e1.origin)
            e2 = (-e2.dx, -e2.dy, -e2.origin)
        }
        // Per sample to the right the function grows by −dy, per row down by dx (in fixed point).
        // A sample on an edge (value 0) is inside only for a left edge (−dy > 0) or a top edge
        // (dy = 0, dx > 0): the others start one lower, so that `value ≥ 0` means inside.
        @inline(__always)
        func start(_ e: (dx: Int64, dy: Int64, origin: Int64)) -> Int64 {
            e.dy < 0 || (e.dy == 0 && e.dx > 0) ? e.origin : e.origin - 1
        }
        // 1/depth is affine in screen space, from the unsnapped corners: z = zx·x + zy·y + zc.
        let z0 = input.invDepth[i0], z1 = input.invDepth[i1], z2 = input.invDepth[i2]
        let p0 = input.screen[i0], p1 = input.screen[i1], p2 = input.screen[i2]
        let area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        let inv = 1 / area
        var zx = ((p1.y - p2.y) * z0 + (p2.y - p0.y) * z1 + (p0.y - p1.y) * z2) * inv
        var zy = ((p2.x - p1.x) * z0 + (p0.x - p2.x) * z1 + (p1.x - p0.x) * z2) * inv
        var zc = z0 - zx * p0.x - zy * p0.y
        if !(abs(zx) + abs(zy) < 1e30 && abs(zc) < 1e30) {
            // Degenerate before snapping (or NaN): one depth for the whole triangle, so that
            // every depth is finite across the raster (the depth test relies on it).
            (zx, zy, zc) = (0, 0, max(z0, max(z1, z2)))
        }
        let stepX = SIMD3(-e0.dy, -e1.dy, -e2.dy) &<< Int64(subpixelBits)
        let stepY = SIMD3(e0.dx, e1.dx, e2.dx) &<< Int64(subpixelBits)
        let origin = SIMD3(start(e0), start(e1), start(e2))
        let side = max(Int64(hi.x) - Int64(lo.x), Int64(hi.y) - Int64(lo.y))
        let span = Span(
            x0: x0, x1: x1, y0: y0, y1: y1, tag: Int32(2 * t) + back, zx: zx, zy: zy, zc: zc, strip: strip)
        if side <= narrowSide {
            let origin = SIMD3<Int32>(truncatingIfNeeded: origin), stepX = SIMD3<Int32>(truncatingIfNeeded: stepX)
            let stepY = SIMD3<Int32>(truncatingIfNeeded: stepY)
            if !span.fill8Vector(origin: origin, stepX: stepX, stepY: stepY) {
                span.fill8(origin: origin, stepX: stepX, stepY: stepY)
            }
        } else {
            span.fill(origin: origin, stepX: stepX, stepY: stepY)
        }
    }

    /// One triangle's clipped sample box, tag and depth plane.
    struct Span {
        let x0: Int, x1: Int, y0: Int, y1: Int
        let tag: Int32
        let zx: Float, zy: Float, zc: Float
        let strip: Strip

        /// Visits the box row by row, eight samples at a time, with the three edge functions at
        /// the first sample (`origin`) and their steps in 32 bits. Up to seven samples past the
        /// box's right side are read and written back unchanged (the strip buffers have room).
        @inline(__always)
        func fill8(origin: SIMD3<Int32>, stepX: SIMD3<Int32>, stepY: SIMD3<Int32>) {
            let w = strip.width
            let zb = strip.z.baseAddress!, ib = strip.id.baseAddress!
            let lane = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
            let step0 = lane &* stepX.x, step1 = lane &* stepX.y, step2 = lane &* stepX.z
            let next0 = SIMD8(repeating: stepX.x &<< 3), next1 = SIMD8(repeating: stepX.y &<< 3)
            let next2 = SIMD8(repeating: stepX.z &<< 3)
            let zLane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) * zx, zNext = SIMD8<Float>(repeating: 8 * zx)
            let tags = SIMD8<Int32>(repeating: tag)
            let count = x1 - x0 + 1
            let lanesLeft = SIMD8<Int32>(repeating: Int32(count) &- 1) &- lane
            let fx0 = Float(x0) + 0.5
            var rowStart = origin
            for y in y0...y1 {
                var e0 = SIMD8(repeating: rowStart.x) &+ step0, e1 = SIMD8(repeating: rowStart.y) &+ step1
                var e2 = SIMD8(repeating: rowStart.z) &+ step2
                var z = SIMD8(repeating: zx * fx0 + zy * (Float(y) + 0.5) + zc) + zLane
                var left = lanesLeft
                let rowZ = UnsafeMutableRawPointer(zb + (y - strip.top) * w + x0)
                let rowID = UnsafeMutableRawPointer(ib + (y - strip.top) * w + x0)
                var k = 0
                while k < count {
                    let oldZ = UnsafeRawPointer(rowZ + 4 * k).loadUnaligned(as: SIMD8<Float>.self)
                    let oldID = UnsafeRawPointer(rowID + 4 * k).loadUnaligned(as: SIMD8<Int32>.self)
                    // All lanes −1 where a lane is outside (an edge function or its lanes-left
                    // count negative), else 0; and −1 where nearer than what is there (the sign
                    // of old − new: both finite, and equal values give +0).
                    let outside = (e0 | e1 | e2 | left) &>> 31
                    let nearer = unsafeBitCast(oldZ - z, to: SIMD8<Int32>.self) &>> 31
                    let hit = nearer & ~outside
                    let newZ =
                        (unsafeBitCast(z, to: SIMD8<Int32>.self) & hit)
                        | (unsafeBitCast(oldZ, to: SIMD8<Int32>.self) & ~hit)
                    (rowZ + 4 * k).storeBytes(of: newZ, as: SIMD8<Int32>.self)
                    (rowID + 4 * k).storeBytes(of: (tags & hit) | (oldID & ~hit), as: SIMD8<Int32>.self)
                    e0 &+= next0
                    e1 &+= next1
                    e2 &+= next2
                    z += zNext
                    left &-= 8
                    k += 8
                }
                rowStart &+= stepY
            }
        }

        /// ``fill8(origin:stepX:stepY:)`` by the AVX2 kernel (`facescan_span_fill`, CSIMD), bit-identical
        /// to it: eight samples per step in one 256-bit register each instead of two 128-bit halves,
        /// and each row's edge functions stepped from the row before's. False, with nothing drawn,
        /// on a CPU without AVX2.
        @inline(__always)
        func fill8Vector(origin: SIMD3<Int32>, stepX: SIMD3<Int32>, stepY: SIMD3<Int32>) -> Bool {
            let edges = facescan_span_edges(
                origin: (origin.x, origin.y, origin.z), step_x: (stepX.x, stepX.y, stepX.z),
                step_y: (stepY.x, stepY.y, stepY.z))
            let first = (y0 - strip.top) * strip.width + x0
            return facescan_span_fill(
                strip.z.baseAddress! + first, strip.id.baseAddress! + first, strip.width, Int32(x1 - x0 + 1),
                Int32(y0), Int32(y1), edges, zx, zy, zc, Float(x0) + 0.5, tag) == 0
        }

        /// Visits the box row by row with the three edge functions at the first sample (`origin`)
        /// and their steps, in `T` (32 bits for boxes small enough, else 64); wrapping adds,
        /// since the functions are stepped once past the box's last column and row.
        @inline(__always)
        func fill<T: FixedWidthInteger & SignedInteger>(origin: SIMD3<T>, stepX: SIMD3<T>, stepY: SIMD3<T>) {
            let w = strip.width
            let zb = strip.z.baseAddress!, ib = strip.id.baseAddress!
            let fx0 = Float(x0) + 0.5
            var rowStart = origin
            for y in y0...y1 {
                var e = rowStart
                var z = zx * fx0 + zy * (Float(y) + 0.5) + zc
                let row = zb + (y - strip.top) * w, rowID = ib + (y - strip.top) * w
                // Branch-free: triangles are a few samples wide, so mispredicted branches at every
                // span end would cost more than always storing. Inside ⇔ no edge function negative.
                for x in x0...x1 {
                    let old = row[x]
                    let hit = (e.x | e.y | e.z) >= 0 && z > old
                    row[x] = hit ? z : old
                    rowID[x] = hit ? tag : rowID[x]
                    e &+= stepX
                    z += zx
                }
                rowStart &+= stepY
            }
        }
    }

    /// The perspective-correct colour of triangle `t`'s visible side as three planes over the
    /// sample raster, written to `plane[0...2]`: at screen point p (samples),
    /// v = plane[0]·p.x + plane[1]·p.y + plane[2], and the colour is v.xyz / v.w.
    ///
    /// The corners' colours are weighted by their barycentric coordinates times their 1/depth;
    /// both are affine in screen space, so numerator (xyz) and denominator (w) are planes, set up
    /// once per triangle instead of gathering the three corners at every pixel.
    @inline(__always)
    static func colorPlane(_ t: Int, _ input: Inputs, into plane: UnsafeMutablePointer<SIMD4<Float>>) {
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        let p0 = input.screen[i0], p1 = input.screen[i1], p2 = input.screen[i2]
        // The side drawn is the one facing the camera in the snapped (fixed-point) corners, as in
        // `rasterize`: a positive doubled area is the inside.
        let f0 = input.fixed[i0], f1 = input.fixed[i1], f2 = input.fixed[i2]
        let cross =
            (Int64(f1.x) - Int64(f0.x)) * (Int64(f2.y) - Int64(f0.y))
            - (Int64(f1.y) - Int64(f0.y)) * (Int64(f2.x) - Int64(f0.x))
        let colors = cross > 0 ? input.back : input.front
        // Corner weights as planes: e_k(p) = a_k·p.x + b_k·p.y + c_k (any common scale), the edge
        // function of the edge opposite corner k.
        @inline(__always)
        func edge(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD3<Float> {
            // (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x)
            let dx = b.x - a.x, dy = b.y - a.y
            return SIMD3(-dy, dx, dy * a.x - dx * a.y)
        }
        let w0 = edge(p1, p2) * input.invDepth[i0], w1 = edge(p2, p0) * input.invDepth[i1]
        let w2 = edge(p0, p1) * input.invDepth[i2]
        let c0 = SIMD4(colors[i0].x, colors[i0].y, colors[i0].z, 1)
        let c1 = SIMD4(colors[i1].x, colors[i1].y, colors[i1].z, 1)
        let c2 = SIMD4(colors[i2].x, colors[i2].y, colors[i2].z, 1)
        var px = c0 * w0.x + c1 * w1.x + c2 * w2.x
        var py = c0 * w0.y + c1 * w1.y + c2 * w2.y
        var pc = c0 * w0.z + c1 * w1.z + c2 * w2.z
        // Scale so the denominator is about 1/depth at the centroid (keeps magnitudes tame; the
        // ratio does not change).
        let centroid = (p0 + p1 + p2) / 3
        let d = px.w * centroid.x + py.w * centroid.y + pc.w
        if d.isNormal {
            let k = 1 / d
            px *= k
            py *= k
            pc *= k
        }
        plane[0] = px
        plane[1] = py
        plane[2] = pc
    }

    /// Shades and resolves the output pixels of `strip` in `columns` (and their depths when `depth`
    /// is not empty); the others have no sample drawn. Per pixel: its visible samples' colours,
    /// once at the pixel centre when every sample shows the same triangle side, else once per
    /// sample and averaged in linear light; sRGB through `input.lut`; alpha from coverage. The
    /// loop is `facescan_resolve_strip` (CSIMD, portable C): in Swift its index arithmetic and
    /// float-to-index conversions were checked at every pixel, as many instructions as the shading.
    @inline(__always)
    static func resolve(
        _ strip: Strip, _ input: Inputs, planes: UnsafeBufferPointer<SIMD4<Float>>, size: Int, supersample ss: Int,
        columns: Range<Int>, pixels out: UnsafeMutableBufferPointer<UInt8>,
        depth dout: UnsafeMutableBufferPointer<Float>
    ) {
        facescan_resolve_strip(
            strip.z.baseAddress, strip.id.baseAddress, strip.width, strip.top, strip.rows, ss, columns.lowerBound,
            columns.upperBound, UnsafeRawPointer(planes.baseAddress), input.lut.baseAddress, input.lut.count,
            out.baseAddress, size, dout.isEmpty ? nil : dout.baseAddress)
    }
}
