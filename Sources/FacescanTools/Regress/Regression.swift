import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The regression check behind `facescan regress`: process a sample capture, measure the result
/// and compare it with the sample's committed `expected.json` (and `expected.stl`, the last
/// accepted output mesh).
///
/// A sample directory holds `capture.json` or `capture.ndjson`, optionally `truth.obj` (ground
/// truth in metres), and after `--update` the files `expected.json` and `expected.stl`.
package enum Regression {
    package enum Status: String, Sendable {
        case pass = "PASS"
        case fail = "FAIL"
        case changed = "CHANGED"
        case updated = "UPDATED"
    }

    /// One line of the regression report: one sample, one metric.
    package struct Line: Sendable, Equatable {
        package var status: Status
        package var sample: String
        package var metric: String
        package var detail: String
        /// What the expected files say and what this run found, for reports that show both
        /// (JUnit failures); nil where the metric has no single expected value.
        package var expected: String?
        package var found: String?
        package var text: String { "\(status.rawValue.padded(7)) \(sample.padded(22)) \(metric.padded(20)) \(detail)" }
    }

    /// What is measured on a sample's output.
    package struct Metrics: Sendable {
        package var report: Report
        package var boundsMin: SIMD3<Double>
        package var boundsMax: SIMD3<Double>
        /// Surface distance to the ground truth (µm), when the sample has `truth.obj`.
        package var truth: SurfaceError?
        /// SHA-256 of every output file, by format.
        package var hashes: [(String, String)]
        /// The STL output's bytes and the mesh they hold.
        package var stl: [UInt8]
        package var mesh: Mesh
    }

    /// Surface samples per mesh for the error metrics (deterministic, seed 1).
    package static let surfaceSamples = 50_000

    /// Sample directories under `root`: those holding a capture, sorted by name.
    package static func sampleDirectories(in root: String) -> [String] {
        let names = (directoryEntries(root) ?? []).filter {
            !$0.hasPrefix(".") && captureFile(in: root + "/" + $0) != nil
        }
        return names.sorted().map { root + "/" + $0 }
    }

    package static func captureFile(in dir: String) -> String? {
        for f in ["capture.json", "capture.ndjson"] where access(dir + "/" + f, R_OK) == 0 { return dir + "/" + f }
        return nil
    }

    /// Processes the sample into `workDir` (default formats) and measures the result.
    package static func measure(sampleDir: String, workDir: String) throws -> Metrics {
        guard let capture = captureFile(in: sampleDir) else {
            if !AtomicFile.isDirectoryFollowingLinks(sampleDir) {
                throw IOFailure(path: sampleDir, "not a directory")  // a missing input: exit 1
            }
            throw UsageError("\(sampleDir): no capture.json or capture.ndjson")
        }
        var options = PipelineOptions()
        options.outputDirectory = workDir
        options.name = "output"
        options.formats = ["stl", "obj", "png"]
        var report = try ProcessOutputs.process(input: capture, options: options)
        report.timingsMs = Report.Timings()
        var hashes: [(String, String)] = []
        var stl: [UInt8] = []
        for o in report.outputs {
            let bytes = try FileBytes.read(o.path)
            hashes.append((o.format, SHA256.hex(bytes)))
            if o.format == "stl" { stl = bytes }
        }
        let mesh = try Mesh.parseSTL(stl, name: "output.stl")
        let b = mesh.bounds
        var truthError: SurfaceError?
        let truthPath = sampleDir + "/truth.obj"
        if access(truthPath, R_OK) == 0 {
            let truth = try MeshIO.read(path: truthPath).scaledUnchecked(by: 1000)  // metres → mm
            truthError = SurfaceDistance.symmetric(mesh, truth, samplesPerMesh: surfaceSamples, unitToMicrometres: 1000)
        }
        return Metrics(
            report: report, boundsMin: SIMD3<Double>(b.min), boundsMax: SIMD3<Double>(b.max),
            truth: truthError, hashes: hashes, stl: stl, mesh: mesh)
    }

    /// `expected.json` content for `m`.
    package static func expectedJSON(_ m: Metrics) -> JSONValue {
        let f = m.report.frames
        func r3(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        func r5(_ v: Double) -> JSONValue { .double((v * 100_000).rounded() / 100_000) }
        var members: [(String, JSONValue)] = [
            (
                "frames",
                .object([
                    ("read", .int(f.read)), ("accepted", .int(f.accepted)),
                    (
                        "rejected",
                        .object([
                            ("distance", .int(f.rejected.distance)), ("tracking", .int(f.rejected.tracking)),
                            ("lighting", .int(f.rejected.lighting)), ("expression", .int(f.rejected.expression)),
                        ])
                    ),
                ])
            ),
            ("outputVertices", .int(m.report.mesh.outputVertices)),
            ("outputTriangles", .int(m.report.mesh.outputTriangles)),
            (
                "boundsMm",
                .object([
                    ("min", .array([r5(m.boundsMin.x), r5(m.boundsMin.y), r5(m.boundsMin.z)])),
                    ("max", .array([r5(m.boundsMax.x), r5(m.boundsMax.y), r5(m.boundsMax.z)])),
                ])
            ),
        ]
        if let t = m.truth { members.append(("truthErrorUm", .object([("rms", r3(t.rms)), ("max", r3(t.max))]))) }
        members.append(("sha256", .object(m.hashes.map { ($0.0, .string($0.1)) })))
        return .object(members)
    }

    /// Compares `m` with the sample's expected files (or rewrites them when `update`).
    package static func compare(_ m: Metrics, sampleDir: String, toleranceUm: Double, update: Bool) throws -> [Line] {
        let sample = sampleDir.split(separator: "/").last.map(String.init) ?? sampleDir
        let expectedPath = sampleDir + "/expected.json"
        let expectedMeshPath = sampleDir + "/expected.stl"
        if update {
            let t = OutputSet()
            try t.stage(Array((expectedJSON(m).serialized() + "\n").utf8), to: expectedPath)
            try t.stage(m.stl, to: expectedMeshPath)
            try t.commit()
            return [Line(status: .updated, sample: sample, metric: "expected.json", detail: "rewritten from this run")]
        }
        guard access(expectedPath, R_OK) == 0 else {
            return [
                Line(
                    status: .fail, sample: sample, metric: "expected.json",
                    detail: "missing (run with --update to create it)",
                    expected: "expected.json", found: "no such file")
            ]
        }
        let e = try JSONValue.read(path: expectedPath)
        var lines: [Line] = []
        func exact(_ metric: String, _ got: Int, _ want: JSONValue?) {
            let w = want?.number.map { Int($0) }
            lines.append(
                Line(
                    status: w == got ? .pass : .fail, sample: sample, metric: metric,
                    detail: "\(got) (expected \(w.map(String.init) ?? "none"))",
                    expected: w.map(String.init) ?? "none", found: String(got)))
        }
        let f = m.report.frames
        exact("frames.read", f.read, e["frames"]?["read"])
        exact("frames.accepted", f.accepted, e["frames"]?["accepted"])
        for (k, v) in [
            ("distance", f.rejected.distance), ("tracking", f.rejected.tracking),
            ("lighting", f.rejected.lighting), ("expression", f.rejected.expression),
        ] {
            exact("rejected." + k, v, e["frames"]?["rejected"]?[k])
        }
        exact("outputVertices", m.report.mesh.outputVertices, e["outputVertices"])
        exact("outputTriangles", m.report.mesh.outputTriangles, e["outputTriangles"])
        lines += try geometry(m, expected: e, sample: sample, toleranceUm: toleranceUm, meshPath: expectedMeshPath)
        // Bytes: identical outputs are expected; a different hash is reported even when every
        // metric is within tolerance.
        let metricsOK = lines.allSatisfy { $0.status == .pass }
        for (format, hash) in m.hashes {
            let want = e["sha256"]?[format]?.stringValue
            let status: Status = want == hash ? .pass : (metricsOK ? .changed : .fail)
            lines.append(
                Line(
                    status: status, sample: sample, metric: "sha256." + format,
                    detail: want == hash
                        ? String(hash.prefix(16))
                        : "\(hash.prefix(16)) (expected \(want.map { String($0.prefix(16)) } ?? "none"))",
                    expected: want ?? "none", found: hash))
        }
        return lines
    }

    /// The geometry's lines of ``compare(_:sampleDir:toleranceUm:update:)``: the bounding box, the
    /// error against the ground truth and the distance to the last accepted output (`meshPath`).
    private static func geometry(
        _ m: Metrics, expected e: JSONValue, sample: String, toleranceUm: Double, meshPath expectedMeshPath: String
    ) throws -> [Line] {
        var lines: [Line] = []
        // Bounding box, µm.
        var worst = 0.0
        var bboxOK = true
        for (key, v) in [("min", m.boundsMin), ("max", m.boundsMax)] {
            guard case .array(let a)? = e["boundsMm"]?[key], a.count == 3 else { bboxOK = false; continue }
            for k in 0..<3 {
                guard let w = a[k].number else { bboxOK = false; continue }
                worst = Swift.max(worst, abs(v[k] - w) * 1000)
            }
        }
        lines.append(
            Line(
                status: bboxOK && worst <= toleranceUm ? .pass : .fail, sample: sample, metric: "boundsMm",
                detail: String(format3(m.boundsMax.x - m.boundsMin.x)) + " × " + format3(m.boundsMax.y - m.boundsMin.y)
                    + " × "
                    + format3(m.boundsMax.z - m.boundsMin.z)
                    + " mm, max deviation \(format3(worst)) µm (tolerance \(format3(toleranceUm)) µm)",
                expected: bboxOK ? "deviation ≤ \(format3(toleranceUm)) µm" : "boundsMm min and max, 3 numbers each",
                found: "deviation \(format3(worst)) µm"))
        // Error against the ground truth must not grow beyond the tolerance.
        if let t = m.truth {
            let wr = e["truthErrorUm"]?["rms"]?.number, wm = e["truthErrorUm"]?["max"]?.number
            let ok = wr != nil && wm != nil && t.rms <= wr! + toleranceUm && t.max <= wm! + toleranceUm
            lines.append(
                Line(
                    status: ok ? .pass : .fail, sample: sample, metric: "truthErrorUm",
                    detail:
                        "rms \(format3(t.rms)) max \(format3(t.max)) (expected rms \(wr.map(format3) ?? "none") max \(wm.map(format3) ?? "none"))",
                    expected:
                        "rms ≤ \(wr.map { format3($0 + toleranceUm) } ?? "none") µm, max ≤ \(wm.map { format3($0 + toleranceUm) } ?? "none") µm",
                    found: "rms \(format3(t.rms)) µm, max \(format3(t.max)) µm"))
        }
        // Distance to the last accepted output.
        if access(expectedMeshPath, R_OK) == 0 {
            let prev = try Mesh.parseSTL(try FileBytes.read(expectedMeshPath), name: expectedMeshPath)
            let d = SurfaceDistance.symmetric(m.mesh, prev, samplesPerMesh: surfaceSamples, unitToMicrometres: 1000)
            lines.append(
                Line(
                    status: d.max <= toleranceUm ? .pass : .fail, sample: sample, metric: "previousErrorUm",
                    detail:
                        "rms \(format3(d.rms)) max \(format3(d.max)) against expected.stl (tolerance \(format3(toleranceUm)))",
                    expected: "max ≤ \(format3(toleranceUm)) µm from expected.stl",
                    found: "rms \(format3(d.rms)) µm, max \(format3(d.max)) µm"))
        } else {
            lines.append(
                Line(
                    status: .fail, sample: sample, metric: "previousErrorUm", detail: "expected.stl missing",
                    expected: "expected.stl", found: "no such file"))
        }
        return lines
    }

    static func format3(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        var s = String(r)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}

extension String {
    func padded(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
