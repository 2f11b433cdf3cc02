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
        let solid = try runFacescan(
            ["solidify", "-", dir + "/part.stl", "--base", "--units", "m"], stdin: Data(obj.stdout.utf8))
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
        for command in [
            ["inspect", dir + "/g.obj"], ["render", dir + "/g.obj", dir + "/g.png"],
            ["compare", dir + "/g.obj", fixture],
        ] {
            let r = try runFacescan(command)
            #expect(r.status == 2, "\(command): \(r.status)")
            #expect(r.stderr.contains(dir + "/g.obj") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/g.png"))
    }
}

/// Inputs and options found by fuzzing: each gives exit 2 (or 1 for a missing path) and one line
/// naming what is wrong, never a crash, a hang or a bad output.
@Suite(.serialized) struct HostileInputCLITests {
    let fixture = packageRoot + "/Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"

    func expectOneLine(_ r: RunResult, status: Int32, containing text: String, _ what: String) {
        #expect(r.status == status, "\(what): exit \(r.status) \(r.stderr)")
        #expect(r.stderr.contains(text), "\(what): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count <= 3 && !r.stderr.contains("Backtrac"), "\(what): \(r.stderr)")
    }

    @Test func negativeAndOutOfRangeNumbersGetTheirRangeMessage() throws {
        let capture = sampleCaptures()[0].capture
        expectOneLine(
            try runFacescan(["process", capture, "--scale", "-1"]), status: 2, containing: "--scale must be", "scale")
        expectOneLine(
            try runFacescan(["process", capture, "--target-vertices", "-5"]), status: 2,
            containing: "--target-vertices must be", "target")
        expectOneLine(
            try runFacescan(["process", capture, "--target-vertices", "50000000"]), status: 2,
            containing: "--target-vertices must be", "huge target")
        expectOneLine(
            try runFacescan(["solidify", fixture, "/tmp/x.stl", "--thickness", "1e30"]), status: 2,
            containing: "--thickness must be", "thickness")
        expectOneLine(
            try runFacescan(["compare", fixture, fixture, "--samples", "2000000000"]), status: 2,
            containing: "--samples must be", "samples")
        expectOneLine(
            try runFacescan(["compare", "-", "-"]), status: 2, containing: "only one of the two meshes",
            "standard input")
        expectOneLine(
            try runFacescan(["regress", "--tolerance-um", "nan"]), status: 2, containing: "--tolerance-um", "tolerance")
        expectOneLine(
            try runFacescan(["regress", "/nonexistent-sample-dir"]), status: 1, containing: "/nonexistent-sample-dir",
            "regress dir")
    }

    @Test func outputNamesStayInTheOutputDirectory() throws {
        let dir = tempDir()
        let capture = sampleCaptures()[0].capture
        for name in ["../escape", "", ".hidden", "a/b"] {
            expectOneLine(
                try runFacescan(["process", capture, "--output-dir", dir + "/o", "--name", name]), status: 2,
                containing: "--name", "name '\(name)'")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/escape.stl"))
        expectOneLine(
            try runFacescan(["render", fixture, dir + "/x.jpg"]), status: 2, containing: ".png", "render jpg")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.jpg"))
    }

    @Test func coordinatesThatOverflowTheOutputAreBadInput() throws {
        let dir = tempDir()
        // 1e36 m is fine in the capture's numbers but overflows float32 once in millimetres.
        try smallCapture(frames: [goodMeta]).replacingOccurrences(of: "\"vertices\":[", with: "\"vertices\":[1e36,")
            .replacingOccurrences(of: "[1e36,-0.075,", with: "[1e36,").write(
                toFile: dir + "/far.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/far.json", "--output-dir", dir + "/o", "--target-vertices", "144"])
        expectOneLine(r, status: 2, containing: "vertices", "overflow")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/o")) ?? []).isEmpty)
        // compare prints huge distances instead of crashing.
        try "v 1e15 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n".write(
            toFile: dir + "/far.obj", atomically: false, encoding: .utf8)
        // Sizes 1e15 apart are refused unless each file's unit is stated.
        let refused = try runFacescan(["compare", dir + "/far.obj", fixture])
        #expect(refused.status == 2 && refused.stderr.contains("apart"), "\(refused.stderr)")
        let c = try runFacescan(["compare", dir + "/far.obj", fixture, "--units-a", "m", "--units-b", "m"])
        #expect(c.status == 0 && c.stdout.hasPrefix("rms_um "), "\(c.stdout)\(c.stderr)")
    }

    @Test func solidifyNamesTheFileAndWhatIsWrong() throws {
        let dir = tempDir()
        try "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 1 2\n".write(
            toFile: dir + "/d.obj", atomically: false, encoding: .utf8)
        let r = try runFacescan(["solidify", dir + "/d.obj", dir + "/s.stl", "--units", "m"])
        expectOneLine(r, status: 2, containing: dir + "/d.obj", "degenerate")
        #expect(r.stderr.contains("degenerate"), "\(r.stderr)")
        expectOneLine(
            try runFacescan(["solidify", fixture, dir + "/s.stl", "--thickness", "1e-12"]), status: 2,
            containing: "0.01", "thin")
        #expect(!FileManager.default.fileExists(atPath: dir + "/s.stl"))
    }

    /// Second fuzzing round: a report lost on a full disk, assimp's dump formats (timestamped,
    /// unreadable), a directory as a mesh, and an input whose name starts with '.'.
    @Test func lostOutputDumpFormatsDirectoriesAndHiddenNames() throws {
        let dir = tempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: facescanBinary)
        p.arguments = ["inspect", fixture, "--json"]
        p.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 1 && stderr.contains("standard output"), "\(p.terminationStatus) \(stderr)")
        expectOneLine(
            try runFacescan(["convert", fixture, dir + "/x.bin", "--format", "assbin"]), status: 2,
            containing: "assbin", "assbin")
        expectOneLine(try runFacescan(["inspect", dir]), status: 1, containing: "is a directory", "directory")
        try smallCapture(frames: [goodMeta]).write(toFile: dir + "/.hidden.json", atomically: false, encoding: .utf8)
        let r = try runFacescan([
            "process", dir + "/.hidden.json", "--output-dir", dir + "/o", "--formats", "stl", "--target-vertices",
            "144",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/o")) == ["hidden.stl"])
    }

    @Test func truncatedPLYHeaderIsRefusedNotAwaited() throws {
        let dir = tempDir()
        try "ply\nformat ascii 1.0\nelement vertex 3\n".write(
            toFile: dir + "/t.ply", atomically: false, encoding: .utf8)
        expectOneLine(try runFacescan(["inspect", dir + "/t.ply"]), status: 2, containing: "end_header", "ply")
    }

    @Test func byteOrderMarkedOBJKeepsItsFirstVertex() throws {
        let dir = tempDir()
        try Data([0xEF, 0xBB, 0xBF] + Array("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".utf8)).write(
            to: URL(fileURLWithPath: dir + "/bom.obj"))
        let r = try runFacescan(["inspect", dir + "/bom.obj", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.json?["vertices"] as? Int == 3 && r.json?["triangles"] as? Int == 1)
    }
}
