/// Per-sample nearest surface: the hot core of ``Rasterizer``. Unsafe buffer access stays in this
/// file; every buffer pointer is taken once per pass, outside the loops.
struct VisibilityBuffer {
    let width: Int
    let height: Int
    /// 1/depth of the nearest surface so far (0 = empty: infinitely far).
    var invDepth: [Float]
    /// `2 · triangle + (back face ? 1 : 0)`, or −1 where empty.
    var surface: [Int32]
    /// Screen-space barycentric weights of the triangle's second and third corners.
    var bary1: [Float]
    var bary2: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let n = width * height
        invDepth = [Float](repeating: 0, count: n)
        surface = [Int32](repeating: -1, count: n)
        bary1 = [Float](repeating: 0, count: n)
        bary2 = [Float](repeating: 0, count: n)
    }

    /// Draws every triangle, both sides, keeping per sample the one with the largest 1/depth.
    /// Samples exactly on a shared edge may be claimed by both triangles; the depth test keeps one.
    mutating func rasterize(triangles: [UInt32], screen: [SIMD2<Float>], invDepth vertexInvDepth: [Float]) {
        let w = width, h = height
        let fw = Float(w), fh = Float(h)
        invDepth.withUnsafeMutableBufferPointer { zbuf in
        surface.withUnsafeMutableBufferPointer { sbuf in
        bary1.withUnsafeMutableBufferPointer { b1buf in
        bary2.withUnsafeMutableBufferPointer { b2buf in
        triangles.withUnsafeBufferPointer { tris in
        screen.withUnsafeBufferPointer { scr in
        vertexInvDepth.withUnsafeBufferPointer { viz in
            let triangleCount = tris.count / 3
            for t in 0..<triangleCount {
                let i0 = Int(tris[3 * t]), i1 = Int(tris[3 * t + 1]), i2 = Int(tris[3 * t + 2])
                let z0 = viz[i0], z1 = viz[i1], z2 = viz[i2]
                // Behind or at the camera: not drawn (a framing camera never needs clipping).
                guard z0 > 0, z1 > 0, z2 > 0 else { continue }
                let p0 = scr[i0], p1 = scr[i1], p2 = scr[i2]
                // Bounding box of the sample centres (k + 0.5) inside the triangle, clipped to the screen.
                let lo = pointwiseMin(p0, pointwiseMin(p1, p2)), hi = pointwiseMax(p0, pointwiseMax(p1, p2))
                guard lo.x < fw, lo.y < fh, hi.x > 0, hi.y > 0 else { continue }
                let x0 = max(0, Int((lo.x - 0.5).rounded(.up))), x1 = min(w - 1, Int((hi.x - 0.5).rounded(.down)))
                let y0 = max(0, Int((lo.y - 0.5).rounded(.up))), y1 = min(h - 1, Int((hi.y - 0.5).rounded(.down)))
                guard x0 <= x1, y0 <= y1 else { continue }
                // Edge function of edge a→b at p: (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x)
                // = A·p.x + B·p.y + C. e0 weights corner 0 (edge 1→2), e1 corner 1, e2 corner 2.
                var area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
                guard area != 0, area.isFinite else { continue }
                // Screen y points down, so a triangle counter-clockwise from outside has negative area.
                let back: Int32 = area > 0 ? 1 : 0
                let sign: Float = area > 0 ? 1 : -1
                area *= sign
                let a0 = sign * (p1.y - p2.y), b0 = sign * (p2.x - p1.x), c0 = sign * (p1.x * p2.y - p1.y * p2.x)
                let a1 = sign * (p2.y - p0.y), b1 = sign * (p0.x - p2.x), c1 = sign * (p2.x * p0.y - p2.y * p0.x)
                let a2 = sign * (p0.y - p1.y), b2 = sign * (p1.x - p0.x), c2 = sign * (p0.x * p1.y - p0.y * p1.x)
                let inv = 1 / area
                // 1/depth is affine in screen space: z = zc + zx·x + zy·y.
                let zx = (a0 * z0 + a1 * z1 + a2 * z2) * inv
                let zy = (b0 * z0 + b1 * z1 + b2 * z2) * inv
                let zc = (c0 * z0 + c1 * z1 + c2 * z2) * inv
                let id = Int32(2 * t) + back
                let fx0 = Float(x0) + 0.5
                for y in y0...y1 {
                    let fy = Float(y) + 0.5
                    var e0 = a0 * fx0 + b0 * fy + c0
                    var e1 = a1 * fx0 + b1 * fy + c1
                    var e2 = a2 * fx0 + b2 * fy + c2
                    var z = zx * fx0 + zy * fy + zc
                    let row = y * w
                    for x in x0...x1 {
                        if e0 >= 0 && e1 >= 0 && e2 >= 0 && z > zbuf[row + x] {
                            zbuf[row + x] = z
                            sbuf[row + x] = id
                            b1buf[row + x] = e1 * inv
                            b2buf[row + x] = e2 * inv
                        }
                        e0 += a0
                        e1 += a1
                        e2 += a2
                        z += zx
                    }
                }
            }
        }}}}}}}
    }

    /// Shades the visible samples of every `supersample × supersample` block, averages them in
    /// linear light (box filter) and writes sRGB RGBA8 with alpha = covered fraction, plus the
    /// nearest depth per pixel.
    func resolve<S: SurfaceShader>(into pixels: inout [UInt8], depth: inout [Float], size: Int, supersample ss: Int,
                                   triangles: [UInt32], invDepth vertexInvDepth: [Float], normals: [SIMD3<Float>],
                                   shader: S) {
        let w = width
        let perPixel = Float(ss * ss)
        let lutMax = Float(SRGB.steps - 1)
        pixels.withUnsafeMutableBufferPointer { out in
        depth.withUnsafeMutableBufferPointer { dout in
        invDepth.withUnsafeBufferPointer { zbuf in
        surface.withUnsafeBufferPointer { sbuf in
        bary1.withUnsafeBufferPointer { b1buf in
        bary2.withUnsafeBufferPointer { b2buf in
        triangles.withUnsafeBufferPointer { tris in
        vertexInvDepth.withUnsafeBufferPointer { viz in
        normals.withUnsafeBufferPointer { nrm in
        SRGB.table.withUnsafeBufferPointer { lut in
            for py in 0..<size {
                for px in 0..<size {
                    var sum = SIMD3<Float>.zero
                    var covered = 0
                    var nearest: Float = 0
                    for sy in 0..<ss {
                        let row = (py * ss + sy) * w + px * ss
                        for sx in 0..<ss {
                            let s = row + sx
                            let id = sbuf[s]
                            if id < 0 { continue }
                            let t = Int(id >> 1)
                            let i0 = Int(tris[3 * t]), i1 = Int(tris[3 * t + 1]), i2 = Int(tris[3 * t + 2])
                            // Perspective-correct weights: screen weights scaled by each corner's 1/depth.
                            let l1 = b1buf[s], l2 = b2buf[s]
                            let q0 = (1 - l1 - l2) * viz[i0], q1 = l1 * viz[i1], q2 = l2 * viz[i2]
                            var nv = nrm[i0] * q0 + nrm[i1] * q1 + nrm[i2] * q2
                            let len2 = (nv * nv).sum()
                            nv = len2 > 0 ? nv * (1 / len2.squareRoot()) : SIMD3(0, 0, 1)
                            let front = id & 1 == 0
                            sum += shader.shade(normal: front ? nv : -nv, frontFacing: front)
                            covered += 1
                            nearest = max(nearest, zbuf[s])
                        }
                    }
                    guard covered > 0 else { continue }
                    let c = sum / Float(covered)
                    let o = 4 * (py * size + px)
                    out[o] = lut[Int(min(max(c.x, 0), 1) * lutMax + 0.5)]
                    out[o + 1] = lut[Int(min(max(c.y, 0), 1) * lutMax + 0.5)]
                    out[o + 2] = lut[Int(min(max(c.z, 0), 1) * lutMax + 0.5)]
                    out[o + 3] = UInt8((Float(covered) / perPixel * 255).rounded())
                    dout[py * size + px] = 1 / nearest
                }
            }
        }}}}}}}}}}
    }
}
