// Process a capture file: the whole recording in memory, one call, the mesh and report out.
//
//     swift run process-capture CAPTURE.json [OUTPUT-DIRECTORY]
import FaceScanKit
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: process-capture CAPTURE.json [OUTPUT-DIRECTORY]")
    exit(2)
}
let capturePath = arguments[1]
let outputDirectory = arguments.count > 2 ? arguments[2] : "."

// Reading the file is the app's business (a document picker, a download, a file): FaceScanKit
// takes the bytes.
guard let capture = FileManager.default.contents(atPath: capturePath) else {
    print("cannot read \(capturePath)")
    exit(1)
}

// The run's settings: here the defaults with a smaller mesh. Passing no settings uses the
// ones the capture itself carries, as `facescan process` does.
var settings = ScanSettings()
settings.targetVertices = 3000

do throws(FaceScanError) {
    let result = try FaceScan.process(capture: capture, settings: settings, name: capturePath)

    let frames = result.report.frames
    print("frames: \(frames.accepted) of \(frames.read) accepted")
    print("mesh: \(result.mesh.vertexCount) vertices, \(result.mesh.triangleCount) triangles")

    // Bytes for every format; writing them is a separate step.
    let stl = try result.mesh.encoded(as: .stl)
    let obj = try result.mesh.encoded(as: .obj)
    print("stl: \(stl.count) bytes, obj: \(obj.count) bytes")

    try result.mesh.write(to: outputDirectory + "/face.stl")
    let image = try Rasterizer.render(result.mesh, options: RenderOptions(size: 256))
    let png = try PNGEncoder.encode(image)
    FileManager.default.createFile(atPath: outputDirectory + "/face.png", contents: Data(png))
    print("wrote \(outputDirectory)/face.stl and face.png")
} catch .noAcceptedFrames(let failure) {
    // Carries the report so far: why every frame was rejected.
    let r = failure.report.frames.rejected
    print("no frame passed the gate; rejected for")
    print("distance \(r.distance), tracking \(r.tracking)")
    print("lighting \(r.lighting), expression \(r.expression)")
    exit(3)
} catch .badInput(let problem) {
    // File, frame and field of what breaks the format.
    print("bad capture: \(problem)")
    exit(2)
} catch {
    print("facescan: \(error)")
    exit(1)
}
