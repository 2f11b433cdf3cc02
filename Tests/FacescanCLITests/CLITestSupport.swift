import Foundation
import Testing

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

/// The external programs the end-to-end tests drive (Blender, PrusaSlicer, Slurm, shells, …).
///
/// A test that needs one carries `.enabled(if: Tool.available(…), "why it is skipped")`: in a
/// developer's shell a missing program makes the test runner report the test as skipped, with
/// that reason. With `CI` set the condition is always true, so the test runs, and
/// ``require(_:)`` fails it on the missing program: CI never passes a test that did not run.
enum Tool {
    /// `CI` is set (CI sets it; a developer may, to insist on every client).
    static let inCI = ProcessInfo.processInfo.environment["CI"] != nil

    /// The full path of `name` on PATH or in the system directories (the Slurm daemons live in
    /// /usr/sbin), or nil.
    static func path(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (path + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]).map { $0 + "/" + name }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Whether a test needing `names` runs: all of them installed, or `CI` set.
    static func available(_ names: String...) -> Bool {
        inCI || names.allSatisfy { path($0) != nil }
    }

    /// The full path of `name`; a test failure (thrown) when it is missing, which happens only
    /// with `CI` set (elsewhere ``available(_:)`` skipped the test).
    static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            path(name), "\(name) is not installed (make test-deps installs it); CI is set, so the test must run",
            sourceLocation: sourceLocation)
    }
}

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
    try runProgram(facescanBinary, args, cwd: cwd, stdin: stdin)
}

/// Runs `executable` with `args` to the end (Foundation's `Process`), in `cwd`, with
/// `environment` (default: this process's), feeding it `stdin` (default: /dev/null); its exit
/// status, standard output as bytes and standard error as text. The one runner of the tests'
/// child programs that need no signal or terminal (those are ``Spawn``'s).
func runProgram(
    _ executable: String, _ args: [String], cwd: String? = nil, environment: [String: String]? = nil,
    stdin: Data? = nil
) throws -> (status: Int32, stdout: Data, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    if let environment { p.environment = environment }
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

/// A small capture (a curved 12×12 grid patch) with chosen frame metadata, as JSON text: every
/// frame the same vertices, the patch's grid parameters running from `-centre` to `1 - centre`
/// (so a centre off 0.5 makes the patch longer on one side of x and y) and its apex `depth`
/// metres in front of the camera plane.
func smallCapture(frames: [String], centre: SIMD2<Double> = [0.5, 0.5], depth: Double = 0.05) -> String {
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
            let u = Double(x) / Double(n - 1) - centre.x, v = Double(y) / Double(n - 1) - centre.y
            xyz += ["\(u * 0.15)", "\(v * 0.2)", "\(depth - (u * u + v * v) * 0.1)"]
        }
    }
    let vertices = "\"vertices\":[" + xyz.joined(separator: ",") + "]"
    let fr = frames.map { "{" + vertices + ($0.isEmpty ? "" : "," + $0) + "}" }
    return
        "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[\(tris.map(String.init).joined(separator: ","))]},\"frames\":[\(fr.joined(separator: ","))]}"
}

let goodMeta =
    "\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4,1],\"trackingState\":\"normal\",\"ambientIntensity\":900,\"blendShapes\":{\"jawOpen\":0.05}"

/// The ICT face (metres) the CLI tests read.
let faceFixture = packageRoot + "/Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"

/// One line on standard error, with the exit code, containing every one of `texts`.
func expectOneLine(_ r: RunResult, status: Int32, _ texts: String..., sourceLocation: SourceLocation = #_sourceLocation)
{
    #expect(r.status == status, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
    for t in texts { #expect(r.stderr.contains(t), "no '\(t)' in \(r.stderr)", sourceLocation: sourceLocation) }
}

/// `faceFixture` (a face in metres) scaled by `factor`, as an OBJ in `dir`.
func scaledFace(_ factor: Double, in dir: String, name: String) throws -> String {
    let text = try String(contentsOfFile: faceFixture, encoding: .utf8)
    var out = ""
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("v ") {
            let p = line.split(separator: " ").dropFirst().map { Double($0)! * factor }
            out += "v \(p[0]) \(p[1]) \(p[2])\n"
        } else {
            out += line + "\n"
        }
    }
    let path = dir + "/" + name
    try out.write(toFile: path, atomically: false, encoding: .utf8)
    return path
}
