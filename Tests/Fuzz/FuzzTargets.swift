// libFuzzer targets over every reader of untrusted bytes, built from the package's own
// FaceScanKit target (product facescan-fuzz; scripts/fuzz-reader builds it with
// -sanitize=fuzzer,address and runs it). Only FaceScanKit's public API is used.
//
// Thrown errors are the expected outcome for bad input and are ignored; anything else (a trap, an
// ASan report, a broken invariant checked below) is a crash.

import FaceScanKit

#if canImport(Glibc)
import Glibc
#endif

/// The fuzz targets, by the name `FACESCAN_FUZZ_TARGET` (or the driver's first argument) gives.
enum FuzzTarget: String, CaseIterable {
    /// The capture reader: a regular file with every frame parsed, then a pipe on standard input
    /// with one frame parsed and the rest skipped (frames-first documents are spooled).
    case capture
    /// The `settings` object, inside an otherwise valid capture header.
    case settings
    /// facescan's OBJ reader.
    case obj
    /// facescan's STL reader on ASCII text (`solid` prepended when missing).
    case stlASCII = "stl-ascii"
    /// facescan's STL reader on binary STL (the facet count fixed to match the length).
    case stlBinary = "stl-binary"
    /// assimp behind facescan's checks: the first byte picks PLY, OFF or OBJ, the rest is the file.
    case assimp
    /// The public API as an app calls it: meshes, indices and options from the bytes
    /// (`FuzzAPI.swift`).
    case api
    /// The solid step on small random and degenerate surfaces (`FuzzSolid.swift`).
    case solid

    func run(_ data: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(data)
        switch self {
        case .capture: fuzzCapture(bytes)
        case .settings: fuzzSettings(bytes)
        case .obj: checkMesh(try? Mesh.parse(bytes, format: .obj, name: "fuzz.obj"))
        case .stlASCII:
            let text = bytes.starts(with: Array("solid".utf8)) ? bytes : Array("solid ".utf8) + bytes
            checkMesh(try? Mesh.parse(text, format: .stl, name: "fuzz.stl"))
        case .stlBinary:
            // 80-byte header, the count that matches the length, then whole 50-byte facets.
            let facets = bytes.count / 50
            var b = [UInt8](repeating: 0x20, count: 80)
            withUnsafeBytes(of: UInt32(facets).littleEndian) { b += $0 }
            b += bytes.prefix(50 * facets)
            checkMesh(try? Mesh.parseSTL(b, name: "fuzz.stl"))
        case .assimp:
            guard let first = bytes.first else { return }
            let hint = ["ply", "off", "obj"][Int(first) % 3]
            checkMesh(try? AssimpIO.parse(Array(bytes.dropFirst()), formatHint: hint, name: "fuzz.\(hint)"))
        case .api: fuzzAPI(bytes)
        case .solid: fuzzSolid(bytes)
        }
    }
}

/// What every mesh a reader returns promises: indices in range, finite coordinates, per-vertex UVs.
func checkMesh(_ mesh: Mesh?) {
    guard let m = mesh else { return }
    let n = m.vertexCount
    precondition(m.triangles.count % 3 == 0, "triangle index count")
    precondition(m.triangles.allSatisfy { Int($0) < n }, "index out of range accepted")
    precondition(
        m.positions.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "non-finite coordinate accepted")
    if let uv = m.uvs { precondition(uv.count == n, "uv count") }
    _ = m.vertexNormals()
}

/// A file in /dev/shm (or /tmp) per process holding the current input.
let inputPath: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/facescan-fuzz-\(getpid()).json"
}()

func writeInput(_ bytes: [UInt8]) {
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot write \(inputPath)")
    precondition(AtomicFile.writeAll(bytes, to: fd) == nil)
    close(fd)
}

/// Checks what a successful read promises (FORMAT.md).
func checkFrame(_ reader: CaptureReader, _ frame: Frame) {
    guard let n = reader.vertexCount else { return }
    precondition(frame.xyz.count == 3 * n, "frame has \(frame.xyz.count) coordinates, vertex count \(n)")
    precondition(frame.xyz.allSatisfy { $0.isFinite }, "non-finite coordinate accepted")
    if let d = frame.metadata.distance { precondition(d.isFinite && d >= 0, "bad distance \(d)") }
    if let a = frame.metadata.ambientIntensity { precondition(a.isFinite && a >= 0, "bad light \(a)") }
    for v in [
        frame.metadata.jawOpen, frame.metadata.mouthSmileLeft, frame.metadata.mouthSmileRight,
        frame.metadata.browInnerUp,
    ] {
        if let v { precondition(v >= 0 && v <= 1, "blend shape \(v)") }
    }
    if let t = reader.topology {
        precondition(!t.triangles.isEmpty && t.triangles.count % 3 == 0, "bad triangle count")
        precondition(t.triangles.allSatisfy { Int($0) < n }, "triangle index out of range accepted")
        if let uv = t.textureCoordinates { precondition(uv.count == 2 * n, "uv count") }
    }
}

/// A frame's camera image: decoded (JPEG through libturbojpeg, PNG through libpng) as the
/// pipeline decodes it, or refused; a decoded image has the camera's size.
func checkImage(_ frame: Frame) {
    guard let bytes = frame.encodedImage else { return }
    guard let camera = frame.camera else { preconditionFailure("image without camera accepted") }
    precondition(camera.fx > 0 && camera.fy > 0, "camera without focal length accepted")
    if let image = try? ImageDecoder.decode(bytes, camera: camera, file: "fuzz", frame: frame.index) {
        precondition(image.width == camera.width && image.height == camera.height, "image size not the camera's")
        precondition(image.rgb.count == 3 * image.width * image.height, "image pixel count")
    }
}

func readCapture(_ path: String, maxFrames: Int) {
    do {
        let reader = try CaptureReader(path: path)
        try reader.readHeader()
        var frame = Frame()
        var n = 0
        while n < maxFrames, try reader.nextFrame(&frame) {
            precondition(frame.index == n, "frame index \(frame.index), expected \(n)")
            checkFrame(reader, frame)
            checkImage(frame)
            n += 1
        }
        _ = try reader.skipRemainingFrames()
        try reader.finish()
        if n > 0 { precondition(reader.topology != nil, "frames without topology") }
    } catch {
        // Bad input: expected.
    }
}

func fuzzCapture(_ bytes: [UInt8]) {
    writeInput(bytes)
    readCapture(inputPath, maxFrames: Int.max)
    // A pipe on standard input (inputs that fit the pipe buffer).
    guard bytes.count <= 60_000 else { return }
    var p: [Int32] = [0, 0]
    precondition(pipe(&p) == 0)
    precondition(AtomicFile.writeAll(bytes, to: p[1]) == nil)
    close(p[1])
    let saved = dup(0)
    dup2(p[0], 0)
    close(p[0])
    readCapture("-", maxFrames: 1)
    dup2(saved, 0)
    close(saved)
}

/// A 3-vertex capture whose `settings` value is the input, with one frame.
func fuzzSettings(_ bytes: [UInt8]) {
    let head = Array(
        #"{"format":"facescan-capture","version":1,"topology":{"triangleIndices":[0,1,2]},"settings":"#.utf8)
    let tail = Array(#","frames":[{"vertices":[0,0,-0.4,0.1,0,-0.4,0,0.1,-0.4]}]}"#.utf8)
    writeInput(head + bytes + tail)
    do {
        let reader = try CaptureReader(path: inputPath)
        try reader.readHeader()
        // The settings as a run validates them: the one check (ScanSettings.check) refuses what is
        // out of range, so what comes back is in range.
        let raw = try CaptureSettings(reader.settings)
        let s = try ScanSettings.validated(options: PipelineOptions(), capture: raw, file: inputPath)
        precondition(s.targetVertices >= 4, "target \(s.targetVertices)")
        precondition(s.scale.isFinite && s.scale > 0 && s.scale <= ScanSettings.maximumScale, "scale \(s.scale)")
        var frame = Frame()
        while try reader.nextFrame(&frame) { checkFrame(reader, frame) }
        try reader.finish()
    } catch {
        // Bad input: expected.
    }
}

/// The target this process fuzzes: `FACESCAN_FUZZ_TARGET` (default `capture`).
let selectedTarget: FuzzTarget = {
    let name = getenv("FACESCAN_FUZZ_TARGET").map { String(cString: $0) } ?? "capture"
    guard let t = FuzzTarget(rawValue: name) else {
        _ = AtomicFile.writeAll(
            Array(
                "facescan-fuzz: unknown target '\(name)' (one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n"
                    .utf8), to: 2)
        exit(2)
    }
    return t
}()

/// One input for the selected target (libFuzzer's callback).
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}
