import FaceScanKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Throughput at scale: `facescan batch --jobs 2` over `count` synthesized 40-frame captures
/// (the ICT neutral face, 9 409 vertices, number arrays, 25 % bad frames), against the Python
/// reference pipeline (scripts/python-pipeline.py: orjson, numpy, trimesh, meshoptimizer, Pillow;
/// the same job: gate, average, Taubin smoothing, 5 000 vertices, STL + OBJ + PNG) run by GNU
/// parallel `-j 2` on the same files. Wall time of each whole run; captures per second.
///
/// The Python side runs with `.venv-bench/bin/python` (`make bench-venv`, run by `make bench`, creates it from PyPI); when
/// it is missing or cannot import its libraries, or GNU parallel is missing, only the facescan
/// figure is printed, with the reason.
func runThroughputBench(samplesDir: String, count: Int = 100, frames: Int = 40) throws {
    print(
        "== throughput: facescan batch --jobs 2 vs the Python reference under GNU parallel -j 2, \(count) captures × \(frames) frames"
    )
    let truth = try MeshIO.read(path: samplesDir + "/ict-neutral/truth.obj")
    let other = try MeshIO.read(path: samplesDir + "/ict-identity-ndjson/truth.obj")
    let dir = "/tmp/facescan-throughput-\(getpid())"
    mkdir(dir, 0o755)
    mkdir(dir + "/captures", 0o755)
    defer { _ = system("rm -rf '\(dir)'") }
    // Four distinct captures (seeds 1–4), each copied to count / 4 files: the bytes of every
    // capture are processed in full whatever its content, and writing 100 from scratch would take
    // longer than processing them.
    let distinct = 4
    var size = 0
    for s in 0..<distinct {
        var c = SyntheticCapture(truth: truth, jitter: zip(other.positions, truth.positions).map { $0 - $1 })
        c.frames = frames
        c.seed = UInt64(s + 1)
        size = c.write(to: "\(dir)/seed\(s).json")
    }
    for i in 0..<count {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/seed\(i % distinct).json"))
        try bytes.write(to: URL(fileURLWithPath: String(format: "%@/captures/c%03d.json", dir, i)))
    }
    print(
        String(
            format: "captures: %d files of %.1f MB (%d vertices, number arrays)", count, Double(size) / 1e6,
            truth.vertexCount))

    let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "facescan"
    ).path
    func wall(_ exe: String, _ args: [String]) throws -> (seconds: Double, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let w = Stopwatch()
        try p.run()
        p.waitUntilExit()
        return (w.elapsed / 1000, p.terminationStatus)
    }
    let f = try wall(
        exe, ["batch", dir + "/captures", "--jobs", "2", "--quality", "low", "--output-dir", dir + "/fs", "--quiet"])
    let fsRate = Double(count) / f.seconds
    print(
        String(
            format: "facescan batch --jobs 2 --quality low: %.2f s, %.1f captures/s (exit %d)", f.seconds, fsRate,
            f.status))

    let python = benchPython
    let parallel = "/usr/bin/parallel"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        print(
            "python reference skipped: \(python) missing (make bench-venv creates it with pip: orjson numpy scipy trimesh meshoptimizer pillow)"
        )
        return
    }
    guard FileManager.default.isExecutableFile(atPath: parallel) else {
        print("python reference skipped: GNU parallel missing (make deps installs it)")
        return
    }
    let probe = try wall(python, ["-c", "import orjson, numpy, scipy, trimesh, meshoptimizer, PIL"])
    guard probe.status == 0 else {
        print("python reference skipped: \(python) cannot import orjson, numpy, scipy, trimesh, meshoptimizer and PIL")
        return
    }
    let py = try wall(
        parallel,
        [
            "--will-cite", "-j", "2", python, "scripts/python-pipeline.py", "{}", dir + "/py/{/.}", "--target", "5000",
            ":::",
        ] + (0..<count).map { String(format: "%@/captures/c%03d.json", dir, $0) })
    let pyRate = Double(count) / py.seconds
    print(
        String(
            format: "python-pipeline.py under parallel -j 2: %.2f s, %.2f captures/s (exit %d)", py.seconds, pyRate,
            py.status))
    print(String(format: "ratio: facescan %.1f× the Python reference's captures per second", fsRate / pyRate))
}
