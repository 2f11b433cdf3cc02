import Foundation
import Testing

/// Is the printed part the whole face? An independent check, written apart from the library: the
/// plain face (`process`, OBJ in mm) and the part (`process --solid` / `--base`, STL) are read by
/// this file's own readers, the face turned into the part's frame by the rotation the report
/// states and registered to the part by translation (nose tips, then nearest points), and both
/// seen from the front as depth maps (0.5 mm cells). The face region is every cell whose first
/// hit on the face is front-facing (n.z > 0.25) and within 45 mm of its frontmost point; the part
/// covers a cell when its first hit lies within 1 mm of the face's. Each sample, each preset,
/// shell and relief: at least 99 % covered, the two halves within 1 % of each other.
///
/// Solid parts take seconds in a debug build: these tests run ``fastFacescanBinary``.
/// Its cases run side by side (each in its own directory): run one after another they were the last
/// suites to finish in `make test`, with one core idle.
@Suite struct WholeFaceTests {
    struct Triangles {
        var corners: [SIMD3<Double>] = []  // three per triangle
    }

    static func readSTL(_ path: String) throws -> Triangles {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var out = Triangles()
        let count = data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 80, as: UInt32.self)) }
        #expect(data.count == 84 + 50 * count, "\(path): not a binary STL")
        data.withUnsafeBytes { raw in
            for t in 0..<count {
                let base = 84 + 50 * t + 12
                for c in 0..<3 {
                    let o = base + 12 * c
                    out.corners.append(
                        SIMD3(
                            Double(raw.loadUnaligned(fromByteOffset: o, as: Float.self)),
                            Double(raw.loadUnaligned(fromByteOffset: o + 4, as: Float.self)),
                            Double(raw.loadUnaligned(fromByteOffset: o + 8, as: Float.self))))
                }
            }
        }
        return out
    }

    static func readOBJ(_ path: String) throws -> Triangles {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var vertices: [SIMD3<Double>] = []
        var out = Triangles()
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.first == "v", words.count >= 4 {
                vertices.append(SIMD3(Double(words[1])!, Double(words[2])!, Double(words[3])!))
            } else if words.first == "f", words.count == 4 {
                for w in words.dropFirst() {
                    let index = Int(w.split(separator: "/").first!)!
                    out.corners.append(vertices[index - 1])
                }
            }
        }
        return out
    }

    /// The capture-to-part rotation from the report's angles (FaceScanKit's `Solidify.Turn`):
    /// forward = (cos p sin y, sin p, cos p cos y); right ⟂ forward with right.y = sin roll.
    static func rotation(yaw: Double, pitch: Double, roll: Double) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let (y, p, r) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
        let forward = SIMD3(cos(p) * sin(y), sin(p), cos(p) * cos(y))
        let horizontal = SIMD3(cos(y), 0, -sin(y))
        let upish = SIMD3(-sin(p) * sin(y), cos(p), -sin(p) * cos(y))
        let s = max(-1, min(1, sin(r) / max(cos(p), 1e-9)))
        let right = (1 - s * s).squareRoot() * horizontal + s * upish
        let up = SIMD3(
            forward.y * right.z - forward.z * right.y, forward.z * right.x - forward.x * right.z,
            forward.x * right.y - forward.y * right.x)
        return (right, up, forward)
    }

    struct DepthMap {
        var z: [Double]
        var nz: [Double]
        var nx: Int, ny: Int
        var x0: Double, y0: Double, h: Double

        init(_ mesh: Triangles, x0: Double, y0: Double, nx: Int, ny: Int, h: Double) {
            (self.x0, self.y0, self.nx, self.ny, self.h) = (x0, y0, nx, ny, h)
            z = [Double](repeating: -.infinity, count: nx * ny)
            nz = [Double](repeating: 0, count: nx * ny)
            let c = mesh.corners
            for t in 0..<(c.count / 3) {
                let a = c[3 * t], b = c[3 * t + 1], d = c[3 * t + 2]
                let far = max((a * a).sum(), max((b * b).sum(), (d * d).sum()))
                guard far < 1e12 else { continue }
                let u = b - a, v = d - a
                let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                let length = (n * n).sum().squareRoot()
                guard length > 0 else { continue }
                let det = (b.y - d.y) * (a.x - d.x) + (d.x - b.x) * (a.y - d.y)
                guard abs(det) > 1e-12 else { continue }
                let i0 = max(0, Int(((min(a.x, b.x, d.x) - x0) / h).rounded(.down)))
                let i1 = min(nx - 1, Int(((max(a.x, b.x, d.x) - x0) / h).rounded(.up)))
                let j0 = max(0, Int(((min(a.y, b.y, d.y) - y0) / h).rounded(.down)))
                let j1 = min(ny - 1, Int(((max(a.y, b.y, d.y) - y0) / h).rounded(.up)))
                guard i0 <= i1, j0 <= j1 else { continue }
                for j in j0...j1 {
                    let y = y0 + Double(j) * h
                    for i in i0...i1 {
                        let x = x0 + Double(i) * h
                        let l1 = ((b.y - d.y) * (x - d.x) + (d.x - b.x) * (y - d.y)) / det
                        let l2 = ((d.y - a.y) * (x - d.x) + (a.x - d.x) * (y - d.y)) / det
                        let l3 = 1 - l1 - l2
                        guard l1 >= -1e-9, l2 >= -1e-9, l3 >= -1e-9 else { continue }
                        let depth = l1 * a.z + l2 * b.z + l3 * d.z
                        if depth > z[j * nx + i] {
                            z[j * nx + i] = depth
                            nz[j * nx + i] = n.z / length
                        }
                    }
                }
            }
        }
    }

    /// Coverage of the face region by the part, whole and per half (left, right of the nose tip).
    static func coverage(face: Triangles, part: Triangles, turn: (Double, Double, Double), scale: Double)
        -> (all: Double, left: Double, right: Double)
    {
        let (right, up, forward) = rotation(yaw: turn.0, pitch: turn.1, roll: turn.2)
        var f = face
        for k in f.corners.indices {
            let p = f.corners[k] * scale
            f.corners[k] = SIMD3((right * p).sum(), (up * p).sum(), (forward * p).sum())
        }
        // Nose tips, then translation by nearest points (front-facing part vertices near the face).
        let faceTip = f.corners.max { $0.z < $1.z }!
        let partTip = part.corners.max { $0.z < $1.z }!
        var shift = partTip - faceTip
        for k in f.corners.indices { f.corners[k] += shift }
        // Point-to-plane: part vertices against the face's triangle centroids and normals.
        let cell = 3.0
        func key(_ p: SIMD3<Double>) -> SIMD3<Int> {
            SIMD3(Int((p.x / cell).rounded(.down)), Int((p.y / cell).rounded(.down)), Int((p.z / cell).rounded(.down)))
        }
        // The part's front: centroids of its triangles facing forward (a shell's back, a wall
        // behind, must not pull the face onto it), with their normals.
        var sample: [(SIMD3<Double>, SIMD3<Double>)] = []
        let stride = max(1, part.corners.count / 3 / 6000)
        for t in Swift.stride(from: 0, to: part.corners.count / 3, by: stride) {
            let a = part.corners[3 * t], b = part.corners[3 * t + 1], c = part.corners[3 * t + 2]
            let u = b - a, v = c - a
            let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
            let l = (n * n).sum().squareRoot()
            let g = (a + b + c) / 3
            if l > 0, n.z / l > 0.3, g.z > partTip.z - 45 { sample.append((g, n / l)) }
        }
        for _ in 0..<8 {
            var grid: [SIMD3<Int>: [(SIMD3<Double>, SIMD3<Double>)]] = [:]
            for t in 0..<(f.corners.count / 3) {
                let a = f.corners[3 * t], b = f.corners[3 * t + 1], c = f.corners[3 * t + 2]
                let u = b - a, v = c - a
                let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                let l = (n * n).sum().squareRoot()
                guard l > 0 else { continue }
                let g = (a + b + c) / 3
                grid[key(g), default: []].append((g, n / l))
            }
            var m = [Double](repeating: 0, count: 9), r = SIMD3<Double>.zero
            for (q, normal) in sample {
                let k = key(q)
                var best = Double.infinity
                var nearest = (q, SIMD3<Double>.zero)
                for dz in -1...1 {
                    for dy in -1...1 {
                        for dx in -1...1 {
                            for e in grid[k &+ SIMD3(dx, dy, dz)] ?? [] where (e.1 * normal).sum() > 0.7 {
                                let d = ((e.0 - q) * (e.0 - q)).sum()
                                if d < best { (best, nearest) = (d, e) }
                            }
                        }
                    }
                }
                guard best < 4 else { continue }
                let n = nearest.1
                let e = (n * (q - nearest.0)).sum()
                for i in 0..<3 { for j in 0..<3 { m[3 * i + j] += n[i] * n[j] } }
                r += n * e
            }
            // Solve m · shift = r (Cramer); a tiny ridge keeps it regular.
            for i in 0..<3 { m[4 * i] += 1e-3 }
            func det(_ a: [Double]) -> Double {
                a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6])
                    + a[2] * (a[3] * a[7] - a[4] * a[6])
            }
            let d = det(m)
            guard abs(d) > 1e-12 else { break }
            var step = SIMD3<Double>.zero
            for col in 0..<3 {
                var mc = m
                for row in 0..<3 { mc[3 * row + col] = r[row] }
                step[col] = det(mc) / d
            }
            // A step beyond a few millimetres is no refinement: the nose tips already agree.
            guard step.x.isFinite, step.y.isFinite, step.z.isFinite, (step * step).sum() < 25 else { break }
            shift = step
            for k in f.corners.indices { f.corners[k] += shift }
        }
        // Depth maps over the face's extent.
        let h = 0.5
        let xs = f.corners.map(\.x), ys = f.corners.map(\.y)
        let x0 = xs.min()! - 1, y0 = ys.min()! - 1
        let nx = Int((xs.max()! + 1 - x0) / h) + 1, ny = Int((ys.max()! + 1 - y0) / h) + 1
        let faceMap = DepthMap(f, x0: x0, y0: y0, nx: nx, ny: ny, h: h)
        let partMap = DepthMap(part, x0: x0, y0: y0, nx: nx, ny: ny, h: h)
        let top = faceMap.z.filter { $0.isFinite }.max()!
        let tipX = f.corners.max { $0.z < $1.z }!.x
        var region = [0.0, 0.0], covered = [0.0, 0.0]
        for j in 0..<ny {
            for i in 0..<nx {
                let k = j * nx + i
                let z = faceMap.z[k]
                guard z.isFinite, faceMap.nz[k] > 0.25, z >= top - 45 else { continue }
                let half = x0 + Double(i) * h < tipX ? 0 : 1
                region[half] += 1
                if abs(partMap.z[k] - z) <= 1 { covered[half] += 1 }
            }
        }
        return (
            (covered[0] + covered[1]) / (region[0] + region[1]), covered[0] / region[0], covered[1] / region[1]
        )
    }

    static func run(_ args: [String]) throws -> RunResult {
        let (status, stdout, stderr) = try ClientImportTests.run(fastFacescanBinary, args, cwd: tempDir())
        return RunResult(status: status, stdout: stdout, stderr: stderr)
    }

    static func check(sample: (dir: String, capture: String), quality: String, mode: String, fit: [String] = [])
        throws
    {
        let dir = tempDir()
        let plain = try run(
            ["process", sample.capture, "--quality", quality, "-o", dir, "--name", "plain", "--formats", "obj", "-q"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let part = try run(
            ["process", sample.capture, mode, "--quality", quality, "-o", dir, "--name", "part", "--formats", "stl"]
                + fit + ["--json", "-q"])
        #expect(part.status == 0, "\(part.stderr)")
        guard plain.status == 0, part.status == 0, let report = part.json,
            let turn = report["rotationDeg"] as? [String: Any],
            let yaw = turn["yaw"] as? Double, let pitch = turn["pitch"] as? Double, let roll = turn["roll"] as? Double
        else {
            Issue.record("no rotationDeg in the report: \(part.stdout)")
            return
        }
        #expect(report["depthAskedMm"] == nil, "the cut moved: \(part.stdout)")
        let scale = report["scale"] as? Double ?? 1
        let c = coverage(
            face: try readOBJ(dir + "/plain.obj"), part: try readSTL(dir + "/part.stl"), turn: (yaw, pitch, roll),
            scale: scale)
        let name = (sample.dir as NSString).lastPathComponent
        print(
            "WholeFaceTests: \(name) \(quality) \(mode)\(fit.isEmpty ? "" : " --fit"): \(String(format: "%.1f %% (left %.1f, right %.1f)", 100 * c.all, 100 * c.left, 100 * c.right))"
        )
        #expect(c.all >= 0.99, "\(name) \(quality) \(mode): \(c)")
        #expect(abs(c.left - c.right) <= 0.01, "\(name) \(quality) \(mode): halves \(c)")
    }

    @Test(arguments: ["low", "medium", "high"], ["--solid", "--base"])
    func everySamplePartIsTheWholeFace(quality: String, mode: String) throws {
        for sample in sampleCaptures() { try Self.check(sample: sample, quality: quality, mode: mode) }
    }

    @Test(arguments: ["--solid", "--base"])
    func aFittedPartIsTheWholeFace(mode: String) throws {
        for sample in sampleCaptures() {
            try Self.check(sample: sample, quality: "low", mode: mode, fit: ["--fit", "180x180x180"])
        }
    }
}
