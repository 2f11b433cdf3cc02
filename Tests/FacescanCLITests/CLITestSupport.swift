import Foundation

/// The package root (two levels above this file's folder).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The built `facescan` binary of this test run.
let facescanBinary: String = {
    if let env = ProcessInfo.processInfo.environment["FACESCAN_BIN"] { return env }
    let candidates = [
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("facescan").path,
        packageRoot + "/.build/debug/facescan",
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}()

/// The release binary when `make test` built it (solid parts take seconds in a debug build),
/// else ``facescanBinary``; FACESCAN_BIN names another.
let fastFacescanBinary: String = {
    if ProcessInfo.processInfo.environment["FACESCAN_BIN"] != nil { return facescanBinary }
    let release = packageRoot + "/.build/release/facescan"
    return FileManager.default.isExecutableFile(atPath: release) ? release : facescanBinary
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
}

/// Runs the facescan binary with `args`, optionally feeding `stdin` bytes.
func runFacescan(_ args: [String], stdin: Data? = nil, cwd: String? = nil) throws -> RunResult {
    let r = try runFacescanBytes(args, stdin: stdin, cwd: cwd)
    return RunResult(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: r.stderr)
}

/// ``runFacescan(_:stdin:cwd:)`` with standard output as bytes (binary formats).
func runFacescanBytes(_ args: [String], stdin: Data? = nil, cwd: String? = nil) throws -> (
    status: Int32, stdout: Data, stderr: String
) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: facescanBinary)
    p.arguments = args
    if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let inPipe = Pipe()
    p.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
    try p.run()
    if let stdin {
        let h = inPipe.fileHandleForWriting
        DispatchQueue.global().async {
            try? h.write(contentsOf: stdin)
            try? h.close()
        }
    }
    // Read both pipes concurrently so a full pipe never blocks the child.
    nonisolated(unsafe) var errData = Data()
    let g = DispatchGroup()
    g.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        g.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    g.wait()
    p.waitUntilExit()
    return (p.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
}

/// This test process's scratch directory, removed with everything in it when the process exits
/// (each test's directory is one level inside, so a test may delete its own).
let cliScratchRoot: String = {
    let root = FileManager.default.temporaryDirectory.path + "/facescan-cli-\(getpid())"
    try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: cliScratchRoot) }
    return root
}()

func tempDir() -> String {
    let dir = cliScratchRoot + "/\(UInt64.random(in: 0...UInt64.max))"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// The sample captures under samples/: (directory, capture file).
func sampleCaptures() -> [(dir: String, capture: String)] {
    let root = packageRoot + "/samples"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted() ?? []
    return names.compactMap { name in
        let dir = root + "/" + name
        for file in ["capture.json", "capture.ndjson"] where FileManager.default.fileExists(atPath: dir + "/" + file) {
            return (dir, dir + "/" + file)
        }
        return nil
    }
}

/// A small capture (a curved 12×12 grid patch) with chosen frame metadata, as JSON text.
func smallCapture(frames: [String]) -> String {
    let n = 12
    var tris: [Int] = []
    for y in 0..<(n - 1) {
        for x in 0..<(n - 1) {
            let a = y * n + x, b = a + 1, c = a + n, d = c + 1
            tris += [a, b, c, c, b, d]
        }
    }
    var xyz: [String] = []
    for y in 0..<n {
        for x in 0..<n {
            let u = Double(x) / Double(n - 1) - 0.5, v = Double(y) / Double(n - 1) - 0.5
            xyz += ["\(u * 0.15)", "\(v * 0.2)", "\(0.05 - (u * u + v * v) * 0.1)"]
        }
    }
    let vertices = "\"vertices\":[" + xyz.joined(separator: ",") + "]"
    let fr = frames.map { "{" + vertices + ($0.isEmpty ? "" : "," + $0) + "}" }
    return
        "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[\(tris.map(String.init).joined(separator: ","))]},\"frames\":[\(fr.joined(separator: ","))]}"
}

let goodMeta =
    "\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4,1],\"trackingState\":\"normal\",\"ambientIntensity\":900,\"blendShapes\":{\"jawOpen\":0.05}"
