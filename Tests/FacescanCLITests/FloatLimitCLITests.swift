import Foundation
import Testing

/// Meshes whose coordinates reach ±3.4e38 (`Float.greatestFiniteMagnitude`) through every mesh
/// command: each one either succeeds with finite output (every file written reads back; the
/// printed numbers hold no `inf` or `nan`) or refuses with one line naming the file and exit 2.
@Suite struct FloatLimitCLITests {
    static let limit = Float.greatestFiniteMagnitude

    /// A closed UV sphere (`rings` × `segments`) of radius ``limit``, or an open wavy sheet
    /// spanning -limit…limit, as binary STL.
    static func stl(closed: Bool) -> Data {
        var corners: [[SIMD3<Float>]] = []
        if closed {
            let rings = 8, segments = 12
            func point(_ i: Int, _ j: Int) -> SIMD3<Float> {
                if i == 0 { return [0, 0, limit] }
                if i == rings { return [0, 0, -limit] }
                let theta = Double.pi * Double(i) / Double(rings), phi = 2 * Double.pi * Double(j) / Double(segments)
                let r = Double(limit)
                return SIMD3(
                    Float(r * sin(theta) * cos(phi)), Float(r * sin(theta) * sin(phi)), Float(r * cos(theta)))
            }
            for i in 0..<rings {
                for j in 0..<segments {
                    let a = point(i, j), b = point(i, j + 1), c = point(i + 1, j), d = point(i + 1, j + 1)
                    if i > 0 { corners.append([a, c, b]) }
                    if i < rings - 1 { corners.append([b, c, d]) }
                }
            }
        } else {
            let n = 6
            func point(_ i: Int, _ j: Int) -> SIMD3<Float> {
                let x = 2 * Double(i) / Double(n - 1) - 1, y = 2 * Double(j) / Double(n - 1) - 1
                let r = Double(limit)
                return SIMD3(Float(r * x), Float(r * y), Float(r * 0.5 * cos(Double(i)) * sin(Double(j))))
            }
            for i in 0..<(n - 1) {
                for j in 0..<(n - 1) {
                    corners.append([point(i, j), point(i + 1, j), point(i, j + 1)])
                    corners.append([point(i, j + 1), point(i + 1, j), point(i + 1, j + 1)])
                }
            }
        }
        var out = Data(count: 80)
        func put(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        put(UInt32(corners.count))
        for t in corners {
            for _ in 0..<3 { put(0) }
            for p in t { for k in 0..<3 { put(p[k].bitPattern) } }
            out.append(contentsOf: [0, 0])
        }
        return out
    }

    /// Every mesh command with its outputs (files in `dir`), for the mesh at `input`.
    static func commands(_ input: String, _ dir: String) -> [(args: [String], outputs: [String])] {
        var list: [(args: [String], outputs: [String])] = [
            (["inspect", input], []),
            (["inspect", "--json", input], []),
            (["render", input, dir + "/r.png"], [dir + "/r.png"]),
            (["compare", input, input, "--samples", "2000"], []),
            (["compare", "--json", input, input, "--samples", "2000", "--heatmap", dir + "/h.png"], [dir + "/h.png"]),
            (["solidify", input, dir + "/solid.stl"], [dir + "/solid.stl"]),
        ]
        for n in ["8", "16", "30", "400"] {  // decimation and refinement (--target-vertices above the count)
            list.append((["simplify", input, dir + "/s\(n).stl", "-n", n], [dir + "/s\(n).stl"]))
        }
        for ext in ["obj", "stl", "off", "ply", "glb", "3mf", "fbx", "dae", "x3d", "x", "3ds", "usdz"] {
            list.append((["convert", input, dir + "/c." + ext], [dir + "/c." + ext]))
            list.append((["convert", input, dir + "/m." + ext, "--units", "m"], [dir + "/m." + ext]))
        }
        return list
    }

    @Test(arguments: [true, false])
    func everyMeshCommandStaysFiniteOrRefuses(closed: Bool) throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + (closed ? "/sphere-at-float-max.stl" : "/sheet-at-float-max.stl")
        try Self.stl(closed: closed).write(to: URL(fileURLWithPath: input))
        var succeeded = 0
        for (args, outputs) in Self.commands(input, dir) {
            let r = try runFacescan(args)
            let what = args.joined(separator: " ")
            if r.status == 0 {
                succeeded += 1
                for word in ["inf", "nan"] {
                    #expect(!r.stdout.lowercased().contains(word), "\(what) printed \(word): \(r.stdout)")
                }
                for out in outputs where out.hasSuffix(".png") {
                    let png = FileManager.default.contents(atPath: out) ?? Data()
                    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(what): \(out) is not a PNG")
                }
                // USDZ is written only: its points at this size are USDZTests' (finite).
                for out in outputs where !out.hasSuffix(".png") && !out.hasSuffix(".usdz") {
                    // The readers refuse a non-finite coordinate: a file that reads back is finite.
                    let unit = args.contains("--units") ? "m" : "mm"
                    let back = try runFacescan(["inspect", "--json", out, "--units", unit])
                    #expect(back.status == 0, "\(what): \(out) does not read back: \(back.stderr)")
                }
            } else {
                #expect(r.status == 2, "\(what): exit \(r.status): \(r.stderr)")
                #expect(
                    r.stderr.hasPrefix("facescan: ") && r.stderr.filter { $0 == "\n" }.count == 1,
                    "\(what): \(r.stderr)")
                #expect(
                    r.stderr.contains(input) || outputs.contains { r.stderr.contains($0) },
                    "\(what): the message names no file: \(r.stderr)")
                for out in outputs {
                    #expect(!FileManager.default.fileExists(atPath: out), "\(what) refused but wrote \(out)")
                }
            }
        }
        // Most succeed: reading, measuring, rendering and the formats that hold such numbers.
        #expect(succeeded >= 20, "only \(succeeded) commands succeeded")
    }

    /// The sheet refined and decimated keeps its size: the work is done at a smaller scale and
    /// scaled back, not clamped.
    @Test func simplifyKeepsTheSize() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/sheet.stl"
        try Self.stl(closed: false).write(to: URL(fileURLWithPath: input))
        for n in ["16", "30"] {
            let r = try runFacescan(["simplify", input, dir + "/s.stl", "-n", n])
            #expect(r.status == 0, "\(r.stderr)")
            let back = try runFacescan(["inspect", "--json", dir + "/s.stl"])
            #expect(back.json?["vertices"] as? Int == Int(n))
            let box = back.json?["boundingBox"] as? [String: Any]
            let size = box?["size"] as? [Double] ?? []
            #expect(size.count == 3 && size[0] > 6e38 && size[0].isFinite, "\(size)")
        }
    }
}

extension FloatLimitCLITests {
    /// A valid OBJ whose coordinates are near 1e32: inspect and compare print them (no trap on
    /// converting a size to Int), with -v and a heatmap too.
    @Test func hugeCoordinatesArePrintedNotTrapped() throws {
        let dir = tempDir()
        let big = dir + "/big.obj"
        try "v 1e32 0 0\nv 0 1e32 0\nv 0 0 1e32\nv 1e32 1e32 0\nf 1 2 3\nf 2 4 3\n".write(
            toFile: big, atomically: false, encoding: .utf8)
        let i = try runFacescan(["inspect", big, "-v"])
        #expect(i.status == 0 && i.stdout.contains("e+32") && i.stderr.contains("e+32"), "\(i.stdout)\(i.stderr)")
        #expect(try runFacescan(["inspect", big, "--json"]).json?["vertices"] as? Int == 4)
        let c = try runFacescan(["compare", big, big, "-v", "--samples", "1000", "--heatmap", dir + "/h.png"])
        #expect(c.status == 0 && c.stdout.hasPrefix("rms_um "), "\(c.stdout)\(c.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/h.png"))
    }
}
