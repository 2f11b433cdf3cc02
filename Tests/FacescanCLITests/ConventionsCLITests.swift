import Foundation
import Testing

/// Issue 27's conventions, through the built binary: suggestions, short flags, -q/-v on every
/// command, defaults in --help, unit warnings, a capture given to a mesh command.
@Suite struct ConventionsCLITests {
    /// A face-sized curved patch as OBJ, its coordinates multiplied by `scale` (1: metres-sized face).
    func face(scale: Double, in dir: String, name: String = "face.obj") throws -> String {
        var text = ""
        let n = 10
        for y in 0..<n {
            for x in 0..<n {
                let u = Double(x) / Double(n - 1) - 0.5, v = Double(y) / Double(n - 1) - 0.5
                text += "v \(u * 0.15 * scale) \(v * 0.2 * scale) \((0.05 - (u * u + v * v) * 0.1) * scale)\n"
            }
        }
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let a = y * n + x + 1
                text += "f \(a) \(a + 1) \(a + n)\nf \(a + n) \(a + 1) \(a + n + 1)\n"
            }
        }
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func misspeltSubcommandOptionAndFormatGetSuggestions() throws {
        for (args, hint) in [
            (["proces", "x.json"], "did you mean 'process'?"),
            (["proces"], "did you mean 'process'?"),
            (["process", "x.json", "--output", "o"], "Did you mean '--output-dir'?"),
            (["batch", "d", "--resum"], "Did you mean '--resume'?"),
            (["process", "x.json", "--formats", "stl,objj"], "did you mean 'obj'?"),
        ] {
            let r = try runFacescan(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(hint), "\(args): \(r.stderr)")
        }
        // Nothing close: no guess, the list.
        let far = try runFacescan(["zzzzzz"])
        #expect(
            far.status == 2 && !far.stderr.contains("did you mean") && far.stderr.contains("process, render"),
            "\(far.stderr)")
    }

    @Test func shortFlagsAndDefaultsInHelp() throws {
        let dir = tempDir()
        let capture = dir + "/cap.json"
        try smallCapture(frames: [goodMeta, goodMeta]).write(toFile: capture, atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", capture, "-o", dir + "/o", "-n", "100", "--formats", "obj", "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let obj = try String(contentsOfFile: dir + "/o/cap.obj", encoding: .utf8)
        #expect(obj.split(separator: "\n").filter { $0.hasPrefix("v ") }.count == 100)
        let help = try runFacescan(["process", "--help"]).stdout
        for option in [
            "--quality", "--smoothing", "--units", "--max-frames", "--formats", "--target-vertices", "--thumbnail-size",
            "--name",
        ] {
            // The option's help, up to the next option, states its default.
            let start = try #require(
                help.range(of: "  \(option)") ?? help.range(of: ", \(option)"), "\(option) not in help")
            let rest = help[start.upperBound...]
            let end = rest.range(of: "\n  -")?.lowerBound ?? rest.endIndex
            #expect(rest[..<end].contains("default"), "\(option): \(rest[..<end])")
        }
        let batchHelp = try runFacescan(["batch", "--help"]).stdout
        for flag in [
            "-j, --jobs", "-r, --recursive", "-o, --output-dir", "-n, --target-vertices", "-q, --quiet",
            "-v, --verbose",
        ] {
            #expect(batchHelp.contains(flag), "batch --help lacks \(flag)")
        }
    }

    @Test func quietAndVerboseOnEveryCommand() throws {
        for command in [
            "process", "render", "convert", "inspect", "compare", "regress", "batch", "simplify", "solidify",
        ] {
            let help = try runFacescan([command, "--help"]).stdout
            #expect(help.contains("-q, --quiet") && help.contains("-v, --verbose"), "\(command)")
        }
        let dir = tempDir()
        let metres = try face(scale: 1, in: dir)
        let v = try runFacescan(["convert", metres, dir + "/c.stl", "-v"])
        #expect(v.status == 0 && v.stderr.contains("100 vertices"), "\(v.stderr)")
        let both = try runFacescan(["inspect", metres, "-q", "-v"])
        #expect(both.status == 2)
    }

    /// A face in metres read as millimetres (no --units): a warning naming --units m; with
    /// --units given, none; -q silences it. solidify refuses a thickness larger than the part.
    @Test func implausibleSizesWarnAndNameTheFlag() throws {
        let dir = tempDir()
        let metres = try face(scale: 1, in: dir)
        let millimetres = try face(scale: 1000, in: dir, name: "mm.obj")
        let i = try runFacescan(["inspect", metres])
        #expect(i.status == 0)
        #expect(
            i.stderr.contains("warning") && i.stderr.contains("--units m") && i.stderr.contains(metres), "\(i.stderr)")
        #expect(try runFacescan(["inspect", metres, "--units", "m"]).stderr.isEmpty)
        #expect(try runFacescan(["inspect", millimetres]).stderr.isEmpty)
        #expect(try runFacescan(["inspect", metres, "-q"]).stderr.isEmpty)
        // compare assumes metres: a face in millimetres is too large.
        let c = try runFacescan(["compare", millimetres, millimetres, "--samples", "100"])
        #expect(c.status == 0 && c.stderr.contains("--units mm"), "\(c.stderr)")

        let s = try runFacescan(["solidify", metres, dir + "/part.stl"])
        #expect(s.status == 2, "\(s.stderr)")
        #expect(
            s.stderr.contains("--thickness") && s.stderr.contains("larger than the part")
                && s.stderr.contains("--units m"), "\(s.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/part.stl"))
        let ok = try runFacescan(["solidify", metres, dir + "/part.stl", "--units", "m"])
        #expect(ok.status == 0 && ok.stderr.isEmpty, "\(ok.stderr)")
    }

    /// convert and simplify: the unit decides the size only when a unit-less file goes to a
    /// format that states one (GLB in metres); then a missing --units with an odd size warns.
    @Test func convertWarnsWhenTheAssumedUnitDecidesTheSize() throws {
        let dir = tempDir()
        let metres = try face(scale: 1, in: dir)
        #expect(try runFacescan(["convert", metres, dir + "/a.stl"]).stderr.isEmpty)
        let glb = try runFacescan(["convert", metres, dir + "/a.glb"])
        #expect(glb.status == 0 && glb.stderr.contains("add --units m"), "\(glb.stderr)")
        let simplified = try runFacescan(["simplify", metres, dir + "/s.glb", "-n", "50"])
        #expect(simplified.status == 0 && simplified.stderr.contains("add --units m"), "\(simplified.stderr)")
        let told = try runFacescan(["convert", metres, dir + "/b.glb", "--units", "m"])
        #expect(told.status == 0 && told.stderr.isEmpty, "\(told.stderr)")
        // Read back in millimetres: the face is 200 mm tall, not 0.2 mm.
        let i = try runFacescan(["inspect", dir + "/b.glb", "--json"])
        let box = try #require(i.json?["boundingBox"] as? [String: Any], "\(i.stdout)")
        let lo = try #require(box["min"] as? [Double]), hi = try #require(box["max"] as? [Double])
        #expect(abs((hi[1] - lo[1]) - 200) < 0.01, "\(box)")
    }

    /// inspect, simplify, render, convert given a capture point to process (exit 2), instead of
    /// assimp's "No suitable reader".
    @Test func captureGivenToAMeshCommand() throws {
        let capture = try #require(sampleCaptures().first).capture
        let out = tempDir()
        for args in [
            ["inspect", capture], ["simplify", capture, out + "/s.obj", "-n", "100"],
            ["render", capture, out + "/r.png"],
            ["convert", capture, out + "/c.stl"],
        ] {
            let r = try runFacescan(args)
            #expect(r.status == 2, "\(args)")
            #expect(
                r.stderr.contains("is a facescan capture, not a mesh")
                    && r.stderr.contains("facescan process \(capture)"), "\(r.stderr)")
        }
    }
}
