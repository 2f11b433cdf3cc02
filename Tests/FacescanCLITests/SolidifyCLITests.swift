import Foundation
import Testing

/// `solidify`'s part options, which are `process`'s: `--depth` cuts the part, `--fit` scales it into
/// a build volume, `--verbose` reports what was done, and bad values are refused as `process`
/// refuses them.
@Suite(.serialized) struct SolidifyCLITests {
    let fixture = packageRoot + "/Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"

    /// The fixture (metres) decimated to 2 000 vertices in `dir`: a solid of it takes seconds in a
    /// debug build.
    func smallFace(in dir: String) throws -> String {
        let path = dir + "/face.obj"
        let r = try runFacescan(["simplify", fixture, path, "-n", "2000"])
        #expect(r.status == 0, "\(r.stderr)")
        return path
    }

    /// The smallest and largest coordinates of an OBJ file's vertices.
    func bounds(ofOBJ path: String) throws -> (lo: SIMD3<Double>, hi: SIMD3<Double>) {
        var lo = SIMD3<Double>(repeating: .infinity), hi = SIMD3<Double>(repeating: -.infinity)
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        where line.hasPrefix("v ") {
            let xyz = line.split(separator: " ").dropFirst().prefix(3).compactMap { Double($0) }
            try #require(xyz.count == 3, "\(line)")
            let p = SIMD3(xyz[0], xyz[1], xyz[2])
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        try #require(lo.x <= hi.x, "no vertex in \(path)")
        return (lo, hi)
    }

    /// The `--verbose` line `solid: depth D mm[ (asked A)], scale S`: depth used, depth asked (nil
    /// when the same), scale.
    func solidLine(_ stderr: String) throws -> (depth: Double, asked: Double?, scale: Double) {
        let line = try #require(
            stderr.split(separator: "\n").first { $0.hasPrefix("facescan: solid: ") }, "no solid line: \(stderr)")
        let punctuation = CharacterSet(charactersIn: ",()")
        let words = line.split(separator: " ").map { String($0.trimmingCharacters(in: punctuation)) }
        // facescan: solid: depth D mm [(asked A)] scale S
        let depth = try #require(words.firstIndex(of: "depth").flatMap { Double(words[$0 + 1]) }, "\(line)")
        let asked = words.firstIndex(of: "asked").flatMap { Double(words[$0 + 1]) }
        let scale = try #require(words.firstIndex(of: "scale").flatMap { Double(words[$0 + 1]) }, "\(line)")
        return (depth, asked, scale)
    }

    /// A shell and a relief cut 30 mm behind the face; where the rim overhangs the cut, it moves
    /// forward and the line says so.
    @Test(arguments: [[], ["--base"]])
    func depthCutsThePartWhichStandsOnZero(mode: [String]) throws {
        let depth = 30.0
        let dir = tempDir()
        let face = try smallFace(in: dir)
        let r = try runFacescan(["solidify", face, dir + "/part.obj", "--units", "m", "--depth", "30", "-v"] + mode)
        #expect(r.status == 0, "\(mode): \(r.stderr)")
        let (lo, hi) = try bounds(ofOBJ: dir + "/part.obj")
        let mm = 1000.0  // the part is in metres, as its input
        // 1 µm: float32 coordinates in metres.
        #expect(abs(lo.z * mm) <= 1e-3, "\(mode): lowest z \(lo.z * mm) mm")
        #expect(hi.z * mm <= depth + 1e-3, "\(mode): highest z \(hi.z * mm) mm")
        // The verbose line states the depth used: the frontmost point's height.
        let solid = try solidLine(r.stderr)
        #expect(solid.depth <= depth && solid.scale == 1, "\(mode): \(r.stderr)")
        #expect(abs(hi.z * mm - solid.depth) <= 0.005 * solid.depth, "\(mode): highest z \(hi.z * mm) mm, \(r.stderr)")
        #expect(solid.asked == (solid.depth == depth ? nil : depth), "\(mode): \(r.stderr)")
    }

    @Test(arguments: [[], ["--base"]])
    func fitScalesThePartIntoTheBuildVolume(mode: [String]) throws {
        let dir = tempDir()
        let face = try smallFace(in: dir)
        let r = try runFacescan(
            ["solidify", face, dir + "/part.obj", "--units", "m", "--fit", "50x50x50", "-v"] + mode)
        #expect(r.status == 0, "\(r.stderr)")
        let (lo, hi) = try bounds(ofOBJ: dir + "/part.obj")
        let size = (hi - lo) * 1000
        // The bed keeps --fit-margin (10 mm by default) free on each side for the slicer's skirt.
        let room = SIMD3<Double>(30, 30, 50)
        #expect(size.x <= room.x + 1e-3 && size.y <= room.y + 1e-3 && size.z <= room.z + 1e-3, "\(mode): \(size) mm")
        // Scaled down until one side touches the room, not further.
        let fill = max(size.x / room.x, max(size.y / room.y, size.z / room.z))
        #expect(fill >= 0.998, "\(mode): \(size) mm")
        #expect(abs(lo.z * 1000) <= 1e-3, "\(mode): lowest z \(lo.z * 1000) mm")
        let solid = try solidLine(r.stderr)
        #expect(solid.scale < 1, "\(mode): \(r.stderr)")
        // The depth reported is at life size: the part is that times the scale tall.
        #expect(
            abs(hi.z * 1000 - solid.depth * solid.scale) <= 0.01 * solid.depth * solid.scale,
            "\(mode): highest z \(hi.z * 1000) mm, \(r.stderr)")
    }

    /// Exit 2 (usage), one line naming the option, nothing written, and the message `process` gives.
    @Test func badDepthOrFitIsAUsageErrorNamingTheOption() throws {
        let dir = tempDir()
        for (args, option) in [(["--depth", "0"], "--depth"), (["--fit", "10x0x5"], "--fit")] {
            let r = try runFacescan(["solidify", fixture, dir + "/part.stl", "--units", "m"] + args)
            #expect(r.status == 2, "\(args): exit \(r.status)")
            #expect(
                r.stderr.hasPrefix("facescan: \(option) must be") && r.stderr.split(separator: "\n").count == 1,
                "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/part.stl"), "\(args)")
            let process = try runFacescan(["process", dir + "/none.json", "-o", dir] + args)
            #expect(process.status == 2 && process.stderr == r.stderr, "\(args): \(process.stderr)")
        }
    }
}
