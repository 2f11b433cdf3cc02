// The `api` fuzz target: FaceScanKit's public API driven the way an app could call it, with
// meshes, indices and options taken from the input bytes. Every call either returns or throws a
// FaceScanError; a trap, an out-of-bounds access (ASan) or a broken promise checked here is a
// crash. Sizes stay small (a few dozen vertices, thumbnails of at most 48 pixels) so that each
// input runs in milliseconds.

import FaceScanKit

/// Reads the fuzzer's bytes as a stream of small values (zero once exhausted).
struct ByteStream {
    var bytes: [UInt8]
    var at = 0

    mutating func byte() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let v = UInt64(byte()) | UInt64(byte()) << 8
        return range.lowerBound + Int(v % span)
    }

    /// Any Int, hostile values (negative, zero, huge) included.
    mutating func anyInt() -> Int {
        switch byte() % 8 {
        case 0: return 0
        case 1: return -Int(byte())
        case 2: return Int.max - Int(byte())
        case 3: return Int.min + Int(byte())
        default: return int(0...600)
        }
    }

    /// A float: small ordinary values mostly, sometimes NaN, ±infinity, huge or tiny.
    mutating func float() -> Float {
        switch byte() % 16 {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return .greatestFiniteMagnitude
        case 4: return .leastNonzeroMagnitude
        case 5: return 0
        default: return Float(Int(byte()) - 128) / 64 + Float(byte()) / 4096
        }
    }

    mutating func double() -> Double { Double(float()) }
}

func fuzzAPI(_ bytes: [UInt8]) {
    var s = ByteStream(bytes: bytes)
    let vertexCount = s.int(0...40)
    var positions: [SIMD3<Float>] = []
    let finiteOnly = s.byte() % 4 != 0
    for _ in 0..<vertexCount {
        var p = SIMD3(s.float(), s.float(), s.float())
        if finiteOnly && !(p.x.isFinite && p.y.isFinite && p.z.isFinite) { p = .zero }
        positions.append(p)
    }
    var triangles: [UInt32] = []
    let indexCount = s.int(0...120)
    let wild = s.byte() % 8 == 0
    for _ in 0..<indexCount {
        if wild {
            triangles.append(UInt32(truncatingIfNeeded: s.int(0...Int(UInt16.max)) * 65_537 + Int(s.byte())))
        } else {
            triangles.append(UInt32(s.int(0...max(0, vertexCount))))  // one past the end, sometimes
        }
    }
    let uvs: [SIMD2<Float>]? =
        s.byte() % 4 == 0 ? (0..<(vertexCount + s.int(0...1))).map { _ in SIMD2(s.float(), s.float()) } : nil

    // Topology and frames: the live-scan path.
    fuzzSession(&s, positions: positions, triangles: triangles)

    // The checked initializer: a mesh comes back only when every promise holds.
    let mesh: Mesh
    do {
        mesh = try Mesh(positions: positions, triangles: triangles, uvs: uvs)
    } catch {
        guard case .badInput = error else { preconditionFailure("unexpected error \(error)") }
        return
    }
    checkMesh(mesh)
    _ = mesh.triangle(at: s.anyInt())
    _ = mesh.faceNormal(s.anyInt())
    _ = MeshCheck(mesh)
    _ = MeshInspection(mesh)
    if let scaled = try? mesh.scaled(by: s.float()) { checkMesh(scaled) }

    // Encoders, and the native readers on their output.
    for format in MeshFormat.allCases {
        guard let out = try? mesh.encoded(as: format, unit: s.byte() % 2 == 0 ? .mm : .m) else { continue }
        if format.isNative, mesh.triangleCount > 0 { checkMesh(try? Mesh(bytes: out, format: format)) }
    }

    // Rendering with any options.
    var options = RenderOptions(size: s.int(1...48), supersample: s.int(1...3))
    switch s.byte() % 8 {
    case 0: options.size = s.anyInt()
    case 1: options.supersample = s.anyInt()
    case 2: options.fieldOfView = s.float()
    case 3: options.margin = s.float()
    case 4: options.threads = s.anyInt()
    default: break
    }
    let valid = (try? options.validate()) != nil
    if valid, options.size > 64 || options.supersample > 3 { options.size = 16 }
    if let image = try? Rasterizer.render(mesh, options: options) {
        precondition(image.pixels.count == image.width * image.height * 4, "image size")
        _ = image[s.anyInt(), s.anyInt()]
        _ = try? PNGEncoder.encode(image)
    }
    let values = (0..<(mesh.vertexCount + s.int(0...1))).map { _ in s.double() }
    var heatmapOptions = options
    if valid, s.byte() % 2 == 0 { heatmapOptions.size = Heatmap.minimumSize + s.int(0...8) }
    _ = try? Heatmap.render(
        mesh, valuesUm: values, maxUm: s.byte() % 2 == 0 ? nil : s.double(), options: heatmapOptions)
    let side = s.int(0...8)
    _ = try? RGBAImage(width: side, height: s.int(0...8), pixels: (0..<s.int(0...256)).map { _ in s.byte() })

    // Decimation and refinement to any target (small ones: a few hundred at most).
    let target = s.byte() % 4 == 0 ? s.anyInt() : s.int(0...200)
    if target <= 2_000, let out = try? Decimation.simplify(mesh, targetVertices: target, threads: s.anyInt()) {
        checkMesh(out)
        precondition(out.vertexCount == target, "simplify returned \(out.vertexCount) vertices for \(target)")
    }
    if mesh.triangleCount < 200 { checkMesh(Subdivision.midpoint(mesh)) }

    // Measuring.
    _ = SurfaceDistance.perVertex(mesh, to: mesh)
    _ = SurfaceDistance.symmetric(mesh, mesh, samplesPerMesh: s.int(-4...64))

    // Solids with any options (a short one: the shell is the slowest step).
    if s.byte() % 4 == 0, mesh.triangleCount <= 64 {
        let solid = SolidOptions(
            thickness: s.double(), base: s.byte() % 2 == 0, depth: s.double(),
            fit: s.byte() % 2 == 0 ? nil : SIMD3(s.double(), s.double(), s.double()))
        let count: Int? = s.byte() % 2 == 0 ? nil : s.int(0...300)
        if let out = try? Solidify.solid(mesh, options: solid, unitInMillimetres: s.double(), vertexCount: count) {
            checkMesh(out)
        }
        _ = Solidify.fillHoles(mesh)
    }
}

/// A session over the given topology, settings from the input (some hostile), a few frames of
/// the given positions (or wrong-sized ones), then `finish()`.
func fuzzSession(_ s: inout ByteStream, positions: [SIMD3<Float>], triangles: [UInt32]) {
    var settings = ScanSettings(maxFrames: s.int(1...4), targetVertices: s.int(4...60))
    switch s.byte() % 12 {
    case 0: settings.maxFrames = s.anyInt()
    case 1: settings.targetVertices = s.anyInt()
    case 2: settings.smoothing = s.anyInt() == 0 ? .auto : .passes(s.anyInt() &- 1)
    case 3: settings.scale = s.double()
    case 4: settings.gate.minDistance = s.double()
    case 5: settings.gate.maxDistance = s.double()
    case 6: settings.noiseLimit = s.double()
    case 7: settings.gate.minAmbientIntensity = s.double()
    case 8: settings.solid = SolidOptions(thickness: s.double(), depth: s.double())
    default: break
    }
    guard var session = try? FaceScanSession(topology: Topology(triangles: triangles), settings: settings) else {
        return
    }
    for k in 0..<s.int(0...3) {
        var xyz: [Float] = positions.flatMap { [$0.x, $0.y, $0.z] }
        if s.byte() % 8 == 0 { xyz.append(contentsOf: [0, 0, 0]) }
        let metadata = FrameMetadata(
            distance: s.byte() % 4 == 0 ? s.double() : 0.4, tracking: .normal,
            ambientIntensity: s.byte() % 4 == 0 ? s.double() : 1000)
        guard let verdict = try? session.add(Frame(index: k, xyz: xyz, metadata: metadata)) else { continue }
        precondition(verdict.acceptedFrames <= verdict.maxFrames, "accepted past the limit")
    }
    if settings.solid == nil, let result = try? session.finish() { checkMesh(result.mesh) }
}
