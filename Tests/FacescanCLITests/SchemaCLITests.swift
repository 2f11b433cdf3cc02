import Foundation
import Testing

/// Every `--json` output validates against its JSON Schema in docs/schemas/ (by
/// scripts/check-json-schema, Python's `jsonschema`): process (also a solid part and exit 3),
/// inspect, compare, simplify, batch lines (done, failed, skipped by --resume) and regress.
/// Without `jsonschema` (`make schema-venv` installs it into .venv-schema) the test is reported as
/// skipped, and is a failure when `CI` is set (``Tool``).
@Suite struct SchemaCLITests {
    /// A Python that imports jsonschema with `referencing` (4.18+): .venv-schema's, else the
    /// system's; nil when neither has it.
    static let python: String? = {
        let candidates = [packageRoot + "/.venv-schema/bin/python", "/usr/bin/python3"]
        return candidates.first { p in
            FileManager.default.isExecutableFile(atPath: p)
                && (try? run(p, ["-c", "import jsonschema, referencing"]).status) == 0
        }
    }()

    /// Runs `executable` with `args`; its status and standard output, then standard error.
    static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: String) {
        let r = try runProgram(executable, args)
        return (r.status, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
    }

    @Test(
        .enabled(
            if: Tool.inCI || python != nil, "Python's jsonschema is missing (make schema-venv installs it)"))
    func everyJSONOutputMatchesItsSchema() throws {
        let python = try #require(
            Self.python, "Python's jsonschema is missing (make schema-venv); CI is set, so the test must run")
        let check = packageRoot + "/scripts/check-json-schema"
        let dir = tempDir()
        func save(_ text: String, _ name: String) throws -> String {
            try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8)
            return dir + "/" + name
        }
        func expectValid(_ schema: String, _ file: String, lines: Bool = false) throws {
            let r = try Self.run(python, [check] + (lines ? ["--lines"] : []) + [schema, file])
            #expect(r.status == 0 && r.out.isEmpty, "\(schema): \(r.out)")
        }
        let capture = try save(smallCapture(frames: [goodMeta, goodMeta]), "cap.json")
        let far = goodMeta.replacingOccurrences(of: "-0.4,1]", with: "-0.9,1]")
        let rejected = try save(smallCapture(frames: [far]), "far.json")
        let out = dir + "/out"

        let p = try runFacescan(["process", capture, "-o", out, "-n", "144", "--formats", "stl,obj", "--json", "-q"])
        #expect(p.status == 0)
        try expectValid("process-report", save(p.stdout, "process.json"))
        let solid = try runFacescan([
            "process", capture, "-o", out, "-n", "300", "--base", "--formats", "stl", "--json",
        ])
        #expect(solid.status == 0, "\(solid.stderr)")
        try expectValid("process-report", save(solid.stdout, "solid.json"))
        // With camera images: the report's `colour` object.
        let coloured = try save(colourCapture(image: pngBase64(64, 48, [200, 60, 40])), "colour.json")
        let c = try runFacescan(["process", coloured, "-o", out, "-n", "100", "--formats", "obj", "--json", "-q"])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stdout.contains("\"colour\":{\"framesFused\":"), "\(c.stdout)")
        try expectValid("process-report", save(c.stdout, "colour-report.json"))
        let three = try runFacescan(["process", rejected, "-o", out, "--json", "-q"])
        #expect(three.status == 3)
        try expectValid("process-report", save(three.stdout, "three.json"))

        let inspect = try runFacescan(["inspect", out + "/cap.stl", "--json", "-q"])
        try expectValid("inspect", save(inspect.stdout, "inspect.json"))
        let compare = try runFacescan([
            "compare", out + "/cap.stl", out + "/cap.obj", "--json", "--units", "mm", "--samples", "500", "-q",
        ])
        try expectValid("compare", save(compare.stdout, "compare.json"))
        let simplify = try runFacescan(["simplify", out + "/cap.stl", dir + "/s.obj", "-n", "50", "--json"])
        try expectValid("simplify", save(simplify.stdout, "simplify.json"))

        let package = try save("{\"name\": \"x\"}\n", "package.json")
        let batch = try runFacescan([
            "batch", capture, rejected, package, "-o", dir + "/b", "-n", "144", "--formats", "stl", "--json", "-q",
        ])
        let resumed = try runFacescan([
            "batch", capture, "-o", dir + "/b", "-n", "144", "--formats", "stl", "--json", "--resume", "-q",
        ])
        #expect(resumed.stdout.contains("\"skipped\":true"))
        try expectValid("batch-line", save(batch.stdout + resumed.stdout, "batch.jsonl"), lines: true)
        try expectValid("process-report", dir + "/b/cap.report.json")

        let sample = dir + "/sample"
        try FileManager.default.createDirectory(atPath: sample, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: capture, toPath: sample + "/capture.json")
        #expect(try runFacescan(["regress", sample, "--update", "-q"]).status == 0)
        let regress = try runFacescan(["regress", sample, "--json"])
        #expect(regress.status == 0, "\(regress.stderr)")
        try expectValid("regress", save(regress.stdout, "regress.json"))

        // The schemas are strict: a member the program does not print is an error.
        let extra = try save(p.stdout.replacingOccurrences(of: "{\"input\"", with: "{\"extra\":1,\"input\""), "x.json")
        let r = try Self.run(python, [check, "process-report", extra])
        #expect(r.status == 1 && r.out.contains("extra"), "\(r.out)")
    }
}
