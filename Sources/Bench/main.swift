// `make bench`: release-build figures for every stage. Run from the package root.
// `facescan-bench [pipeline] [decimation] [accuracy] [throughput] [cancel] [samples] [small-solids]
// [fuzz-solids]` runs only the named sections.
import FaceScanKit
import Foundation

// `facescan-bench ingest FILE [RUNS]` times only the ingest of FILE with 1 and 2 threads.
if CommandLine.arguments.count >= 3 && CommandLine.arguments[1] == "ingest" {
    let runs = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 11 : 11
    do { try runIngestFileBench(path: CommandLine.arguments[2], runs: runs) } catch {
        print("ingest bench failed: \(error)")
    }
    exit(0)
}

// `facescan-bench simplify FILE TARGET [RUNS]` times the decimation of one mesh file in this
// process (warm, like a library call), with 1 and 2 threads; prints one JSON line.
if CommandLine.arguments.count >= 4 && CommandLine.arguments[1] == "simplify" {
    let runs = CommandLine.arguments.count > 4 ? Int(CommandLine.arguments[4]) ?? 5 : 5
    do {
        try runSimplifyFileBench(path: CommandLine.arguments[2], target: Int(CommandLine.arguments[3]) ?? 0, runs: runs)
    } catch { print("simplify bench failed: \(error)") }
    exit(0)
}

// `facescan-bench simplify-once FILE TARGET`: one decimation call in this fresh process, its wall
// and CPU time (one JSON line); for one-call-per-process comparisons on a busy machine.
if CommandLine.arguments.count >= 4 && CommandLine.arguments[1] == "simplify-once" {
    do { try runSimplifyOnceBench(path: CommandLine.arguments[2], target: Int(CommandLine.arguments[3]) ?? 0) } catch {
        print("simplify-once bench failed: \(error)")
    }
    exit(0)
}

// `facescan-bench render [RUNS] [MESH] [SIZE]` times only the thumbnail (SIZE², default 512, 2×2 samples)
// of MESH with 1 and 2 threads; by default the ICT sample's expected output (19 629 triangles, what
// `process` draws).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "render" {
    let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 41 : 41
    let path = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : "samples/ict-neutral/expected.stl"
    let size = CommandLine.arguments.count > 4 ? Int(CommandLine.arguments[4]) ?? 512 : 512
    do { try runRenderBench(path: path, runs: runs, size: size) } catch { print("render bench failed: \(error)") }
    exit(0)
}

// `facescan-bench solid-work FILE [--base] [--thickness MM] [--count N]`: the solid step on one surface file
// (mm, the command's default options but these), its wall time (best of 3) and the work it counted.
if CommandLine.arguments.count >= 3 && CommandLine.arguments[1] == "solid-work" {
    let arguments = CommandLine.arguments
    /// The argument after `flag`, if any.
    func value(after flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
    do {
        try runSolidWork(
            path: arguments[2], base: arguments.contains("--base"),
            thickness: value(after: "--thickness").flatMap(Double.init),
            count: value(after: "--count").flatMap { Int($0) })
    } catch { print("solid-work failed: \(error)") }
    exit(0)
}

let wanted = Set(CommandLine.arguments.dropFirst())
func section(_ name: String) -> Bool { wanted.isEmpty || wanted.contains(name) }

if section("pipeline") {
    do { try runPipelineBench(samplesDir: "samples") } catch { print("pipeline bench failed: \(error)") }
}
if section("decimation") { runDecimationBench() }
if section("accuracy") {
    do { try runAccuracyBench(samplesDir: "samples") } catch { print("accuracy bench failed: \(error)") }
}
if section("throughput") {
    do { try runThroughputBench(samplesDir: "samples") } catch { print("throughput bench failed: \(error)") }
}
if section("cancel") {
    do { try runCancelBench(samplesDir: "samples") } catch { print("cancel bench failed: \(error)") }
}
if section("samples") {
    do { try runSampleAccuracyBench(samplesDir: "samples") } catch { print("sample accuracy bench failed: \(error)") }
}
if section("small-solids") { runSmallSolidBench() }
if section("fuzz-solids") { runFuzzSolidBench() }
