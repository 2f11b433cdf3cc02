import Foundation
import Testing

/// What a new user meets in the first hour: huge numbers in messages, settings written as hex,
/// shards that start together, compare across units, terminals on the standard streams, JSON
/// files that are not captures, exit 3's way out and shards counted from 0.
@Suite struct FirstHourCLITests {
    let fixture = packageRoot + "/Tests/FaceScanKitTests/Fixtures/ict-neutral.obj"

    /// One line on standard error, with the exit code, containing every one of `texts`.
    func expectOneLine(
        _ r: RunResult, status: Int32, _ texts: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status == status, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        for t in texts { #expect(r.stderr.contains(t), "no '\(t)' in \(r.stderr)", sourceLocation: sourceLocation) }
    }

    /// `fixture` (a face in metres) scaled by `factor`, as an OBJ in `dir`.
    func scaledFace(_ factor: Double, in dir: String, name: String) throws -> String {
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("v ") {
                let p = line.split(separator: " ").dropFirst().map { Double($0)! * factor }
                out += "v \(p[0]) \(p[1]) \(p[2])\n"
            } else {
                out += line + "\n"
            }
        }
        let path = dir + "/" + name
        try out.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

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

    /// `"maxFrames": 0x10` names the setting, not just `settings`.
    @Test func hexInASettingNamesTheSetting() throws {
        let dir = tempDir()
        let text = smallCapture(frames: [goodMeta]).replacingOccurrences(
            of: "\"version\":1,", with: "\"version\":1,\"settings\":{\"maxFrames\": 0x10},")
        try text.write(toFile: dir + "/hex.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/hex.json", "-o", dir + "/o"])
        expectOneLine(r, status: 2, "hex.json", "field 'settings.maxFrames'")
    }

    /// Shards that start at the same instant, all writing into one new output directory: every
    /// one creates it or finds it made by a sibling, and all finish. The processes wait on their
    /// standard input (the list of captures), which is written to all of them at once. (Before
    /// `EEXIST` from a sibling counted as success, about one round in five lost a shard here.)
    @Test func shardsStartingTogetherAllCreateTheOutputDirectory() throws {
        let root = tempDir()
        let count = 8
        var list = ""
        for i in 0..<count {
            let path = root + "/cap\(i).json"
            try smallCapture(frames: [goodMeta]).write(toFile: path, atomically: false, encoding: .utf8)
            list += path + "\n"
        }
        for round in 0..<8 {
            let out = root + "/out\(round)/"
            var children: [(Process, Pipe, Pipe)] = []
            for k in 0..<count {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: fastFacescanBinary)
                p.arguments = [
                    "batch", "-", "-o", out, "--shard", "\(k)/\(count)", "--formats", "stl", "-n", "144", "-q",
                ]
                let input = Pipe(), err = Pipe()
                p.standardInput = input
                p.standardOutput = FileHandle.nullDevice
                p.standardError = err
                try p.run()
                children.append((p, input, err))
            }
            usleep(200_000)  // every child is waiting on its list
            for (_, input, _) in children {
                try input.fileHandleForWriting.write(contentsOf: Data(list.utf8))
                try input.fileHandleForWriting.close()
            }
            for (k, (p, _, err)) in children.enumerated() {
                let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 0, "round \(round), shard \(k): \(message)")
            }
            let made = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter {
                $0.hasSuffix(".stl")
            }
            #expect(made.count == count, "round \(round): \(made)")
        }
    }

    /// A face in metres against the same face in millimetres: refused (exit 2) naming the
    /// per-file unit that fixes it, also with --units (which applies to both); with each file's
    /// unit given, the distance is the face's own (under a micrometre).
    @Test func compareAcrossUnits() throws {
        let dir = tempDir()
        let metres = try scaledFace(1, in: dir, name: "m.obj")
        let millimetres = try scaledFace(1000, in: dir, name: "mm.obj")
        let plain = try runFacescan(["compare", metres, millimetres, "--samples", "2000"])
        expectOneLine(plain, status: 2, "m.obj", "1000× apart", "--units-b mm")
        #expect(plain.stdout.isEmpty)
        let both = try runFacescan(["compare", metres, millimetres, "--samples", "2000", "--units", "mm"])
        expectOneLine(both, status: 2, "1000× apart", "--units-a m")
        let told = try runFacescan(["compare", metres, millimetres, "--samples", "2000", "--units-b", "mm", "--json"])
        #expect(told.status == 0 && told.stderr.isEmpty, "\(told.stderr)")
        let rms = try #require(told.json?["rmsUm"] as? Double)
        #expect(rms < 1, "\(told.stdout)")
        // The other way round: A in millimetres, B in metres.
        let swapped = try runFacescan([
            "compare", millimetres, metres, "--samples", "2000", "--units-a", "mm", "--units-b", "m", "--json",
        ])
        #expect(swapped.status == 0 && (swapped.json?["maxUm"] as? Double ?? 1e9) < 10, "\(swapped.stdout)")
        // Each unit stated yet sizes 1000× apart: done as told, with a warning.
        let stated = try runFacescan([
            "compare", metres, millimetres, "--samples", "200", "--units-a", "m", "--units-b", "m",
        ])
        #expect(stated.status == 0 && stated.stderr.contains("1000× apart"), "\(stated.stderr)")
    }

    /// A terminal on standard input is never waited on in silence; binary output is never
    /// written onto a terminal (exit 2, nothing else written).
    @Test func terminalsOnTheStandardStreams() throws {
        let dir = tempDir()
        func onTerminal(_ args: [String]) throws -> (status: Int32, terminal: String) {
            let child = try TerminalChild(args, stdoutPath: nil)
            // batch - waits for a list: end it as a user would, with ^D.
            if args.contains("batch") {
                usleep(300_000)
                child.type([0x04])
            }
            let (status, terminal) = child.wait()
            return ((status >> 8) & 0xff, terminal)
        }
        let process = try onTerminal(["process", "-", "-o", dir + "/o"])
        #expect(process.status == 2 && process.terminal.contains("standard input is a terminal"), "\(process)")
        let inspect = try onTerminal(["inspect", "-"])
        #expect(inspect.status == 2 && inspect.terminal.contains("standard input is a terminal"), "\(inspect)")
        let batch = try onTerminal(["batch", "-", "-o", dir + "/o"])
        #expect(batch.terminal.contains("reading capture paths from the terminal"), "\(batch)")
        #expect(batch.status == 2, "\(batch)")
        for (args, format) in [
            (["render", fixture, "-"], "PNG"), (["simplify", fixture, "-", "-n", "100", "--format", "stl"], "STL"),
            (["convert", fixture, "-", "--format", "glb"], "GLB"),
            (["convert", fixture, "-", "--format", "fbx"], "FBX"),
            (["compare", fixture, fixture, "--heatmap", "-", "--samples", "100"], "PNG"),
        ] {
            let r = try onTerminal(args)
            #expect(r.status == 2, "\(args): \(r)")
            #expect(r.terminal.contains("refusing to write binary \(format) to a terminal"), "\(args): \(r)")
            #expect(r.terminal.split(separator: "\n").count == 1, "\(args): \(r)")
        }
        // Text on a terminal is fine (OBJ).
        let obj = try onTerminal(["simplify", fixture, "-", "-n", "100"])
        #expect(obj.status == 0 && obj.terminal.contains("\nv "), "\(obj.terminal.prefix(200))")
    }

    /// A JSON file that is not a capture is called so (process, and batch's line for it); a
    /// directory's non-captures, a directory named *.json among them, are counted in batch's summary.
    @Test func notACaptureIsNamedAndSkippedInputsCounted() throws {
        let dir = tempDir()
        let package = dir + "/package.json"
        try "{\"name\": \"x\", \"version\": \"1.0.0\"}\n".write(toFile: package, atomically: false, encoding: .utf8)
        let p = try runFacescan(["process", package, "-o", dir + "/o"])
        expectOneLine(p, status: 2, "package.json", "not a facescan capture")
        let named = try runFacescan(["batch", package, "-o", dir + "/o"])
        #expect(named.status == 2 && named.stdout.contains("not a facescan capture"), "\(named.stdout)")

        let caps = dir + "/caps"
        try FileManager.default.createDirectory(atPath: caps + "/more.json", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: package, toPath: caps + "/package.json")
        try smallCapture(frames: [goodMeta]).write(toFile: caps + "/a.json", atomically: false, encoding: .utf8)
        let b = try runFacescan(["batch", caps, "-o", dir + "/ob", "--formats", "stl", "-n", "144"])
        #expect(b.status == 0, "\(b.stderr)")
        #expect(b.stderr.contains("1 done, 0 failed; 2 inputs skipped, not captures"), "\(b.stderr)")
        let v = try runFacescan(["batch", caps, "-o", dir + "/ob2", "--formats", "stl", "-n", "144", "-v"])
        #expect(v.stderr.contains("package.json: not a facescan capture"), "\(v.stderr)")
        #expect(v.stderr.contains("more.json: a directory"), "\(v.stderr)")
    }

    /// Exit 3 names the reason that rejected most frames and the option that relaxes it.
    @Test func noAcceptedFrameNamesTheWayOut() throws {
        let dir = tempDir()
        let far = goodMeta.replacingOccurrences(of: "-0.4,1]", with: "-0.9,1]")
        let dark = goodMeta.replacingOccurrences(of: "\"ambientIntensity\":900", with: "\"ambientIntensity\":10")
        try smallCapture(frames: [far, far, dark]).write(toFile: dir + "/far.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/far.json", "-o", dir + "/o"])
        expectOneLine(r, status: 3, "no frame passed the quality gate", "distance", "--max-distance")
        try smallCapture(frames: [dark, dark, far]).write(
            toFile: dir + "/dark.json", atomically: false, encoding: .utf8)
        let d = try runFacescan(["process", dir + "/dark.json", "-o", dir + "/o"])
        expectOneLine(d, status: 3, "most were rejected for lighting", "--min-light")
        let b = try runFacescan(["batch", dir + "/dark.json", "-o", dir + "/o"])
        #expect(b.status == 3 && b.stdout.contains("--min-light"), "\(b.stdout)")
    }

    /// --shard N/N (counting from 1) is refused saying that shards count from 0, with the Slurm line.
    @Test func shardsCountFromZero() throws {
        let dir = tempDir()
        try smallCapture(frames: [goodMeta]).write(toFile: dir + "/a.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["batch", dir + "/a.json", "--shard", "3/3", "-o", dir + "/o"])
        expectOneLine(r, status: 2, "shards count from 0", "0 to 2", "--array=0-2")
    }
}
