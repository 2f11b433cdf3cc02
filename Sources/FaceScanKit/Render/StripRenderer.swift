/// The hot core of ``Rasterizer``: binning, rasterisation into a strip-sized visibility buffer,
/// and colour interpolation/resolve. Unsafe buffer access stays in this file; every buffer pointer is taken
/// once per render, outside the loops.
enum StripRenderer {
    /// Output rows per strip: 16 rows at 2×2 supersampling of a 512² image is a 1024 × 32 sample
    /// strip, 256 KiB of visibility buffer.
    static let outputRowsPerStrip = 16

    /// Everything the loops read, as raw buffers valid during one `draw`.
    struct Inputs {
        let tris: UnsafeBufferPointer<UInt32>
        let screen: UnsafeBufferPointer<SIMD2<Float>>
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

    /// Renders every strip into `pixels` (RGBA8, `size²`) and `depth`. With `threads > 1` the
    /// strips are split into two contiguous runs drawn concurrently (``Parallel/both(_:)``), each
    /// with its own strip buffers; a strip's pixels depend only on its own triangles, so the bytes
    /// are identical for any thread count.
    static func draw(
        triangles: [UInt32], screen: [SIMD2<Float>], invDepth: [Float], front: [SIMD4<Float>], back: [SIMD4<Float>],
        size: Int, supersample ss: Int, threads: Int, pixels: inout [UInt8], depth: inout [Float]
    ) {
        let w = size * ss, h = size * ss
        let stripRows = outputRowsPerStrip * ss
        let stripCount = (size + outputRowsPerStrip - 1) / outputRowsPerStrip
        triangles.withUnsafeBufferPointer { tris in
            screen.withUnsafeBufferPointer { scr in
                invDepth.withUnsafeBufferPointer { viz in
                    front.withUnsafeBufferPointer { front in
                        back.withUnsafeBufferPointer { back in
                            SRGB.table.withUnsafeBufferPointer { lut in
                                pixels.withUnsafeMutableBufferPointer { out in
                                    depth.withUnsafeMutableBufferPointer { dout in
                                        let input = Inputs(
                                            tris: tris, screen: scr, invDepth: viz, front: front, back: back, lut: lut)
                                        // Bin triangles by the strips their sample rows touch: count → prefix-sum → fill.
                                        let triangleCount = tris.count / 3
                                        var offsets = [Int32](repeating: 0, count: stripCount + 1)
                                        for t in 0..<triangleCount {
                                            guard let (y0, y1) = rowRange(t, input, width: w, height: h) else {
                                                continue
                                            }
                                            for s in (y0 / stripRows)...(y1 / stripRows) { offsets[s + 1] += 1 }
                                        }
                                        for s in 0..<stripCount { offsets[s + 1] += offsets[s] }
                                        var fill = offsets
                                        var bins = [Int32](repeating: 0, count: Int(offsets[stripCount]))
                                        for t in 0..<triangleCount {
                                            guard let (y0, y1) = rowRange(t, input, width: w, height: h) else {
                                                continue
                                            }
                                            for s in (y0 / stripRows)...(y1 / stripRows) {
                                                bins[Int(fill[s])] = Int32(t)
                                                fill[s] += 1
                                            }
                                        }
                                        bins.withUnsafeBufferPointer { bins in
                                            let run = Run(
                                                input: input, bins: bins, offsets: offsets, size: size, supersample: ss,
                                                out: out, depth: dout)
                                            if threads == 1 || stripCount < 2 {
                                                run.strips(0..<stripCount)
                                            } else {
                                                let half = stripCount / 2
                                                Parallel.both { k in run.strips(k == 0 ? 0..<half : half..<stripCount) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
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
        let size: Int
        let supersample: Int
        let out: UnsafeMutableBufferPointer<UInt8>
        let depth: UnsafeMutableBufferPointer<Float>

        /// Rasterises and resolves `range` of strips with buffers of its own.
        func strips(_ range: Range<Int>) {
            let w = size * supersample, h = w
            let stripRows = outputRowsPerStrip * supersample
            var zbuf = [Float](repeating: 0, count: w * stripRows)
            var ibuf = [Int32](repeating: -1, count: w * stripRows)
            zbuf.withUnsafeMutableBufferPointer { z in
                ibuf.withUnsafeMutableBufferPointer { id in
                    var strip = Strip(z: z, id: id, width: w)
                    for s in range {
                        strip.top = s * stripRows
                        strip.rows = min(stripRows, h - strip.top)
                        let n = strip.rows * w
                        z.baseAddress!.update(repeating: 0, count: n)
                        id.baseAddress!.update(repeating: -1, count: n)
                        for k in Int(offsets[s])..<Int(offsets[s + 1]) {
                            rasterize(Int(bins[k]), input, strip)
                        }
                        resolve(strip, input, size: size, supersample: supersample, pixels: out, depth: depth)
                    }
                }
            }
        }
    }

    /// The sample rows a drawable triangle covers (clipped to the raster), or nil when it is
    /// behind the camera, degenerate, or off screen.
    @inline(__always)
    static func rowRange(_ t: Int, _ input: Inputs, width: Int, height: Int) -> (Int, Int)? {
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        // Behind or at the camera: not drawn (a framing camera never needs clipping).
        guard input.invDepth[i0] > 0, input.invDepth[i1] > 0, input.invDepth[i2] > 0 else { return nil }
        let p0 = input.screen[i0], p1 = input.screen[i1], p2 = input.screen[i2]
        let area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        guard area != 0, area.isFinite else { return nil }
        let lo = pointwiseMin(p0, pointwiseMin(p1, p2)), hi = pointwiseMax(p0, pointwiseMax(p1, p2))
        guard lo.x < Float(width), hi.x > 0 else { return nil }
        // Sample centres are at k + 0.5.
        let y0 = max(0, ceilInt(lo.y - 0.5)), y1 = min(height - 1, floorInt(hi.y - 0.5))
        return y0 <= y1 ? (y0, y1) : nil
    }

    /// `x` clamped to 0…1, NaN to 0 (a shader's colour may be anything).
    @inline(__always)
    static func unitClamp(_ x: Float) -> Float { x > 0 ? (x < 1 ? x : 1) : 0 }

    /// ⌈v⌉ and ⌊v⌋ as Int, clamped to ±2²⁴ (far outside any raster), without a libm call.
    @inline(__always)
    static func ceilInt(_ v: Float) -> Int {
        let c = min(max(v, -16_777_216), 16_777_216)
        let i = Int(c)
        return Float(i) < c ? i + 1 : i
    }

    @inline(__always)
    static func floorInt(_ v: Float) -> Int {
        let c = min(max(v, -16_777_216), 16_777_216)
        let i = Int(c)
        return Float(i) > c ? i - 1 : i
    }

    /// Draws triangle `t` into the strip: per sample inside it (edge functions ≥ 0, so samples on
    /// a shared edge may be claimed by both neighbours; the depth test keeps one) and nearer than
    /// what is there, records its id and 1/depth.
    @inline(__always)
    static func rasterize(_ t: Int, _ input: Inputs, _ strip: Strip) {
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        let z0 = input.invDepth[i0], z1 = input.invDepth[i1], z2 = input.invDepth[i2]
        let p0 = input.screen[i0], p1 = input.screen[i1], p2 = input.screen[i2]
        let w = strip.width
        let lo = pointwiseMin(p0, pointwiseMin(p1, p2)), hi = pointwiseMax(p0, pointwiseMax(p1, p2))
        let x0 = max(0, ceilInt(lo.x - 0.5)), x1 = min(w - 1, floorInt(hi.x - 0.5))
        let y0 = max(strip.top, ceilInt(lo.y - 0.5)), y1 = min(strip.top + strip.rows - 1, floorInt(hi.y - 0.5))
        guard x0 <= x1, y0 <= y1 else { return }
        // Edge function of edge a→b at p: (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x)
        // = A·p.x + B·p.y + C; e0 weights corner 0 (edge 1→2), e1 corner 1, e2 corner 2.
        var area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        // Screen y points down, so a triangle counter-clockwise from outside has negative area.
        let back: Int32 = area > 0 ? 1 : 0
        let sign: Float = area > 0 ? 1 : -1
        area *= sign
        let a0 = sign * (p1.y - p2.y), b0 = sign * (p2.x - p1.x), c0 = sign * (p1.x * p2.y - p1.y * p2.x)
        let a1 = sign * (p2.y - p0.y), b1 = sign * (p0.x - p2.x), c1 = sign * (p2.x * p0.y - p2.y * p0.x)
        let a2 = sign * (p0.y - p1.y), b2 = sign * (p1.x - p0.x), c2 = sign * (p0.x * p1.y - p0.y * p1.x)
        let inv = 1 / area
        // 1/depth is affine in screen space: z = zx·x + zy·y + zc.
        let zx = (a0 * z0 + a1 * z1 + a2 * z2) * inv
        let zy = (b0 * z0 + b1 * z1 + b2 * z2) * inv
        let zc = (c0 * z0 + c1 * z1 + c2 * z2) * inv
        let tag = Int32(2 * t) + back
        let zb = strip.z.baseAddress!, ib = strip.id.baseAddress!
        let fx0 = Float(x0) + 0.5
        for y in y0...y1 {
            let fy = Float(y) + 0.5
            var e0 = a0 * fx0 + b0 * fy + c0
            var e1 = a1 * fx0 + b1 * fy + c1
            var e2 = a2 * fx0 + b2 * fy + c2
            var z = zx * fx0 + zy * fy + zc
            let row = zb + (y - strip.top) * w, rowID = ib + (y - strip.top) * w
            // Branch-free: triangles are a few samples wide, so mispredicted branches at every
            // span end would cost more than always storing.
            for x in x0...x1 {
                let old = row[x]
                let hit = e0 >= 0 && e1 >= 0 && e2 >= 0 && z > old
                row[x] = hit ? z : old
                rowID[x] = hit ? tag : rowID[x]
                e0 += a0
                e1 += a1
                e2 += a2
                z += zx
            }
        }
    }

    /// Linear RGB of triangle side `tag` at screen point `p` (samples): the corners' colours
    /// interpolated with perspective-correct barycentrics.
    @inline(__always)
    static func color(_ tag: Int32, at p: SIMD2<Float>, _ input: Inputs) -> SIMD4<Float> {
        let t = Int(tag >> 1)
        let i0 = Int(input.tris[3 * t]), i1 = Int(input.tris[3 * t + 1]), i2 = Int(input.tris[3 * t + 2])
        let p0 = input.screen[i0], p1 = input.screen[i1], p2 = input.screen[i2]
        // Screen-space edge functions (any orientation; their ratios are the barycentrics) …
        let e1 = (p0.x - p2.x) * (p.y - p2.y) - (p0.y - p2.y) * (p.x - p2.x)
        let e2 = (p1.x - p0.x) * (p.y - p0.y) - (p1.y - p0.y) * (p.x - p0.x)
        let area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        // … made perspective-correct by weighting each corner with its 1/depth.
        let q0 = (area - e1 - e2) * input.invDepth[i0], q1 = e1 * input.invDepth[i1], q2 = e2 * input.invDepth[i2]
        let colors = tag & 1 == 0 ? input.front : input.back
        return (colors[i0] * q0 + colors[i1] * q1 + colors[i2] * q2) * (1 / (q0 + q1 + q2))
    }

    /// Shades and resolves the output rows of `strip`.
    @inline(__always)
    static func resolve(
        _ strip: Strip, _ input: Inputs, size: Int, supersample ss: Int,
        pixels out: UnsafeMutableBufferPointer<UInt8>, depth dout: UnsafeMutableBufferPointer<Float>
    ) {
        let w = strip.width
        let perPixel = ss * ss
        let lutMax = Float(input.lut.count - 1)
        let half = Float(ss) / 2
        let zb = strip.z.baseAddress!, ib = strip.id.baseAddress!
        for py in (strip.top / ss)..<((strip.top + strip.rows) / ss) {
            let sampleRow = (py * ss - strip.top) * w
            for px in 0..<size {
                let base = sampleRow + px * ss
                let firstTag = ib[base]
                var covered = 0
                var same = true
                var nearest: Float = 0
                if ss == 2 {
                    // The default 2×2 pattern, unrolled.
                    let t1 = ib[base + 1], t2 = ib[base + w], t3 = ib[base + w + 1]
                    if firstTag < 0 && t1 < 0 && t2 < 0 && t3 < 0 { continue }
                    same = firstTag == t1 && firstTag == t2 && firstTag == t3
                    covered = (firstTag >= 0 ? 1 : 0) + (t1 >= 0 ? 1 : 0) + (t2 >= 0 ? 1 : 0) + (t3 >= 0 ? 1 : 0)
                    nearest = max(max(zb[base], zb[base + 1]), max(zb[base + w], zb[base + w + 1]))
                } else {
                    for sy in 0..<ss {
                        for sx in 0..<ss {
                            let tag = ib[base + sy * w + sx]
                            same = same && tag == firstTag
                            if tag >= 0 {
                                covered += 1
                                nearest = max(nearest, zb[base + sy * w + sx])
                            }
                        }
                    }
                }
                guard covered > 0 else { continue }
                var c: SIMD4<Float>
                if same {
                    // One surface under the whole pixel: evaluate once at its centre.
                    let p = SIMD2(Float(px * ss) + half, Float(py * ss) + half)
                    c = color(firstTag, at: p, input)
                } else {
                    c = .zero
                    for sy in 0..<ss {
                        for sx in 0..<ss {
                            let tag = ib[base + sy * w + sx]
                            guard tag >= 0 else { continue }
                            let p = SIMD2(Float(px * ss + sx) + 0.5, Float(py * ss + sy) + 0.5)
                            c += color(tag, at: p, input)
                        }
                    }
                    c /= Float(covered)
                }
                let o = 4 * (py * size + px)
                out[o] = input.lut[Int(unitClamp(c.x) * lutMax + 0.5)]
                out[o + 1] = input.lut[Int(unitClamp(c.y) * lutMax + 0.5)]
                out[o + 2] = input.lut[Int(unitClamp(c.z) * lutMax + 0.5)]
                out[o + 3] = UInt8((covered * 255 + perPixel / 2) / perPixel)
                dout[py * size + px] = 1 / nearest
            }
        }
    }
}
