import FaceScanKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The Python reference pipeline's interpreter: `.venv-bench`, which `make bench-venv` (run by
/// `make bench`) creates with every library scripts/python-pipeline.py imports.
let benchPython = ".venv-bench/bin/python"

/// Median of `runs` timings of `body`, in milliseconds.
func medianMs(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var t: [Double] = []
    for _ in 0..<runs {
        let w = Stopwatch()
        try body()
        t.append(w.elapsed)
    }
    t.sort()
    return t[t.count / 2]
}

/// Ingest throughput (number arrays and base64), stage timings of `process` and peak memory.
func runPipelineBench(samplesDir: String) throws {
    let truth = try MeshIO.read(path: samplesDir + "/ict-neutral/truth.obj")
    let other = try MeshIO.read(path: samplesDir + "/ict-identity-ndjson/truth.obj")
    let jitter = zip(other.positions, truth.positions).map { $0 - $1 }
    func writeSyntheticCapture(truth: Mesh, frames: Int, base64: Bool, to path: String) -> Int {
        var c = SyntheticCapture(truth: truth, jitter: jitter)
        c.frames = frames
        c.base64 = base64
        return c.write(to: path)
    }
    let dir = "/tmp/facescan-bench-\(getpid())"
    mkdir(dir, 0o755)
    defer { _ = system("rm -rf '\(dir)'") }
    print("== ingest (streaming reader + gate + accumulation), median of 5")
    for (label, b64) in [("number arrays", false), ("base64", true)] {
        let path = "\(dir)/w1-\(b64 ? "b64" : "num").json"
        let size = writeSyntheticCapture(truth: truth, frames: 120, base64: b64, to: path)
        var options = PipelineOptions()
        options.maxFrames = 1_000_000
        let ms = try medianMs(runs: 5) {
            _ = try readStage(path, options)
        }
        print(
            label.padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(
                    format: "120 frames x %d v, %6.1f MB: %7.1f ms  %7.0f MB/s", truth.vertexCount,
                    Double(size) / 1e6, ms, Double(size) / 1e6 / (ms / 1000)))
    }
    print("== process (W1-like: 120 frames, STL+OBJ+PNG, low preset), median of 5")
    let w1 = "\(dir)/w1-num.json"
    var stages: [Report] = []
    for _ in 0..<5 {
        var o = PipelineOptions()
        o.outputDirectory = dir
        o.quality = .low
        stages.append(try Pipeline.process(input: w1, options: o))
    }
    func med(_ f: (Report.Timings) -> Double) -> Double { stages.map { f($0.timingsMs) }.sorted()[2] }
    print(
        String(
            format: "ingest %.1f ms, smooth %.1f ms, decimate %.1f ms, render %.1f ms, export %.1f ms, total %.1f ms",
            med { $0.ingest }, med { $0.smooth }, med { $0.decimate }, med { $0.render }, med { $0.export },
            med { $0.total }))
    print("== peak memory of `facescan process` (child process max RSS)")
    let big = "\(dir)/w1200.json"
    _ = writeSyntheticCapture(truth: truth, frames: 1200, base64: false, to: big)
    let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
        "facescan"
    ).path
    for (label, path) in [("120 frames", w1), ("1200 frames", big)] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["process", path, "--output-dir", dir, "--quiet", "--max-frames", "100000", "--quality", "low"]
        try p.run()
        p.waitUntilExit()
        var u = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &u)  // max over the children so far: 1200 is measured after 120
        print(
            "\(label): exit \(p.terminationStatus), peak RSS so far "
                + String(format: "%.1f MB", Double(u.ru_maxrss) / 1024))
    }
    print(
        "== end to end against the Python pipeline (scripts/python-pipeline.py), W1-like capture, median of 5 wall times"
    )
    let python = benchPython
    if FileManager.default.isExecutableFile(atPath: python) {
        func wall(_ exe: String, _ args: [String]) throws -> Double {
            try medianMs(runs: 5) {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: exe)
                p.arguments = args
                p.standardError = FileHandle.nullDevice
                try p.run()
                p.waitUntilExit()
            }
        }
        let f = try wall(exe, ["process", w1, "--output-dir", dir + "/fs", "--quality", "low", "--quiet"])
        let py = try wall(python, ["scripts/python-pipeline.py", w1, dir + "/py", "--target", "5000"])
        print(
            String(format: "facescan process %.0f ms, python pipeline %.0f ms: ratio %.3f (goal <= 0.2)", f, py, f / py)
        )
    } else {
        print("skipped: \(benchPython) missing (make bench-venv creates it)")
    }
    print("== render 512x512, 2x2 supersampling, median of 20")
    let ms = medianMs(runs: 20) { _ = try? Rasterizer.render(truth, options: RenderOptions()) }
    print(String(format: "%d triangles: %.1f ms", truth.triangleCount, ms))
}

/// The thumbnail of one mesh file (512², 2×2 samples) with 1 and 2 threads, runs interleaved so
/// that both see the same machine load; prints the median and the minimum of each.
func runRenderBench(path: String, runs: Int, size: Int = 512) throws {
    let mesh = try MeshIO.read(path: path)
    // Wall time, and the CPU time of the whole process during the render (all threads): on a busy
    // machine the wall time also counts waiting for a core.
    func cpuMs() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    var times: [Int: [Double]] = [1: [], 2: []]
    var cpu: [Int: [Double]] = [1: [], 2: []]
    for _ in 0..<runs {
        for threads in [1, 2] {
            let c0 = cpuMs()
            let w = Stopwatch()
            _ = try Rasterizer.render(mesh, options: RenderOptions(size: size, threads: threads))
            times[threads]!.append(w.elapsed)
            cpu[threads]!.append(cpuMs() - c0)
        }
    }
    for threads in [1, 2] {
        let t = times[threads]!.sorted(), c = cpu[threads]!.sorted()
        print(
            String(
                format:
                    "%d triangles, %d², %d thread%@: median %6.2f ms, min %6.2f ms; CPU median %6.2f ms, min %6.2f ms",
                mesh.triangleCount, size, threads, threads == 1 ? " " : "s", t[t.count / 2], t[0], c[c.count / 2], c[0])
        )
    }
    // The thumbnail's PNG encoding (Up rows, PixelDeflate), as `process` writes it.
    let image = try Rasterizer.render(mesh, options: RenderOptions(size: size))
    var png: [UInt8] = []
    var encode: [Double] = []
    for _ in 0..<runs {
        let w = Stopwatch()
        png = try PNGEncoder.encode(image)
        encode.append(w.elapsed)
    }
    encode.sort()
    print(
        String(
            format: "PNG of that image: %d bytes, median %6.2f ms, min %6.2f ms", png.count, encode[encode.count / 2],
            encode[0]))
}

/// Ingest of one capture file with 1 and 2 threads and, beside them, reading the file from the page
/// cache (the machine's limit for it), runs interleaved so that all see the same
/// machine load; prints the median and the minimum of each, and the median CPU time of an ingest.
func runIngestFileBench(path: String, runs: Int) throws {
    var st = stat()
    stat(path, &st)
    let size = Double(st.st_size)
    var times: [Int: [Double]] = [1: [], 2: []]
    var cpu: [Int: [Double]] = [1: [], 2: []]
    var reads: [Double] = []
    let chunk = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 64)
    defer { chunk.deallocate() }
    for _ in 0..<runs {
        // The machine's limit for this file: reading it from the page cache, 1 MiB at a time.
        let fd = open(path, O_RDONLY)
        let w = Stopwatch()
        while read(fd, chunk, 1 << 20) > 0 {}
        reads.append(w.elapsed)
        close(fd)
        for threads in [1, 2] {
            var options = PipelineOptions()
            options.maxFrames = 1_000_000
            options.ingestThreads = threads
            let c = processCPUms()
            let w = Stopwatch()
            _ = try readStage(path, options)
            times[threads]!.append(w.elapsed)
            cpu[threads]!.append(processCPUms() - c)
        }
    }
    reads.sort()
    let readMedian = reads[reads.count / 2]
    print(
        String(
            format: "page-cache read: median %7.1f ms (%6.0f MB/s), min %7.1f ms", readMedian,
            size / 1e6 / (readMedian / 1000), reads[0]))
    for threads in [1, 2] {
        let t = times[threads]!.sorted()
        let c = cpu[threads]!.sorted()
        print(
            String(
                format:
                    "%d thread%@: median %7.1f ms (%6.0f MB/s), min %7.1f ms (%6.0f MB/s); %.3f x the read; CPU median %.1f ms",
                threads,
                threads == 1 ? " " : "s",
                t[t.count / 2], size / 1e6 / (t[t.count / 2] / 1000), t[0], size / 1e6 / (t[0] / 1000),
                readMedian / t[t.count / 2], c[c.count / 2]))
    }
}

/// CPU time of the whole process (every thread, user and system) so far, in milliseconds: less
/// sensitive than wall time to other work on the machine.
func processCPUms() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
    return ms(u.ru_utime) + ms(u.ru_stime)
}

/// The read stage (`Stages.read`) over the capture at `path`, with `options` over its settings.
func readStage(_ path: String, _ options: PipelineOptions) throws(FaceScanError) {
    let reader = try Pipeline.open(path)
    _ = try Stages.read(
        reader,
        settings: { (s) throws(FaceScanError) in
            try ScanSettings.validated(options: options, capture: s, file: reader.name)
        }, threads: options.ingestThreads ?? Pipeline.defaultIngestThreads, progress: nil)
}
