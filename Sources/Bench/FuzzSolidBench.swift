import FaceScanKit
import FaceScanMeasure
import FaceScanSolid
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The solid step on the `solid` fuzz target's kind of input (issue 59): surfaces of 3–200
/// vertices on the target's 32-point lattice, 1–400 mm across, walls of 1, 2, 5 and 20 mm, shells
/// and reliefs, cut at 1–200 mm, aligned or not, fitted or not, some with a vertex count — grids
/// with random heights and diagonals, fans, strips, single triangles and loose triangles (a fixed
/// pseudo-random set), and the seeds of Tests/Fuzz/corpus/solid decoded as the target decodes
/// them. Each through `Solidify.part` in this process, best of `runs` (wall time, and the CPU
/// time of that run); prints the distribution and the slowest.
func runFuzzSolidBench(cases: Int = 300, runs: Int = 3, corpus: String = "Tests/Fuzz/corpus/solid") {
    print("== solid step on \(cases) fuzz-kind surfaces (3-200 vertices, 1-400 mm, walls 1-20 mm) + corpus seeds")
    var inputs: [(label: String, mesh: Mesh, options: SolidOptions, count: Int?)] = []
    if let names = try? FileManager.default.contentsOfDirectory(atPath: corpus) {
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: corpus + "/" + name),
                let input = Solidify.FuzzInput.decode([UInt8](data))
            else { continue }
            inputs.append(("seed \(name)", input.mesh, input.options, input.vertexCount))
        }
    }
    var generator = FuzzKind(seed: 0x5EED_F059)
    for c in 0..<cases {
        guard let input = generator.next() else { continue }
        inputs.append((String(format: "c%03d %@", c, input.label), input.mesh, input.options, input.count))
    }
    var times: [(ms: Double, cpu: Double, label: String, outcome: String)] = []
    // FACESCAN_BENCH_ONLY=c039 (a label's start) runs only the cases it names (to profile
    // one), and prints the work each counted.
    let only = ProcessInfo.processInfo.environment["FACESCAN_BENCH_ONLY"]
    for input in inputs where only.map({ input.label.hasPrefix($0) }) ?? true {
        var best = (wall: Double.infinity, cpu: Double.infinity)
        var outcome = ""
        for _ in 0..<runs {
            let cpu0 = FuzzKind.processCPU(), start = DispatchTime.now().uptimeNanoseconds
            do {
                let part = try Solidify.part(
                    input.mesh, options: input.options, unitInMillimetres: 1, vertexCount: input.count)
                outcome = "part of \(part.mesh.vertexCount) vertices"
            } catch {
                outcome = "refused"
            }
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            if wall < best.wall { best = (wall, (FuzzKind.processCPU() - cpu0) * 1e3) }
        }
        if only != nil { printWork(input.mesh, options: input.options, count: input.count) }
        let o = input.options
        let label = String(
            format: "%@, %d vertices, %@ %.0f mm, depth %.0f%@%@", input.label, input.mesh.vertexCount,
            o.base ? "relief" : "shell", o.thickness, o.depth, o.fit == nil ? "" : ", fit",
            input.count.map { ", count \($0)" } ?? "")
        times.append((best.wall, best.cpu, label, outcome))
    }
    let sorted = times.sorted { $0.ms < $1.ms }
    guard !sorted.isEmpty else { return }
    func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))].ms }
    let parts = sorted.filter { $0.outcome != "refused" }.count
    print(
        String(
            format:
                "%d surfaces (%d parts, %d refused): wall median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms; over 50 ms: %d",
            sorted.count, parts, sorted.count - parts, at(0.5), at(0.9), at(0.99), sorted.last?.ms ?? 0,
            sorted.filter { $0.ms > 50 }.count))
    // CPU time (both threads) of the same runs: the figure a loaded machine leaves comparable.
    let cpu = sorted.map(\.cpu).sorted()
    print(
        String(
            format: "  CPU: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms; over 50 ms: %d, over 150 ms: %d",
            cpu[cpu.count / 2], cpu[min(cpu.count - 1, cpu.count * 9 / 10)],
            cpu[min(cpu.count - 1, cpu.count * 99 / 100)], cpu.last ?? 0, cpu.filter { $0 > 50 }.count,
            cpu.filter { $0 > 150 }.count))
    // FACESCAN_BENCH_SLOWEST=N lists the N slowest (8 by default).
    let slowest = ProcessInfo.processInfo.environment["FACESCAN_BENCH_SLOWEST"].flatMap { Int($0) } ?? 8
    for t in sorted.suffix(slowest).reversed() {
        print(String(format: "  %7.1f ms (CPU %6.1f ms)  %@: %@", t.ms, t.cpu, t.label, t.outcome))
    }
}

/// The solid step on the surface in `path` (millimetres, the command's default options; a relief
/// with `base`, a wall of `thickness`, `count` vertices): best wall time of three runs, then the work it counted.
func runSolidWork(path: String, base: Bool, thickness: Double? = nil, count: Int? = nil) throws {
    let mesh = try MeshIO.read(path: path)
    var options = SolidOptions()
    options.base = base
    if let thickness { options.thickness = thickness }
    var best = Double.infinity
    for _ in 0..<3 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try? Solidify.part(mesh, options: options, unitInMillimetres: 1, vertexCount: count)
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    print(String(format: "%@: %d vertices, best of 3 %.1f ms", path, mesh.vertexCount, best))
    printWork(mesh, options: options, count: count)
}

/// One more run of a case `FACESCAN_BENCH_ONLY` names, with the work it counted
/// (`Solidify.Work`): the distance fields' points, each back's share and extraction, each
/// push-off, and the error a refused part ended with.
func printWork(_ mesh: Mesh, options: SolidOptions, count: Int?) {
    var work = Solidify.Work()
    var outcome = "a part"
    do {
        let part = try Solidify.makePart(mesh, options: options, unitInMillimetres: 1, vertexCount: count, work: &work)
        if let wall = backWall(part) {
            outcome += String(format: ", its back %.2f mm from the front on average, %.2f at most", wall.mean, wall.max)
        }
    } catch { outcome = "\(error)" }
    print(
        "  work: \(outcome); fields \(work.fieldPoints); spent \(work.spent) of \(work.allowance.map(String.init) ?? "-")"
    )
    for back in work.backs {
        let e = back.extraction
        print("    back: share \(back.share), stride \(e.stride), \(e.cellsVisited) cells, \(e.vertices) vertices")
    }
    for push in work.pushes {
        print("    push-off: \(push.rounds) rounds, \(push.triangles) triangles, \(push.pairs) pairs")
    }
}

/// How far a shell's back vertices (those after the front's) lie from its front: the wall's
/// thickness as made (nil for a relief or a part padded to a count).
func backWall(_ part: Solidify.Part) -> (mean: Double, max: Double)? {
    guard let frontTriangles = part.frontTriangles else { return nil }
    let triangles = Array(part.mesh.triangles[0..<(3 * frontTriangles)])
    let firstBack = Int(triangles.max() ?? 0) + 1
    guard firstBack < part.mesh.vertexCount,
        let front = try? Mesh(
            positions: Array(part.mesh.positions[0..<firstBack]), triangles: triangles)
    else { return nil }
    let bvh = TriangleBVH(front)
    var stack = TriangleBVH.makeStack(depth: bvh.depth)
    var total = 0.0, most = 0.0, n = 0
    for v in firstBack..<part.mesh.vertexCount where part.mesh.positions[v].z > 0 {
        let q = SIMD3<Double>(part.mesh.positions[v])
        let d = ((bvh.closestPoint(to: q, stack: &stack)) - q)
        let distance = (d * d).sum().squareRoot()
        total += distance
        most = max(most, distance)
        n += 1
    }
    return n > 0 ? (total / Double(n), most) : nil
}

/// Surfaces of the `solid` fuzz target's kind: a generator of well-formed ones, their options
/// from the target's flags byte (`Solidify.FuzzInput`, the decoding the target and the bench share).
struct FuzzKind {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func random() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(1 << 53)
    }

    mutating func int(_ n: Int) -> Int { min(n - 1, Int(random() * Double(n))) }

    /// CPU seconds of this process (both threads of the distance field).
    static func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The next surface: its kind drawn, its lattice points and triangles well formed (edge-manifold,
    /// consistently wound), its extent 1–400 mm and its options from a random flags byte.
    mutating func next() -> (label: String, mesh: Mesh, options: SolidOptions, count: Int?)? {
        let extentByte = UInt8(int(201))  // 10^(b/255·3.301): 1–388 mm
        let extent = Float(pow(10, Double(extentByte) / 255 * 3.301))
        let flags = UInt8(int(256))
        let kind = int(4)
        var lattice: [SIMD3<Int>] = []
        var triangles: [UInt32] = []
        let label: String
        switch kind {
        case 0:
            // A grid, its points jittered within their lattice cells, heights random or smooth.
            let nx = 2 + int(13), ny = 2 + int(min(13, 196 / nx - 1))
            let smooth = random() < 0.5
            let (fx, fy, amplitude) = (random() * 3, random() * 3, int(32))
            for j in 0..<ny {
                for i in 0..<nx {
                    let x = i * 31 / (nx - 1), y = j * 31 / (ny - 1)
                    let z =
                        smooth
                        ? Int((Double(amplitude) * (0.5 + 0.5 * sin(fx * Double(i) + fy * Double(j)))).rounded())
                        : int(amplitude + 1)
                    lattice.append(SIMD3(x, y, min(31, z)))
                }
            }
            for j in 0..<(ny - 1) {
                for i in 0..<(nx - 1) {
                    let a = UInt32(j * nx + i), b = a + 1, c = a + UInt32(nx), d = c + 1
                    triangles += random() < 0.5 ? [a, b, d, a, d, c] : [a, b, c, b, d, c]
                }
            }
            label = "grid \(nx)x\(ny)\(smooth ? " smooth" : " random")"
        case 1:
            // A fan around a centre point: a star-shaped outline.
            let k = 3 + int(60)
            lattice.append(SIMD3(16, 16, int(32)))
            for s in 0..<k {
                let phi = Double(s) / Double(k) * 2 * Double.pi
                let r = 4 + random() * 11.5
                lattice.append(SIMD3(Int((16 + r * cos(phi)).rounded()), Int((16 + r * sin(phi)).rounded()), int(32)))
            }
            for s in 0..<k { triangles += [0, UInt32(1 + s), UInt32(1 + (s + 1) % k)] }
            label = "fan of \(k)"
        case 2:
            // A strip along a random curve.
            let k = 2 + int(60)
            for s in 0...k {
                let x = s * 31 / k, wobble = int(6)
                lattice.append(SIMD3(x, 10 + wobble, int(32)))
                lattice.append(SIMD3(x, 20 + int(12) - wobble, int(32)))
            }
            for s in 0..<k {
                let a = UInt32(2 * s), b = a + 1, c = a + 2, d = a + 3
                triangles += [a, c, d, a, d, b]
            }
            label = "strip of \(2 * k)"
        default:
            // Loose triangles (one, or up to 20 apart).
            let k = random() < 0.4 ? 1 : 2 + int(19)
            for t in 0..<k {
                let p = (0..<3).map { _ in SIMD3(int(32), int(32), int(32)) }
                lattice += p
                triangles += [UInt32(3 * t), UInt32(3 * t + 1), UInt32(3 * t + 2)]
            }
            label = k == 1 ? "one triangle" : "\(k) loose triangles"
        }
        let positions = lattice.map { SIMD3<Float>(Float($0.x), Float($0.y), Float($0.z)) * (extent / 31) }
        guard let mesh = try? Mesh(positions: positions, triangles: triangles) else { return nil }
        let (options, count) = Solidify.FuzzInput.options(flags: flags, extentByte: extentByte)
        return (String(format: "%@ %.0f mm", label, extent), mesh, options, count)
    }
}
