// The consumer: FaceScanKit through its public API only, as an app depending on it with
// `traits: []` (this package's manifest) uses it — no libpng, assimp or lib3mf. It prints one line
// per check; `ConsumerBuildTests` (part of `make test`) runs it, compares the lines and checks
// that the binary links none of the optional C libraries.
//
//     swift run consumer
import FaceScanKit
import Foundation

// A curved 12×12 patch in camera space (metres), standing in for ARKit's face geometry.
let n = 12
var triangles: [UInt32] = []
for y in 0..<(n - 1) {
    for x in 0..<(n - 1) {
        let a = UInt32(y * n + x), b = a + 1, c = a + UInt32(n), d = c + 1
        triangles += [a, b, c, c, b, d]
    }
}
func patch(_ wobble: Float) -> [SIMD3<Float>] {
    (0..<(n * n)).map { i in
        let u = Float(i % n) / Float(n - 1) - 0.5, v = Float(i / n) / Float(n - 1) - 0.5
        return SIMD3(u * 0.15, v * 0.2, 0.05 - (u * u + v * v) * 0.1 + wobble * Float((i * 7) % 5 - 2) * 1e-4)
    }
}
let good = FrameMetadata(distance: 0.4, tracking: .normal, ambientIntensity: 900, jawOpen: 0.05)
var settings = ScanSettings()
settings.maxFrames = 5
settings.targetVertices = 100

func check(_ ok: Bool, _ what: String) {
    print(ok ? what : "FAILED: " + what)
}

do throws(FaceScanError) {
    // Live: frames one at a time, a verdict for each.
    var session = try FaceScanSession(topology: Topology(triangles: triangles), settings: settings)
    var verdict = try session.add(
        Frame(positions: patch(0), metadata: FrameMetadata(distance: 0.1, tracking: .normal, ambientIntensity: 900)))
    print("too close: \(verdict.isAccepted ? "accepted" : "rejected"), \(verdict.instruction ?? "-")")
    verdict = try session.add(
        Frame(positions: patch(0), metadata: FrameMetadata(distance: 0.4, tracking: .normal, ambientIntensity: 50)))
    print("dark: \(verdict.isAccepted ? "accepted" : "rejected"), \(verdict.instruction ?? "-")")
    var k = 0
    while !verdict.isComplete {
        verdict = try session.add(Frame(positions: patch(Float(k)), metadata: good))
        k += 1
    }
    print("live: \(verdict.isComplete ? "complete" : "open") \(verdict.acceptedFrames)/\(verdict.maxFrames)")
    let live = try await session.finish()
    print("live mesh: \(live.mesh.vertexCount) vertices")

    // In memory: a capture document → mesh → bytes.
    func numbers(_ p: [SIMD3<Float>]) -> String { p.map { "\($0.x),\($0.y),\($0.z)" }.joined(separator: ",") }
    let frames = (0..<6).map { k in
        "{\"vertices\":[\(numbers(patch(Float(k))))],\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4,1],\"trackingState\":\"normal\",\"ambientIntensity\":900}"
    }
    let capture =
        "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[\(triangles.map(String.init).joined(separator: ","))]},\"frames\":[\(frames.joined(separator: ","))]}"
    let result = try FaceScan.process(capture: Array(capture.utf8), settings: settings)
    print("capture mesh: \(result.mesh.vertexCount) vertices")

    let stl = try result.mesh.encoded(as: .stl)
    check(stl.count == 84 + 50 * result.mesh.triangleCount, "stl: binary, triangles match")
    let back = try Mesh(bytes: try result.mesh.encoded(as: .obj), format: .obj)
    check(back.vertexCount == result.mesh.vertexCount, "obj: vertices match")
    let png = try PNGEncoder.encode(Rasterizer.render(result.mesh, options: RenderOptions(size: 64)))
    check(
        Array(png.prefix(8)) == PNGEncoder.signature && png[16..<24] == [0, 0, 0, 64, 0, 0, 0, 64],
        "png: signature, 64x64")
} catch {
    print("error: \(error)")
}

// The formats of the C libraries left out say so, as a typed error.
let mesh = try! Mesh(positions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], triangles: [0, 1, 2])

// Hostile values through public entry points: a typed error each, no crash.
func outcome(_ body: () throws(FaceScanError) -> Void) -> String {
    do throws(FaceScanError) {
        try body()
        return "accepted"
    } catch .badInput(let e) {
        return "badInput \(e.field ?? "-")"
    } catch .badSetting(let e) {
        return "badSetting \(e.field ?? "-")"
    } catch {
        return "\(error)"
    }
}
print(
    "index past the end: "
        + outcome { () throws(FaceScanError) in _ = try Mesh(positions: mesh.positions, triangles: [0, 1, 3]) })
print(
    "huge index: "
        + outcome { () throws(FaceScanError) in _ = try Mesh(positions: mesh.positions, triangles: [0, 1, 400_000_000])
        })
print(
    "nan position: "
        + outcome { () throws(FaceScanError) in
            _ = try Mesh(positions: [SIMD3(.nan, 0, 0)] + mesh.positions, triangles: [1, 2, 3])
        })
var options = RenderOptions(size: 16)
options.size = 0
print("size 0: " + outcome { () throws(FaceScanError) in _ = try mesh.thumbnail(options) })
options = RenderOptions(size: 16)
options.supersample = 0
print("supersample 0: " + outcome { () throws(FaceScanError) in _ = try Rasterizer.render(mesh, options: options) })
print("target -1: " + outcome { () throws(FaceScanError) in _ = try Decimation.simplify(mesh, targetVertices: -1) })
var hostile = ScanSettings()
hostile.gate.maxDistance = .nan
print(
    "gate nan: "
        + outcome { () throws(FaceScanError) in
            _ = try FaceScanSession(topology: Topology(triangles: triangles), settings: hostile)
        })
hostile = ScanSettings(solid: SolidOptions(thickness: -2))
print(
    "thickness -2: "
        + outcome { () throws(FaceScanError) in
            _ = try FaceScanSession(topology: Topology(triangles: triangles), settings: hostile)
        })
print(
    "int16 topology: " + outcome { () throws(FaceScanError) in _ = try Topology(triangleIndices: [Int16(0), 1, -2]) })
let localized =
    (FaceScanError.badSetting(UsageError("ScanSettings.maxFrames must be at least 1, found 0")) as any Error)
    .localizedDescription
print("localized: " + localized)
for format in [MeshFormat.ply, .threeMF] {
    do throws(FaceScanError) {
        _ = try mesh.encoded(as: format)
        print("\(format.fileExtension): written")
    } catch .unavailable {
        print("\(format.fileExtension): unavailable")
    } catch {
        print("\(format.fileExtension): \(error)")
    }
}
do throws(FaceScanError) {
    _ = try PNGEncoder.decode(
        PNGEncoder.encode(Rasterizer.render(mesh, options: RenderOptions(size: 8))), name: "t.png")
    print("png decode: decoded")
} catch .unavailable {
    print("png decode: unavailable")
} catch {
    print("png decode: \(error)")
}

// Settings an app keeps as JSON.
var kept = ScanSettings(targetVertices: 1234, solid: SolidOptions(thickness: 3))
kept.formats = [.stl, .png]
let json = try! JSONEncoder().encode(kept)
print(
    try! JSONDecoder().decode(ScanSettings.self, from: json) == kept
        ? "settings json: round trip" : "settings json: differs")

// finish() as an async call: cancelled at once, or watched to the end.
var solidSettings = settings
solidSettings.solid = SolidOptions(thickness: 2, depth: 20)
var scan = try! FaceScanSession(topology: Topology(triangles: triangles), settings: solidSettings)
for k in 0..<5 { _ = try! scan.add(Frame(positions: patch(Float(k)), metadata: good)) }
let frozen = scan
let work = Task { () async -> FaceScanError? in
    do throws(FaceScanError) {
        _ = try await frozen.finish()
        return nil
    } catch {
        return error
    }
}
try? await Task.sleep(nanoseconds: 20_000_000)
let clock = ContinuousClock()
let cancelledAt = clock.now
work.cancel()
let cancelled = await work.value
print(cancelled == .cancelled ? "cancel: cancelled" : "cancel: \(String(describing: cancelled))")
print("cancel took \(clock.now - cancelledAt)")
var plain = try! FaceScanSession(topology: Topology(triangles: triangles), settings: settings)
for k in 0..<5 { _ = try! plain.add(Frame(positions: patch(Float(k)), metadata: good)) }
let stages = try? await plain.finish { _ in }
print(stages != nil ? "progress: done" : "progress: failed")
