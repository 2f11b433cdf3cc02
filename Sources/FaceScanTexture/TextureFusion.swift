import FaceScanCapture
import FaceScanCore
import FaceScanRender

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The fused colour of a scan: the texture and how it was made.
public struct FusedTexture: Sendable {
    /// The texture, `size × size`, sRGB, opaque; row 0 is v = 1 (the top), as OBJ, glTF and PNG
    /// viewers expect.
    public var image: RGBAImage
    /// The texture coordinates of the topology's vertices it belongs to (the topology's own, or
    /// facescan's when the topology had none).
    public var uvs: [SIMD2<Float>]
    /// Texels that a triangle of the topology covers.
    public var coveredTexels: Int
    /// Covered texels no frame saw, filled from their neighbours.
    public var filledTexels: Int
    /// Frames whose image was fused.
    public var framesFused: Int
    /// Whether the UVs were made by facescan (the topology had none).
    public var madeUVs: Bool
    /// The directional light fitted to the images and undone (world space, unit, towards the
    /// light); nil when the images showed ambient light only.
    public var lightDirection: SIMD3<Double>?
    /// That light's share of the light on a point facing it; 0 when none.
    public var lightShare: Double
}

/// Fuses camera images of a face into one texture, one image at a time (docs/ALGORITHMS.md,
/// "Colour"). The topology is fixed, so each texel is a fixed point of it (a triangle and
/// barycentric coordinates, found once from the UVs); in each frame that point is where the
/// frame's own vertices put it. Per frame: the face projected by the frame's camera, its depth
/// drawn (`DepthRaster`), and each texel in sight weighted by how squarely (cos² of the view
/// angle) and how closely (1/distance²) the camera saw it, its colour read from the image
/// (bilinear) and turned back to the skin's colour under neutral light (FORMAT.md: exposure
/// ambientIntensity / 1000 and the blackbody tint of ambientColorTemperature undone in linear
/// light), then scaled by a robust gain per channel (the median ratio of the running mean to
/// this frame over the texels both saw) before it is added. A blinking frame paints nothing
/// where its vertices moved from the open-eyed mean. Nothing of an image is kept.
///
/// A value type; memory O(texture size²), whatever the number of frames.
public struct TextureFusion: Sendable {
    /// The texture's side in texels.
    public let size: Int
    let triangles: [UInt32]
    /// The UVs the texture is made in: the topology's, or facescan's own when it had none.
    public let uvs: [SIMD2<Float>]
    /// Whether ``uvs`` were made by facescan.
    public let madeUVs: Bool
    let vertexCount: Int
    /// Per covered texel, triangle by triangle (triangle t's are `triangleStart[t]..<triangleStart[t + 1]`,
    /// in texel order within it: a frame visits only the triangles it paints, in memory order):
    /// its index `y · size + x`, triangle, barycentrics of corners 1 and 2.
    let texel: [Int32]
    let tri: [Int32]
    let bary: [SIMD2<Float>]
    let triangleStart: [Int32]
    /// The covered texels in texel order (indices into ``texel``): the order the sums that must
    /// not depend on the layout (the gain's sample, the light's fit) go in.
    let inTexelOrder: [Int32]
    /// Per covered texel: Σ weight · linear RGB, and Σ weight.
    var sum: [SIMD4<Float>]
    /// Frames fused so far.
    public private(set) var framesFused = 0
    /// Σ of the open-eyed fused frames' positions and their count (the blink test's reference).
    var restSum: [Double]
    var restCount = 0
    /// Σ of every accepted frame's positions so far and their count (``observe(_:)``): where a
    /// frame's image is laid on the face.
    var meanSum: [Double]
    var meanCount = 0
    /// Per triangle: Σ weight · its unit normal in world space over the fused frames (the
    /// normals the scene's light is fitted on, ``Shading``).
    var normalSum: [SIMD3<Float>]

    /// Blink coefficient above which a frame's moved vertices do not paint.
    static let blinkThreshold = 0.2
    /// How far (metres) a blinking frame's vertex must have moved from the open-eyed mean not to paint.
    static let blinkMotion: Float = 0.0015
    /// Depth tolerance of the visibility test, metres.
    static let depthTolerance: Float = 0.004
    /// Texels with a cosine of the view angle below this are not painted.
    static let minimumCosine: Float = 0.2

    /// A fusion for `topology` (frames of `vertexCount` vertices) into a `size × size` texture;
    /// `rest` (the first frame's positions, flat xyz) makes UVs when the topology has none.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` for a size outside 16…4096.
    public init(topology: Topology, vertexCount: Int, size: Int = 1024, rest: [Float]) throws(FaceScanError) {
        guard (16...4096).contains(size) else {
            throw .badSetting(UsageError("texture size \(size) is outside 16…4096"))
        }
        self.size = size
        triangles = topology.triangles
        self.vertexCount = vertexCount
        if let t = topology.textureCoordinates, t.count == 2 * vertexCount {
            uvs = (0..<vertexCount).map { SIMD2(t[2 * $0], t[2 * $0 + 1]) }
            madeUVs = false
        } else {
            uvs = Self.planarUVs(rest: rest, triangles: topology.triangles, vertexCount: vertexCount)
            madeUVs = true
        }
        let (texelRows, triRows, baryRows) = Self.texels(uvs: uvs, triangles: triangles, size: size)
        let (order, start) = Self.groupByTriangle(triRows, triangleCount: triangles.count / 3)
        texel = order.map { texelRows[Int($0)] }
        tri = order.map { triRows[Int($0)] }
        bary = order.map { baryRows[Int($0)] }
        triangleStart = start
        var inverse = [Int32](repeating: 0, count: order.count)
        for (j, e) in order.enumerated() { inverse[Int(e)] = Int32(j) }
        inTexelOrder = inverse
        sum = [SIMD4<Float>](repeating: .zero, count: texel.count)
        restSum = [Double](repeating: 0, count: 3 * vertexCount)
        meanSum = restSum
        normalSum = [SIMD3<Float>](repeating: .zero, count: topology.triangles.count / 3)
    }

    /// Adds an accepted frame's positions (flat xyz, metres) to the running mean the images are
    /// laid on: the mean of the frames so far is the face without their noise and jitter, closer
    /// to what the camera saw than one frame's own vertices. Call it for every accepted frame,
    /// with or without an image, before ``add(xyz:anchorTransform:camera:image:ambientIntensity:colorTemperature:blink:scratch:)``.
    public mutating func observe(_ xyz: [Float]) {
        guard xyz.count == meanSum.count else { return }
        for i in 0..<xyz.count { meanSum[i] += Double(xyz[i]) }
        meanCount += 1
    }

    /// How far (metres) a frame's vertex may be from the running mean and still be placed at the
    /// mean (noise, jitter); from there to twice as far it moves over to its own position (an
    /// expression the mean does not have, a blink).
    static let ownMotion: Float = 0.0015

    // MARK: UVs

    /// UVs of facescan's own for a topology without any: the face seen from the front (+z),
    /// its x, y mapped into 0.02…0.98 keeping the aspect ratio. Triangles that this projection
    /// folds (seen from behind: the sides under the jaw, inside the lips) keep their corners'
    /// UVs; a face mesh's front is one chart.
    static func planarUVs(rest: [Float], triangles: [UInt32], vertexCount n: Int) -> [SIMD2<Float>] {
        guard n > 0, rest.count >= 3 * n else { return [SIMD2<Float>](repeating: .zero, count: n) }
        var lo = SIMD2<Float>(repeating: .infinity), hi = SIMD2<Float>(repeating: -.infinity)
        for v in 0..<n {
            let p = SIMD2(rest[3 * v], rest[3 * v + 1])
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let side = max(hi.x - lo.x, hi.y - lo.y, 1e-9)
        let scale = 0.96 / side
        let offset = (SIMD2<Float>(1, 1) - (hi - lo) * scale) / 2
        return (0..<n).map { v in (SIMD2(rest[3 * v], rest[3 * v + 1]) - lo) * scale + offset }
    }

    /// Every texel whose centre a triangle covers in UV space (the first triangle that covers
    /// it), in texel order.
    static func texels(uvs: [SIMD2<Float>], triangles: [UInt32], size: Int)
        -> ([Int32], [Int32], [SIMD2<Float>])
    {
        var owner = [Int32](repeating: -1, count: size * size)
        var b1 = [Float](repeating: 0, count: size * size), b2 = b1
        let s = Float(size)
        for t in 0..<(triangles.count / 3) {
            // Texel space: x = u · size, y = (1 − v) · size; centres at +0.5.
            let a = uvs[Int(triangles[3 * t])], b = uvs[Int(triangles[3 * t + 1])], c = uvs[Int(triangles[3 * t + 2])]
            let x0 = a.x * s, y0 = (1 - a.y) * s, x1 = b.x * s, y1 = (1 - b.y) * s, x2 = c.x * s, y2 = (1 - c.y) * s
            let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
            guard area != 0, area.isFinite else { continue }
            let inv = 1 / area
            let lx = max(0, Int((min(x0, x1, x2) - 0.5).rounded(.up)))
            let hx = min(size - 1, Int((max(x0, x1, x2) - 0.5).rounded(.down)))
            let ly = max(0, Int((min(y0, y1, y2) - 0.5).rounded(.up)))
            let hy = min(size - 1, Int((max(y0, y1, y2) - 0.5).rounded(.down)))
            guard lx <= hx, ly <= hy else { continue }
            for py in ly...hy {
                let cy = Float(py) + 0.5
                for px in lx...hx where owner[py * size + px] < 0 {
                    let cx = Float(px) + 0.5
                    let w1 = ((x2 - x0) * (cy - y0) - (cx - x0) * (y2 - y0)) * -inv
                    let w2 = ((x1 - x0) * (cy - y0) - (cx - x0) * (y1 - y0)) * inv
                    guard w1 >= -1e-5, w2 >= -1e-5, w1 + w2 <= 1 + 1e-5 else { continue }
                    owner[py * size + px] = Int32(t)
                    b1[py * size + px] = w1
                    b2[py * size + px] = w2
                }
            }
        }
        var texel: [Int32] = [], tri: [Int32] = [], bary: [SIMD2<Float>] = []
        for k in 0..<(size * size) where owner[k] >= 0 {
            texel.append(Int32(k))
            tri.append(owner[k])
            bary.append(SIMD2(b1[k], b2[k]))
        }
        return (texel, tri, bary)
    }

    /// The texels of each triangle (a counting sort of `tri`: stable, so in texel order within
    /// a triangle) and where each triangle's run starts (`triangleCount + 1` entries).
    static func groupByTriangle(_ tri: [Int32], triangleCount: Int) -> ([Int32], [Int32]) {
        var start = [Int32](repeating: 0, count: triangleCount + 1)
        for t in tri { start[Int(t) + 1] += 1 }
        for t in 0..<triangleCount { start[t + 1] += start[t] }
        var next = start
        var order = [Int32](repeating: 0, count: tri.count)
        for (e, t) in tri.enumerated() {
            order[Int(next[Int(t)])] = Int32(e)
            next[Int(t)] += 1
        }
        return (order, start)
    }

    // MARK: light

    /// Linear RGB of a blackbody at `kelvin` relative to one at 6500 K (FORMAT.md, "The image and
    /// its camera": Tanner Helland's fit of the Planckian locus in sRGB, linearised).
    public static func blackbody(_ kelvin: Double) -> SIMD3<Double> {
        func fit(_ k: Double) -> SIMD3<Double> {
            let t = k / 100
            let r = t <= 66 ? 255 : 329.698727446 * pow(t - 60, -0.1332047592)
            let g = t <= 66 ? 99.4708025861 * log(t) - 161.1195681661 : 288.1221695283 * pow(t - 60, -0.0755148492)
            let b = t >= 66 ? 255 : (t <= 19 ? 0 : 138.5177312231 * log(t - 10) - 305.0447927307)
            return SIMD3(linear(r / 255), linear(g / 255), linear(b / 255))
        }
        let q = fit(kelvin), n = fit(6500)
        return SIMD3(q.x / n.x, q.y / n.y, max(q.z, 1e-6) / n.z)
    }

    static func linear(_ s: Double) -> Double {
        let c = min(1, max(0, s))
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// A pixel with a channel at or above this (sRGB byte) is taken as clipped.
    static let clipLevel: Float = 250
    /// The width of the sampling kernel, pixels (see the fusing loop).
    static let tapSigma: Float = 0.3
    /// exp(−d² / 2σ²) at d = i / 255, i = 0…255.
    static let tapWeights: [Float] = (0...255).map { i in
        let d = Float(i) / 255
        return exp(-d * d / (2 * tapSigma * tapSigma))
    }

    /// sRGB byte value (0…255) → linear light.
    static let toLinear: [Float] = (0...255).map { Float(linear(Double(4 * $0) / 1020)) }

    // MARK: fusing

    /// Scratch a frame's fusion reuses (per vertex, per triangle, the depth grid, the samples).
    public struct Scratch: Sendable {
        var u: [Float] = [], v: [Float] = [], z: [Float] = []
        var weight: [Float] = []
        var front: [Bool] = []
        var depth: [Float] = []
        var sample: [SIMD4<Float>] = []
        var ratios: [Float] = []
        var moved: [Bool] = []
        /// Empty scratch.
        public init() {}
    }

    /// Fuses one frame's image: `xyz` the frame's vertices (face-anchor space, metres),
    /// `anchorTransform` face anchor → world (16, column-major; nil: identity), the camera that
    /// took `image`, the light estimate (`ambientIntensity` lumens, nil 1000;
    /// `colorTemperature` kelvin, nil 6500) and the blink coefficients. Returns whether
    /// anything was painted.
    @discardableResult
    public mutating func add(
        xyz: [Float], anchorTransform: [Double]?, camera: FrameCamera, image: CameraImage,
        ambientIntensity: Double?, colorTemperature: Double?, blink: Double = 0, scratch: inout Scratch
    ) -> Bool {
        let n = vertexCount
        guard xyz.count == 3 * n, image.width == camera.width, image.height == camera.height else { return false }
        let blinking = blink > Self.blinkThreshold
        if blinking && restCount == 0 { return false }  // no open-eyed reference yet
        let cam = project(xyz, anchorTransform: anchorTransform, camera: camera, scratch: &scratch)
        weighTriangles(cam, scratch: &scratch)
        if blinking {
            maskMoved(xyz, scratch: &scratch)
        } else {
            for i in 0..<(3 * n) { restSum[i] += Double(xyz[i]) }
            restCount += 1
        }
        addNormals(cam, camera: camera, weights: scratch.weight)
        // Depth of the nearest front-facing surface, one cell per 2 × 2 pixels (3 × 3 above 2048
        // wide): a quarter of the raster's work at 640 × 480, the colour as close (docs/ALGORITHMS.md).
        let pixelsPerCell = max(2, (camera.width + 1023) / 1024)
        let grid = SampleGrid(
            width: image.width, height: image.height, cellsPerPixel: 1 / Float(pixelsPerCell),
            depthWidth: (camera.width + pixelsPerCell - 1) / pixelsPerCell,
            undo: Self.undo(ambientIntensity: ambientIntensity, colorTemperature: colorTemperature))
        DepthRaster.draw(
            triangles: triangles, u: scratch.u, v: scratch.v, z: scratch.z, draw: scratch.front,
            cellsPerPixel: grid.cellsPerPixel, width: grid.depthWidth,
            height: (camera.height + pixelsPerCell - 1) / pixelsPerCell, depth: &scratch.depth)
        let painted = sample(image, grid: grid, scratch: &scratch)
        guard painted > 0 else { return false }
        let gain = frameGain(scratch: &scratch)
        if debugFusion {
            print("fusion: frame \(framesFused) painted \(painted) gain \(gain) blink \(blink) mean of \(meanCount)")
        }
        accumulate(gain: gain, scratch: &scratch)
        framesFused += 1
        return true
    }

    /// Adds the frame's samples (those of the triangles it paints) times `gain` into the sums,
    /// and clears them: `scratch.sample` is all zero between frames.
    mutating func accumulate(gain: SIMD4<Float>, scratch: inout Scratch) {
        let weight = scratch.weight, starts = triangleStart
        let start = starts.flat
        var acc = sum.flatMut
        var smp = scratch.sample.flatMut
        for t in 0..<(start.count - 1) where weight[t] > 0 {
            for e in Int(start[t])..<Int(start[t + 1]) where smp[e].w > 0 {
                acc[e] += smp[e] * gain
                smp[e] = .zero
            }
        }
    }

    /// The frame's vertices placed (at the running mean where they are within ``ownMotion`` of
    /// it, blending over to their own positions by twice that) and taken to the camera: their
    /// camera-space positions, returned, and their pixels and depths in `scratch`.
    func project(
        _ xyz: [Float], anchorTransform: [Double]?, camera: FrameCamera, scratch: inout Scratch
    ) -> [SIMD3<Float>] {
        let n = vertexCount
        // Face anchor → camera: inverse(camera.transform) · anchorTransform.
        let m = Self.faceToCamera(anchor: anchorTransform, camera: camera.transform)
        scratch.u.resize(n)
        scratch.v.resize(n)
        scratch.z.resize(n)
        let fx = Float(camera.fx), fy = Float(camera.fy), cx = Float(camera.cx), cy = Float(camera.cy)
        var cam = [SIMD3<Float>](repeating: .zero, count: n)
        let meanScale = meanCount > 0 ? 1 / Double(meanCount) : 0
        for i in 0..<n {
            var p = SIMD3<Double>(Double(xyz[3 * i]), Double(xyz[3 * i + 1]), Double(xyz[3 * i + 2]))
            if meanCount > 0 {
                let mean = SIMD3<Double>(meanSum[3 * i], meanSum[3 * i + 1], meanSum[3 * i + 2]) * meanScale
                let d = p - mean
                let len = Float(norm3(d))
                let t = min(1, max(0, (len - Self.ownMotion) / Self.ownMotion))
                let s = Double(t * t * (3 - 2 * t))
                p = mean + d * s
            }
            let c = m.0 * p.x + m.1 * p.y + m.2 * p.z + m.3
            let cf = SIMD3<Float>(c)
            cam[i] = cf
            let d = -cf.z
            scratch.z[i] = d
            scratch.u[i] = d > 1e-3 ? fx * cf.x / d + cx : -1e9
            scratch.v[i] = d > 1e-3 ? cy - fy * cf.y / d : -1e9
        }
        return cam
    }

    /// Per triangle (camera-space corners `cam`): whether it faces the camera, and its weight,
    /// cos² of the view angle × (0.4 m / distance)² (0 below ``minimumCosine``).
    func weighTriangles(_ cam: [SIMD3<Float>], scratch: inout Scratch) {
        let tcount = triangles.count / 3
        scratch.weight.resize(tcount)
        if scratch.front.count != tcount { scratch.front = [Bool](repeating: false, count: tcount) }
        for t in 0..<tcount {
            let a = cam[Int(triangles[3 * t])], b = cam[Int(triangles[3 * t + 1])], c = cam[Int(triangles[3 * t + 2])]
            let nrm = cross3f(b - a, c - a)
            let centre = (a + b + c) / 3
            let ln = (nrm * nrm).sum().squareRoot(), lc = (centre * centre).sum().squareRoot()
            var w: Float = 0
            var front = false
            if ln > 0, lc > 0, -centre.z > 1e-3, -a.z > 1e-3, -b.z > 1e-3, -c.z > 1e-3 {
                let cosine = -(nrm * centre).sum() / (ln * lc)
                front = cosine > 0
                if cosine > Self.minimumCosine {
                    let closeness = 0.16 / max(lc * lc, 1e-4)
                    w = cosine * cosine * closeness
                }
            }
            scratch.weight[t] = w
            scratch.front[t] = front
        }
    }

    /// A blinking frame: no paint on triangles whose vertices moved from the open-eyed mean.
    func maskMoved(_ xyz: [Float], scratch: inout Scratch) {
        let n = vertexCount
        if scratch.moved.count != n { scratch.moved = [Bool](repeating: false, count: n) }
        let k = 1 / Double(restCount)
        for i in 0..<n {
            let dx = Float(Double(xyz[3 * i]) - restSum[3 * i] * k)
            let dy = Float(Double(xyz[3 * i + 1]) - restSum[3 * i + 1] * k)
            let dz = Float(Double(xyz[3 * i + 2]) - restSum[3 * i + 2] * k)
            scratch.moved[i] = dx * dx + dy * dy + dz * dz > Self.blinkMotion * Self.blinkMotion
        }
        for t in 0..<(triangles.count / 3)
        where scratch.moved[Int(triangles[3 * t])] || scratch.moved[Int(triangles[3 * t + 1])]
            || scratch.moved[Int(triangles[3 * t + 2])]
        {
            scratch.weight[t] = 0
        }
    }

    /// Adds the painting triangles' world normals, by their weight, for the light
    /// (``Shading``; camera → world: camera.transform's 3×3).
    mutating func addNormals(_ cam: [SIMD3<Float>], camera: FrameCamera, weights: [Float]) {
        let ct = camera.transform
        let r0 = SIMD3<Float>(Float(ct[0]), Float(ct[1]), Float(ct[2]))
        let r1 = SIMD3<Float>(Float(ct[4]), Float(ct[5]), Float(ct[6]))
        let r2 = SIMD3<Float>(Float(ct[8]), Float(ct[9]), Float(ct[10]))
        for t in 0..<(triangles.count / 3) where weights[t] > 0 {
            let a = cam[Int(triangles[3 * t])], b = cam[Int(triangles[3 * t + 1])], c = cam[Int(triangles[3 * t + 2])]
            let nc = cross3f(b - a, c - a)
            let nw = r0 * nc.x + r1 * nc.y + r2 * nc.z
            let len = (nw * nw).sum().squareRoot()
            if len > 0 { normalSum[t] += nw * (weights[t] / len) }
        }
    }

    /// Exposure and white balance undone (linear light, per channel).
    static func undo(ambientIntensity: Double?, colorTemperature: Double?) -> SIMD4<Float> {
        let bb = blackbody(colorTemperature ?? 6500)
        let exposure = max(ambientIntensity ?? 1000, 1) / 1000
        return SIMD4<Float>(
            Float(1 / (exposure * bb.x)), Float(1 / (exposure * bb.y)), Float(1 / (exposure * bb.z)), 1)
    }

    /// The image's size, the depth grid's, and the light to undo: what sampling a texel needs
    /// besides the buffers.
    struct SampleGrid {
        var width: Int, height: Int
        var cellsPerPixel: Float
        var depthWidth: Int
        var undo: SIMD4<Float>
    }

    /// Every texel's sample of `image` into `scratch.sample` (zero where it is not painted);
    /// returns how many are painted. Only the triangles the frame paints are visited.
    func sample(_ image: CameraImage, grid: SampleGrid, scratch: inout Scratch) -> Int {
        let count = texel.count
        // All zero between frames (``accumulate(gain:scratch:)`` clears what a frame painted).
        if scratch.sample.count != count { scratch.sample = [SIMD4<Float>](repeating: .zero, count: count) }
        let frame = FrameBuffers(
            pixels: image.rgb, toLinear: Self.toLinear, taps: Self.tapWeights, triangles: triangles,
            u: scratch.u, v: scratch.v, z: scratch.z, weight: scratch.weight, depth: scratch.depth)
        return sampleTriangles(frame, grid, &scratch.sample)
    }

    /// The texels of every triangle with a weight, sampled into `out`; returns how many are painted.
    func sampleTriangles(_ frame: FrameBuffers, _ grid: SampleGrid, _ samples: inout [SIMD4<Float>]) -> Int {
        var painted = 0
        var out = samples.flatMut
        let weight = frame.weight.flat, triangles = frame.triangles.flat
        let u = frame.u.flat, v = frame.v.flat, z = frame.z.flat
        let start = triangleStart.flat
        let bary = bary.flat
        for t in 0..<(start.count - 1) where weight[t] > 0 {
            let lo = Int(start[t]), hi = Int(start[t + 1])
            guard lo < hi else { continue }
            let a = Int(triangles[3 * t]), b = Int(triangles[3 * t + 1])
            let c = Int(triangles[3 * t + 2])
            let corners = Corners(
                u: SIMD3(u[a], u[b], u[c]), v: SIMD3(v[a], v[b], v[c]),
                z: SIMD3(z[a], z[b], z[c]), weight: weight[t])
            for e in lo..<hi {
                let v = Self.sampleTexel(corners, bary: bary[e], frame, grid)
                out[e] = v
                if v.w > 0 { painted += 1 }
            }
        }
        return painted
    }

    /// One triangle's corners in a frame: pixels, depths, and its weight.
    struct Corners {
        var u: SIMD3<Float>, v: SIMD3<Float>, z: SIMD3<Float>
        var weight: Float
    }

    /// The arrays of one frame's sampling, gathered once per frame (each loop takes their spans).
    struct FrameBuffers {
        let pixels: [UInt8], toLinear: [Float], taps: [Float]
        let triangles: [UInt32]
        let u: [Float], v: [Float], z: [Float]
        let weight: [Float], depth: [Float]
    }

    /// One texel's sample (Σ tap · linear colour and Σ tap, times the light undone and the
    /// triangle's weight), zero when the texel is not painted: it is outside the image, hidden,
    /// or on a clipped pixel.
    @inline(__always)
    static func sampleTexel(_ k: Corners, bary q: SIMD2<Float>, _ f: FrameBuffers, _ g: SampleGrid) -> SIMD4<Float> {
        let q0 = 1 - q.x - q.y
        let x = q0 * k.u.x + q.x * k.u.y + q.y * k.u.z
        let y = q0 * k.v.x + q.x * k.v.y + q.y * k.v.z
        let d = q0 * k.z.x + q.x * k.z.y + q.y * k.z.z
        // Pixel centres at +0.5: bilinear between the four around.
        let sx = x - 0.5, sy = y - 0.5
        let w = g.width
        guard sx >= 0, sy >= 0, sx < Float(w - 1), sy < Float(g.height - 1) else { return .zero }
        let cell = Int(y * g.cellsPerPixel) &* g.depthWidth &+ Int(x * g.cellsPerPixel)
        guard d <= f.depth.flat[cell] + depthTolerance else { return .zero }
        let ix = Int(sx), iy = Int(sy)
        let fx = sx - Float(ix), fy = sy - Float(iy)
        let o = 3 &* (iy &* w &+ ix), o2 = o &+ 3 &* w
        let px = f.pixels.flat
        let r00 = px[o], g00b = px[o &+ 1], b00 = px[o &+ 2]
        let r10 = px[o &+ 3], g10b = px[o &+ 4], b10 = px[o &+ 5]
        let r01 = px[o2], g01b = px[o2 &+ 1], b01 = px[o2 &+ 2]
        let r11 = px[o2 &+ 3], g11b = px[o2 &+ 4], b11 = px[o2 &+ 5]
        // A clipped pixel says nothing of the skin.
        let brightest = max(
            max(max(r00, g00b, b00), max(r10, g10b, b10)), max(max(r01, g01b, b01), max(r11, g11b, b11)))
        guard Float(brightest) < clipLevel else { return .zero }
        // Shift and add: each of the four pixels around the point counts by a narrow Gaussian of
        // its distance (σ = tapSigma px), normalised over all frames, not per frame: frames that
        // saw the point at different sub-pixel offsets resolve detail finer than bilinear
        // sampling would.
        let gi = Int(fx * 255), gj = Int(fy * 255)
        let taps = f.taps.flat
        let gx0 = taps[gi], gx1 = taps[255 &- gi]
        let gy0 = taps[gj], gy1 = taps[255 &- gj]
        let g00 = gx0 * gy0, g10 = gx1 * gy0, g01 = gx0 * gy1, g11 = gx1 * gy1
        let lut = f.toLinear.flat
        let c00 = SIMD3(lut[Int(r00)], lut[Int(g00b)], lut[Int(b00)])
        let c10 = SIMD3(lut[Int(r10)], lut[Int(g10b)], lut[Int(b10)])
        let c01 = SIMD3(lut[Int(r01)], lut[Int(g01b)], lut[Int(b01)])
        let c11 = SIMD3(lut[Int(r11)], lut[Int(g11b)], lut[Int(b11)])
        let colour = c00 * g00 + c10 * g10 + c01 * g01 + c11 * g11
        return SIMD4(colour, g00 + g10 + g01 + g11) * g.undo * k.weight
    }

    /// A robust gain per channel: the median ratio of the running mean to this frame's colour
    /// over the texels both saw (about 4 000, evenly spread), clamped to 1/1.5…1.5; 1 for the
    /// first frame or with fewer than 64 such texels.
    func frameGain(scratch: inout Scratch) -> SIMD4<Float> {
        var gain = SIMD4<Float>(1, 1, 1, 1)
        guard framesFused > 0 else { return gain }
        let count = texel.count
        for ch in 0..<3 {
            scratch.ratios.removeAll(keepingCapacity: true)
            for i in stride(from: 0, to: count, by: max(1, count / 4000)) {
                let e = Int(inTexelOrder[i])
                guard scratch.sample[e].w > 0 && sum[e].w > 0 else { continue }
                let mine = scratch.sample[e][ch] / scratch.sample[e].w
                let mean = sum[e][ch] / sum[e].w
                if mine > 1e-3 { scratch.ratios.append(mean / mine) }
            }
            if scratch.ratios.count >= 64 {
                gain[ch] = min(1.5, max(1 / 1.5, Self.median(&scratch.ratios)))
            }
        }
        return gain
    }

    /// The median of `values` (reordered).
    static func median(_ values: inout [Float]) -> Float {
        // Hoare's selection: the element of rank count / 2.
        let k = values.count / 2
        var lo = 0, hi = values.count - 1
        while lo < hi {
            let pivot = values[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return values[k]
    }

    /// inverse(camera) · anchor as three columns and a translation (double precision).
    static func faceToCamera(anchor: [Double]?, camera: [Double])
        -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    {
        let a = anchor ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        func col(_ m: [Double], _ j: Int) -> SIMD3<Double> { SIMD3(m[4 * j], m[4 * j + 1], m[4 * j + 2]) }
        // Camera's 3×3 part inverted (general: a camera transform may carry a scale), then its translation.
        let c0 = col(camera, 0), c1 = col(camera, 1), c2 = col(camera, 2), ct = col(camera, 3)
        let det = dot3(c0, cross3(c1, c2))
        let r0 = cross3(c1, c2) / det, r1 = cross3(c2, c0) / det, r2 = cross3(c0, c1) / det  // rows of the inverse
        func apply(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(dot3(r0, v), dot3(r1, v), dot3(r2, v)) }
        return (apply(col(a, 0)), apply(col(a, 1)), apply(col(a, 2)), apply(col(a, 3) - ct))
    }

    // MARK: finishing

    /// The texture so far: each covered texel's weighted mean in sRGB, the covered texels no
    /// frame saw filled from their neighbours (counted), and every texel outside the triangles
    /// dilated from the nearest coloured ones (the seams do not show; the rest of the square
    /// takes the nearest colour). Nil before any frame was fused.
    public func finish() -> FusedTexture? {
        guard framesFused > 0 else { return nil }
        let total = size * size
        var colour = [SIMD3<Float>](repeating: .zero, count: total)
        var known = [Bool](repeating: false, count: total)
        var covered = [Bool](repeating: false, count: total)
        for e in 0..<texel.count {
            let k = Int(texel[e])
            covered[k] = true
            let s = sum[e]
            if s.w > 0 {
                colour[k] = SIMD3(s.x, s.y, s.z) / s.w
                known[k] = true
            }
        }
        let shading = Shading.fit(fusion: self, colour: colour, known: known)
        shading?.undo(fusion: self, colour: &colour, known: known)
        let filled = TextureFill.fill(&colour, known: &known, covered: covered, size: size)
        var pixels = [UInt8](repeating: 255, count: 4 * total)
        let steps = Self.srgbSteps, start = Self.srgbStart
        for k in 0..<total {
            let c = colour[k]
            pixels[4 * k] = Self.srgbByte(c.x, steps: steps, start: start)
            pixels[4 * k + 1] = Self.srgbByte(c.y, steps: steps, start: start)
            pixels[4 * k + 2] = Self.srgbByte(c.z, steps: steps, start: start)
        }
        return FusedTexture(
            image: RGBAImage(uncheckedWidth: size, height: size, pixels: pixels), uvs: uvs,
            coveredTexels: texel.count, filledTexels: filled, framesFused: framesFused, madeUVs: madeUVs,
            lightDirection: shading?.direction, lightShare: shading?.share ?? 0)
    }

    /// `srgbByte(c, steps:)` is ``srgbByte(_:)`` without a `pow` per channel: entry b is the
    /// least Float (≥ 0) that ``srgbByte(_:)`` takes to b or above (b = 1…255; entry 0 is 0),
    /// found by bisection over the Floats' bit patterns (ordered like the values when positive).
    static let srgbSteps: [Float] = (0...255).map { b in
        guard b > 0 else { return 0 }
        var lo: UInt32 = 0, hi = Float(1).bitPattern  // srgbByte(lo) < b ≤ srgbByte(hi)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if srgbByte(Float(bitPattern: mid)) >= b { hi = mid } else { lo = mid }
        }
        return Float(bitPattern: hi)
    }

    /// Per 1/4096 of 0…1: the byte ``srgbByte(_:)`` gives the bucket's lower end (where to start
    /// counting ``srgbSteps``).
    static let srgbStart: [UInt8] = (0...4096).map { i in
        var b = 0
        while b < 255 && srgbSteps[b + 1] <= Float(i) / 4096 { b += 1 }
        return UInt8(b)
    }

    /// ``srgbByte(_:)`` from ``srgbSteps``: the bucket's first byte, then the steps up to `c`.
    @inline(__always)
    static func srgbByte(_ c: Float, steps: [Float], start: [UInt8]) -> UInt8 {
        guard c.isFinite, c > 0 else { return 0 }
        guard c < 1 else { return 255 }
        var b = Int(start[Int(c * 4096)])
        while b < 255 && steps[b + 1] <= c { b += 1 }
        return UInt8(b)
    }

    static func srgbByte(_ c: Float) -> UInt8 {
        let x = Double(min(1, max(0, c.isFinite ? c : 0)))
        let s = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (s * 255).rounded())))
    }
}

let debugFusion = getenv("FACESCAN_DEBUG_FUSION") != nil

@inline(__always)
func cross3f(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

extension Array where Element == Float {
    mutating func resize(_ n: Int) {
        if count != n { self = [Float](repeating: 0, count: n) }
    }
}

/// Filling a texture's unknown texels from the known ones: breadth first, layer by layer, each
/// unknown texel taking the mean of its already known 8-neighbours (deterministic order).
enum TextureFill {
    /// Fills every texel of `colour` (`size²`) that `known` does not mark; returns how many of
    /// the `covered` texels were filled.
    static func fill(_ colour: inout [SIMD3<Float>], known: inout [Bool], covered: [Bool], size: Int) -> Int {
        var frontier: [Int32] = []
        var queued = known
        func neighbours(_ k: Int, _ body: (Int) -> Void) {
            let x = k % size, y = k / size
            for dy in -1...1 {
                let yy = y + dy
                guard yy >= 0, yy < size else { continue }
                for dx in -1...1 where dx != 0 || dy != 0 {
                    let xx = x + dx
                    guard xx >= 0, xx < size else { continue }
                    body(yy * size + xx)
                }
            }
        }
        for k in 0..<(size * size) where !known[k] {
            var touches = false
            neighbours(k) { if known[$0] { touches = true } }
            if touches {
                frontier.append(Int32(k))
                queued[k] = true
            }
        }
        if frontier.isEmpty {
            // Nothing known: a neutral grey everywhere.
            let unknownCovered = (0..<covered.count).filter { covered[$0] && !known[$0] }.count
            for k in 0..<colour.count where !known[k] { colour[k] = SIMD3(repeating: 0.2) }
            return unknownCovered
        }
        var filled = 0
        var next: [Int32] = []
        while !frontier.isEmpty {
            // Colours of this layer from the known texels only, then all marked known together.
            var values = [SIMD3<Float>](repeating: .zero, count: frontier.count)
            for (i, k32) in frontier.enumerated() {
                let k = Int(k32)
                var s = SIMD3<Float>.zero
                var c: Float = 0
                neighbours(k) { j in
                    if known[j] {
                        s += colour[j]
                        c += 1
                    }
                }
                values[i] = c > 0 ? s / c : .zero
            }
            next.removeAll(keepingCapacity: true)
            for (i, k32) in frontier.enumerated() {
                let k = Int(k32)
                colour[k] = values[i]
                known[k] = true
                if covered[k] { filled += 1 }
            }
            for k32 in frontier {
                neighbours(Int(k32)) { j in
                    if !queued[j] {
                        queued[j] = true
                        next.append(Int32(j))
                    }
                }
            }
            swap(&frontier, &next)
        }
        return filled
    }
}
