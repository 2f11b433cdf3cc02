import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimation benchmark: W3 (ICT neutral 9 409 v → 5 000 v), W2 (ICT neutral midpoint-subdivided
/// twice, 148 402 v → 10 000 v) and refinement (9 409 v → 20 000 v).
///
/// Environment: `FACESCAN_BENCH_MESH` (default `Tests/FaceScanKitTests/Fixtures/ict-neutral.obj`),
/// `FACESCAN_BENCH_RUNS` (default 9), `FACESCAN_BENCH_FILTER` (run only workloads whose name
/// contains it), `FACESCAN_BENCH_THREADS` (default 2; 1 keeps decimation on one thread), `FACESCAN_BENCH_OUT` (a directory: write each workload's
/// input and result as OBJ there, to measure the surface error with an external tool).
/// Prints one line per workload: median and best wall time of the decimation alone, vertices and
/// triangles reached, and the surface error.
public func runDecimationBench() {
    let env = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
    let path = env("FACESCAN_BENCH_MESH") ?? "Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"
    let runs = max(1, Int(env("FACESCAN_BENCH_RUNS") ?? "") ?? 9)
    let outDir = env("FACESCAN_BENCH_OUT")
    let threads = max(1, Int(env("FACESCAN_BENCH_THREADS") ?? "") ?? 2)
    let base: Mesh
    do {
        base = try Mesh.read(path: path)
    } catch {
        print("decimation bench: cannot read \(path): \(error)")
        return
    }
    let w2 = Subdivision.midpoint(Subdivision.midpoint(base))
    let workloads: [(name: String, mesh: Mesh, target: Int)] = [
        ("W3 ict-neutral", base, 5_000),
        ("W2 ict-neutral x2 midpoint", w2, 10_000),
        ("refine ict-neutral", base, 20_000),
    ]
    print("decimation (\(runs) runs, median / best ms, \(threads) thread\(threads == 1 ? "" : "s"))")
    let filter = env("FACESCAN_BENCH_FILTER") ?? ""
    for w in workloads where filter.isEmpty || w.name.contains(filter) {
        var times: [Double] = []
        var result: Mesh? = nil
        var failure: String? = nil
        for _ in 0..<runs {
            let clock = Stopwatch()
            do {
                result = try Decimation.simplify(w.mesh, targetVertices: w.target, threads: threads)
            } catch {
                failure = error.description
            }
            times.append(clock.elapsed)
        }
        times.sort()
        let name = w.name + String(repeating: " ", count: max(0, 28 - w.name.count))
        if let failure {
            print("  \(name) failed: \(failure)")
            continue
        }
        let r = result!
        let check = MeshCheck(r)
        let error = SurfaceDistance.symmetric(r, w.mesh, samplesPerMesh: 200_000)
        print(
            "  \(name) \(w.mesh.vertexCount) v → \(w.target) v: \(fmt(times[times.count / 2])) / \(fmt(times[0])) ms, reached \(r.vertexCount) v \(r.triangleCount) t, clean \(check.isClean), error RMS \(fmt(error.rms)) µm max \(fmt(error.max)) µm"
        )
        if let outDir {
            let slug = w.name.split(separator: " ").joined(separator: "-")
            try? AtomicFile.write(w.mesh.objBytes(), to: "\(outDir)/\(slug)-input.obj")
            try? AtomicFile.write(r.objBytes(), to: "\(outDir)/\(slug)-output.obj")
        }
    }
}

/// Decimation of one mesh file to `target` vertices, `runs` times with 2 threads then `runs` times
/// with 1, in this process. Prints `{"vertices":…,"bestMs":…,"medianMs":…,"bestMs1Thread":…,
/// "medianMs1Thread":…}` (the decimation call alone; the file is read once).
public func runSimplifyFileBench(path: String, target: Int, runs: Int) throws {
    let mesh = try MeshIO.read(path: path)
    var times: [Int: [Double]] = [1: [], 2: []]
    var reached = 0
    for threads in [2, 1] {
        for _ in 0..<max(1, runs) {
            let clock = Stopwatch()
            let r = try Decimation.simplify(mesh, targetVertices: target, threads: threads)
            times[threads]!.append(clock.elapsed)
            reached = r.vertexCount
        }
    }
    let t2 = times[2]!.sorted(), t1 = times[1]!.sorted()
    print(
        "{\"vertices\":\(reached),\"bestMs\":\(fmt(t2[0])),\"medianMs\":\(fmt(t2[t2.count / 2])),"
            + "\"bestMs1Thread\":\(fmt(t1[0])),\"medianMs1Thread\":\(fmt(t1[t1.count / 2]))}")
}

/// One decimation call of the mesh file in this fresh process (how `facescan simplify` runs it):
/// prints one JSON line with its wall time and the CPU time the process spent in it (all
/// threads), so that a call slowed by waiting for a busy core can be told from a slow call.
public func runSimplifyOnceBench(path: String, target: Int) throws {
    let mesh = try MeshIO.read(path: path)
    func cpuMs() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    let cpu0 = cpuMs()
    let clock = Stopwatch()
    let r = try Decimation.simplify(mesh, targetVertices: target)
    let wall = clock.elapsed
    let cpu = cpuMs() - cpu0
    print("{\"vertices\":\(r.vertexCount),\"wallMs\":\(fmt(wall)),\"cpuMs\":\(fmt(cpu))}")
}

private func fmt(_ x: Double) -> String {
    let r = (x * 100).rounded() / 100
    return String(r)
}
