// Live scan: frames arrive one at a time, as an app receives them from face tracking (ARKit's
// ARFaceAnchor updates, about 60 a second); each gets a verdict at once, and the scan finishes
// when enough frames were accepted.
//
//     swift run live-scan
import FaceScanKit
import Foundation

// MARK: What the app receives

/// One face-tracking update as an app holds it. In an ARKit app these come from the anchor:
/// `anchor.geometry.vertices` (face-anchor space, metres), the anchor's distance to the camera,
/// `frame.lightEstimate?.ambientIntensity`, `frame.camera.trackingState` and
/// `anchor.blendShapes`.
struct FaceUpdate {
    var vertices: [SIMD3<Float>]
    var distanceToCamera: Float
    var ambientIntensity: Float
    var trackingIsNormal: Bool
    var jawOpen: Float
    var smile: Float
}

/// The update as FaceScanKit's frame: positions and the facts the quality gate judges.
func frame(from update: FaceUpdate) -> Frame {
    Frame(
        positions: update.vertices,
        metadata: FrameMetadata(
            distance: Double(update.distanceToCamera),
            tracking: update.trackingIsNormal ? .normal : .limited,
            ambientIntensity: Double(update.ambientIntensity),
            jawOpen: Double(update.jawOpen),
            mouthSmileLeft: Double(update.smile), mouthSmileRight: Double(update.smile)))
}

// MARK: A stand-in for the camera

/// The face mesh's triangles never change during a session (ARKit: `anchor.geometry.triangleIndices`).
/// Here: a 24 × 32 grid over a half-ellipsoid, 15 × 20 cm, with the ordering a face mesh has.
let columns = 24, rows = 32
var triangles: [UInt32] = []
for y in 0..<(rows - 1) {
    for x in 0..<(columns - 1) {
        let a = UInt32(y * columns + x), b = a + 1, c = a + UInt32(columns), d = c + 1
        triangles += [a, c, b, b, c, d]
    }
}

/// Update `k` of a scripted session: the user starts too close, in a dark corner, smiles once,
/// then holds still; each update's vertices carry a little sensor noise.
func update(_ k: Int) -> FaceUpdate {
    var noise = UInt64(k + 1) &* 0x9E37_79B9_7F4A_7C15
    let vertices = (0..<(columns * rows)).map { i -> SIMD3<Float> in
        noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let jitter = Float(Int(noise >> 40) % 2001 - 1000) * 3e-7  // ±0.3 mm
        let u = Float(i % columns) / Float(columns - 1) * 2 - 1,
            v = Float(i / columns) / Float(rows - 1) * 2 - 1
        let depth = max(0, 1 - u * u - v * v * 0.9).squareRoot()
        return SIMD3(u * 0.075, v * 0.1, depth * 0.06 + jitter)
    }
    return FaceUpdate(
        vertices: vertices,
        distanceToCamera: k < 3 ? 0.22 : 0.4,
        ambientIntensity: (3..<5).contains(k) ? 120 : 900,
        trackingIsNormal: true,
        jawOpen: 0.05,
        smile: k == 6 ? 0.8 : 0.1)
}

// MARK: The session

var settings = ScanSettings()
settings.maxFrames = 20  // accepted frames that complete the scan
settings.targetVertices = 500  // exact vertex count of the output mesh

do throws(FaceScanError) {
    var session = try FaceScanSession(topology: Topology(triangles: triangles), settings: settings)
    var k = 0
    var lastInstruction: String?
    while true {
        let verdict = try session.add(frame(from: update(k)))
        k += 1
        // What the app shows: the instruction while frames are rejected, progress otherwise.
        if let instruction = verdict.instruction, instruction != lastInstruction {
            print("frame \(verdict.frameIndex): \(instruction)")
        }
        lastInstruction = verdict.instruction
        if !verdict.newOutliers.isEmpty {
            print("frames \(verdict.newOutliers) left out of the average")
        }
        if verdict.isAccepted && verdict.acceptedFrames % 5 == 0 {
            print("progress \(Int(verdict.progress * 100)) %")
        }
        if verdict.isComplete { break }
    }
    let target = 50e-6  // 50 µm
    if let se = session.medianStandardError, let more = session.framesNeeded(forMedianStandardError: target) {
        if more > 0 {
            print("hold still — \(more) more frames for \(Int(target * 1e6)) µm (now \(Int(se * 1e6)) µm)")
        } else {
            print("\(Int(se * 1e6)) µm: sharp enough, you can finish")
        }
    }
    let result = try session.finish()
    print("scan complete after \(k) frames: \(result.report.frames.accepted) accepted")
    print("mesh: \(result.mesh.vertexCount) vertices, \(result.mesh.triangleCount) triangles")
    let stl = try result.mesh.encoded(as: .stl)
    print("stl: \(stl.count) bytes")
} catch {
    print("facescan: \(error)")
    exit(1)
}
