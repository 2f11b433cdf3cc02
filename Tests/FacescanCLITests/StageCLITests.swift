import Foundation
import Testing

/// The stage commands wired together through standard input and output, as in the README.
@Suite(.serialized) struct StageCLITests {
    let fixture = packageRoot + "/Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"

    func inspectJSON(_ args: [String], stdin: Data? = nil) throws -> [String: Any] {
        let r = try runFacescan(["inspect"] + args + ["--json"], stdin: stdin)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(r.json, "\(r.stdout)")
    }

    @Test func simplifyToStandardOutputFeedsInspectAndSolidify() throws {
        let dir = tempDir()
        // OBJ by default, STL with --format.
        let obj = try runFacescan(["simplify", fixture, "-", "--target-vertices", "700"])
        #expect(obj.status == 0, "\(obj.stderr)")
        #expect(obj.stdout.hasPrefix("v ") || obj.stdout.hasPrefix("#"))
        #expect(try inspectJSON(["-"], stdin: Data(obj.stdout.utf8))["vertices"] as? Int == 700)
        let stl = try runFacescan(["simplify", fixture, "-", "--target-vertices", "600", "--format", "stl", "--json"])
        #expect(stl.status == 0, "\(stl.stderr)")
        // --json goes to standard error when the mesh takes standard output.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stl.stderr.utf8)) as? [String: Any])
        #expect((report["mesh"] as? [String: Any])?["outputVertices"] as? Int == 600)
        // The README's pipeline: simplify | solidify, then inspect the part.
        let solid = try runFacescan(["solidify", "-", dir + "/part.stl", "--base", "--units", "m"], stdin: Data(obj.stdout.utf8))
        #expect(solid.status == 0, "\(solid.stderr)")
        let part = try inspectJSON([dir + "/part.stl", "--units", "m"])
        #expect(part["watertight"] as? Bool == true, "\(part)")
    }

    @Test func renderAndConvertWriteStandardOutput() throws {
        let dir = tempDir()
        let png = try runFacescanBytes(["render", fixture, "-", "--size", "32"], cwd: dir)
        #expect(png.status == 0)
        #expect(Array(png.stdout.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(!FileManager.default.fileExists(atPath: dir + "/-"), "no file named '-'")
        let ply = try runFacescanBytes(["convert", fixture, "-", "--format", "ply"], cwd: dir)
        #expect(ply.status == 0)
        #expect(String(decoding: ply.stdout.prefix(3), as: UTF8.self) == "ply")
    }

    @Test func aFileWithoutTrianglesIsBadInput() throws {
        let dir = tempDir()
        try "garbage\nv 0 0 0\n".write(toFile: dir + "/g.obj", atomically: false, encoding: .utf8)
        for command in [["inspect", dir + "/g.obj"], ["render", dir + "/g.obj", dir + "/g.png"], ["compare", dir + "/g.obj", fixture]] {
            let r = try runFacescan(command)
            #expect(r.status == 2, "\(command): \(r.status)")
            #expect(r.stderr.contains(dir + "/g.obj") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/g.png"))
    }
}
