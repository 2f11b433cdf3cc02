import FaceScanKit
import Foundation

/// Surface error against the ground truth at 5 000 vertices on synthesized captures (noise
/// 0.3–1.2 mm, 10–40 % bad frames, some with gate-invisible glitches), for facescan and — when
/// `.venv-bench` exists (`make bench-venv`) — the Python pipeline.
func runAccuracyBench(samplesDir: String) throws {
    print(
        "== accuracy at 5000 vertices against ground truth (µm, symmetric surface distance, 100 000 samples per side)")
    let a = try MeshIO.read(path: samplesDir + "/ict-neutral/truth.obj")
    let b = try MeshIO.read(path: samplesDir + "/ict-identity-ndjson/truth.obj")
    let dir = "/tmp/facescan-accuracy-\(getpid())"
    mkdir(dir, 0o755)
    defer { _ = try? FileManager.default.removeItem(atPath: dir) }
    let python = benchPython
    let havePython = FileManager.default.isExecutableFile(atPath: python)
    print(
        "capture                           frames  noise  bad  glitch | previous rms  max | facescan rms    max | --smoothing auto | python rms    max"
    )
    let cases: [(String, Mesh, Mesh, Double, Double, Double, UInt64)] = [
        ("identity A, seed 1", a, b, 0.6, 0.25, 0.0, 1),
        ("identity B, seed 2", b, a, 0.3, 0.10, 0.0, 2),
        ("identity A, seed 3", a, b, 1.2, 0.40, 0.0, 3),
        ("identity B, seed 4, glitches", b, a, 0.6, 0.25, 0.08, 4),
        ("identity A, clean", a, b, 0.6, 0.0, 0.0, 5),
        ("identity B, seed 6", b, a, 0.9, 0.30, 0.0, 6),
        ("identity A, seed 7, noise-free", a, b, 0.0, 0.25, 0.0, 7),
    ]
    for (label, truth, other, noise, bad, glitch, seed) in cases {
        var c = SyntheticCapture(truth: truth, jitter: zip(other.positions, truth.positions).map { $0 - $1 })
        c.noiseMm = noise
        c.badShare = bad
        c.glitchShare = glitch
        c.seed = seed
        let path = "\(dir)/c\(seed).json"
        _ = c.write(to: path)
        var o = PipelineOptions()
        o.outputDirectory = dir
        o.name = "f\(seed)"
        o.formats = ["stl"]
        o.quality = .low
        o.units = .m
        var old = previousMethod(o)
        old.name = "p\(seed)"
        _ = try Pipeline.process(input: path, options: old)
        let ep = SurfaceDistance.symmetric(try MeshIO.read(path: "\(dir)/p\(seed).stl"), truth, samplesPerMesh: 100_000)
        let r = try Pipeline.process(input: path, options: o)
        let mesh = try MeshIO.read(path: "\(dir)/f\(seed).stl")
        let e = SurfaceDistance.symmetric(mesh, truth, samplesPerMesh: 100_000)
        o.name = "a\(seed)"
        o.smoothing = .auto
        _ = try Pipeline.process(input: path, options: o)
        let ea = SurfaceDistance.symmetric(try MeshIO.read(path: "\(dir)/a\(seed).stl"), truth, samplesPerMesh: 100_000)
        var line =
            label.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(
                format: "%6d  %4.1f  %3.0f%%  %4.0f%%  | %8.1f %5.0f | %9.1f %6.1f | %7.1f %6.1f", c.frames, noise,
                bad * 100, glitch * 100,
                ep.rms, ep.max, e.rms, e.max, ea.rms, ea.max)
        if havePython {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["scripts/python-pipeline.py", path, "\(dir)/py\(seed)", "--target", "5000", "--units", "m"]
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            if p.terminationStatus == 0, let pm = try? MeshIO.read(path: "\(dir)/py\(seed)/face.stl") {
                let pe = SurfaceDistance.symmetric(pm, truth, samplesPerMesh: 100_000)
                line += String(format: " | %9.1f %6.1f", pe.rms, pe.max)
            } else {
                line += " | failed"
            }
        }
        print(line + "   (outliers left out: \(r.frames.rejected.outlier))")
    }
}

/// Error against `truth.obj` of every sample in `samplesDir`, processed with the capture's own
/// settings, by the previous method (equal frame weights, bounds 3σ / 4σ) and the current one.
func runSampleAccuracyBench(samplesDir: String) throws {
    print("== samples against their truth.obj (µm; the capture's own settings)")
    let dir = "/tmp/facescan-sample-accuracy-\(getpid())"
    mkdir(dir, 0o755)
    defer { _ = try? FileManager.default.removeItem(atPath: dir) }
    let variants = [("previous", previousMethod(PipelineOptions())), ("current", PipelineOptions())]
    for name in (try FileManager.default.contentsOfDirectory(atPath: samplesDir)).sorted() {
        let base = samplesDir + "/" + name
        guard let truth = try? MeshIO.read(path: base + "/truth.obj") else { continue }
        let input =
            FileManager.default.fileExists(atPath: base + "/capture.json")
            ? base + "/capture.json" : base + "/capture.ndjson"
        var line = name.padding(toLength: 22, withPad: " ", startingAt: 0)
        for (label, var o) in variants {
            o.outputDirectory = dir
            o.name = "s"
            o.formats = ["stl"]
            o.units = .m
            _ = try Pipeline.process(input: input, options: o)
            let e = SurfaceDistance.symmetric(try MeshIO.read(path: dir + "/s.stl"), truth, samplesPerMesh: 100_000)
            line += String(format: " | %@ %.1f/%.0f", label, e.rms, e.max)
        }
        print(line)
    }
}

/// `options` with the averaging and smoothing of the method before inverse-variance weighting:
/// equal frame weights, smoothing bounded at 3σ, bilateral range scale 4σ.
private func previousMethod(_ options: PipelineOptions) -> PipelineOptions {
    var o = options
    o.frameWeighting = .equal
    o.noiseLimit = 3
    o.featureScale = 4
    return o
}
