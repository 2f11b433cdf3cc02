import FaceScanKit
import Foundation

/// The solid step on small odd surfaces (issue 59): 40 bumpy grids of 4–196 vertices, 1–300 mm
/// across (a fixed pseudo-random set), each made a shell and a relief by `Solidify.part` in this
/// process, best of `runs`; prints the distribution of the 80 wall times and the slowest.
func runSmallSolidBench(runs: Int = 3) {
    print("== solid step on 40 small bumpy grids (4-196 vertices, 1-300 mm), shell and relief, best of \(runs)")
    var state: UInt64 = 0x5EED_0059
    func random() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(1 << 53)
    }
    var times: [(ms: Double, label: String, outcome: String)] = []
    for s in 0..<40 {
        var nx = 2, ny = 2
        repeat {
            nx = 2 + Int(random() * 13)
            ny = 2 + Int(random() * 13)
        } while nx * ny > 196
        let size = pow(10, random() * log10(300))
        let amplitude = size * (0.02 + 0.38 * random()), bowl = size * 0.5 * random()
        let waves = (0..<3).map { _ in
            ((2 * random() - 1) * amplitude, 0.5 + 3.5 * random(), 0.5 + 3.5 * random(), 6.3 * random())
        }
        var positions: [SIMD3<Float>] = []
        for j in 0..<ny {
            for i in 0..<nx {
                let u = Double(i) / Double(nx - 1) - 0.5, v = Double(j) / Double(ny - 1) - 0.5
                var z = bowl * (0.5 - u * u - v * v)
                for (a, fx, fy, phase) in waves { z += a * sin(fx * u * 6.28 + fy * v * 6.28 + phase) }
                positions.append(SIMD3(Float(u * size), Float(v * size * (0.6 + 0.8 * random())), Float(z)))
            }
        }
        var triangles: [UInt32] = []
        for j in 0..<(ny - 1) {
            for i in 0..<(nx - 1) {
                let a = UInt32(j * nx + i), b = a + 1, c = a + UInt32(nx), d = c + 1
                triangles += [a, b, d, a, d, c]
            }
        }
        guard let mesh = try? Mesh(positions: positions, triangles: triangles) else { continue }
        // FACESCAN_BENCH_DUMP=DIR writes each surface as DIR/sNN.obj (to run the CLI on the same set).
        if let dir = ProcessInfo.processInfo.environment["FACESCAN_BENCH_DUMP"] {
            var text = ""
            for p in positions { text += "v \(p.x) \(p.y) \(p.z)\n" }
            for t in stride(from: 0, to: triangles.count, by: 3) {
                text += "f \(triangles[t] + 1) \(triangles[t + 1] + 1) \(triangles[t + 2] + 1)\n"
            }
            try? text.write(toFile: String(format: "%@/s%02d.obj", dir, s), atomically: true, encoding: .utf8)
        }
        for base in [false, true] {
            var best = Double.infinity
            var outcome = ""
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    let part = try Solidify.part(mesh, options: SolidOptions(base: base), unitInMillimetres: 1)
                    outcome = "part of \(part.mesh.vertexCount) vertices"
                } catch {
                    outcome = "refused"
                }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let label = String(format: "s%02d %dx%d %.1f mm %@", s, nx, ny, size, base ? "relief" : "shell")
            times.append((best, label, outcome))
        }
    }
    let sorted = times.sorted { $0.ms < $1.ms }
    func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))].ms }
    print(
        String(
            format: "%d runs: median %.1f ms, p90 %.1f ms, max %.1f ms; over 50 ms: %d, over 150 ms: %d; refused %d",
            sorted.count, at(0.5), at(0.9), sorted.last?.ms ?? 0, sorted.filter { $0.ms > 50 }.count,
            sorted.filter { $0.ms > 150 }.count, sorted.filter { $0.outcome == "refused" }.count))
    for t in sorted.suffix(5).reversed() { print(String(format: "  %7.1f ms  %@: %@", t.ms, t.label, t.outcome)) }
}
