import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Machine-readable forms of a regression run: JUnit XML (read by GitLab, Jenkins, GitHub
/// test-report actions), one JSON document, and per failing sample a report and an error heatmap.
extension Regression {
    /// Whether `line` fails the run (`CHANGED` fails unless byte changes are allowed).
    package static func fails(_ line: Line, allowChanged: Bool) -> Bool {
        line.status == .fail || (line.status == .changed && !allowChanged)
    }

    /// JUnit XML: one `<testsuite>` per sample, one `<testcase>` per metric (classname
    /// `regress.SAMPLE`, name METRIC); a failing metric has `<failure>` with the expected and found
    /// values; `attachments[sample]` (heatmap paths) are named in the sample's failing test cases'
    /// `<system-out>` as `[[ATTACHMENT|path]]` (the form GitLab and Jenkins pick up). No timestamps:
    /// the same results give the same bytes.
    package static func junitXML(_ lines: [Line], allowChanged: Bool, attachments: [String: [String]] = [:]) -> String {
        var samples: [String] = []
        var bySample: [String: [Line]] = [:]
        for l in lines {
            if bySample[l.sample] == nil { samples.append(l.sample) }
            bySample[l.sample, default: []].append(l)
        }
        let total = lines.count, failures = lines.filter { fails($0, allowChanged: allowChanged) }.count
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<testsuites name=\"facescan regress\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\">\n"
        for sample in samples {
            let ls = bySample[sample]!
            let f = ls.filter { fails($0, allowChanged: allowChanged) }.count
            x +=
                "  <testsuite name=\"regress.\(xml(sample))\" tests=\"\(ls.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"0\">\n"
            for l in ls {
                x += "    <testcase classname=\"regress.\(xml(sample))\" name=\"\(xml(l.metric))\""
                if !fails(l, allowChanged: allowChanged) && l.status != .changed {
                    x += "/>\n"
                    continue
                }
                x += ">\n"
                if fails(l, allowChanged: allowChanged) {
                    let message =
                        "\(l.status.rawValue): expected \(l.expected ?? "see details"), found \(l.found ?? l.detail)"
                    x += "      <failure type=\"\(l.status.rawValue)\" message=\"\(xml(message))\">"
                    x += xml(
                        "\(l.metric) of \(sample)\nexpected: \(l.expected ?? "-")\nfound:    \(l.found ?? "-")\n\(l.detail)"
                    )
                    x += "</failure>\n"
                    if let paths = attachments[sample], !paths.isEmpty {
                        x +=
                            "      <system-out>" + paths.map { "[[ATTACHMENT|\(xml($0))]]" }.joined(separator: "\n")
                            + "</system-out>\n"
                    }
                } else {
                    x += "      <system-out>\(xml("CHANGED (allowed): \(l.detail)"))</system-out>\n"
                }
                x += "    </testcase>\n"
            }
            x += "  </testsuite>\n"
        }
        x += "</testsuites>\n"
        return x
    }

    /// `{"failed":…,"tests":…,"failures":…,"results":[{"sample","metric","status","expected","found","detail"}…],
    /// "artifacts":{"SAMPLE":["path",…]}}`.
    package static func json(_ lines: [Line], allowChanged: Bool, attachments: [String: [String]] = [:]) -> JSONValue {
        let failures = lines.filter { fails($0, allowChanged: allowChanged) }.count
        let results: [JSONValue] = lines.map { l in
            var m: [(String, JSONValue)] = [
                ("sample", .string(l.sample)), ("metric", .string(l.metric)), ("status", .string(l.status.rawValue)),
            ]
            if let e = l.expected { m.append(("expected", .string(e))) }
            if let f = l.found { m.append(("found", .string(f))) }
            m.append(("detail", .string(l.detail)))
            return .object(m)
        }
        let artifacts = attachments.keys.sorted().map { ($0, JSONValue.array(attachments[$0]!.map { .string($0) })) }
        return .object([
            ("failed", .bool(failures > 0)), ("tests", .int(lines.count)), ("failures", .int(failures)),
            ("results", .array(results)), ("artifacts", .object(artifacts)),
        ])
    }

    /// This run's mesh against the sample's `expected.stl` (``drift(_:sampleDir:toleranceUm:)``).
    package struct Drift {
        /// The sample's `expected.stl`.
        package let expected: Mesh
        /// Each vertex of this run's mesh: its distance to `expected`, µm (STL outputs are in mm).
        package let distancesUm: [Double]
        /// The heatmap scale's top: the larger of the largest distance and the tolerance, rounded
        /// up to 1, 2, 2.5 or 5 × 10ᵏ.
        package let topUm: Double
    }

    /// This run's mesh against the sample's `expected.stl`, measured once for the artifacts' heatmap
    /// and the HTML page alike; nil without `expected.stl`.
    package static func drift(_ m: Metrics, sampleDir: String, toleranceUm: Double) throws -> Drift? {
        let path = sampleDir + "/expected.stl"
        guard access(path, R_OK) == 0 else { return nil }
        let expected = try Mesh.parseSTL(try FileBytes.read(path), name: path)
        let d = SurfaceDistance.perVertex(m.mesh, to: expected, unitToMicrometres: 1000)
        let top = Heatmap.niceMaximum(Swift.max(d.max() ?? 0, toleranceUm))
        return Drift(expected: expected, distancesUm: d, topUm: top)
    }

    /// For a failing sample: `dir/SAMPLE/report.txt` (its report lines) and, with `drift` (the
    /// sample has `expected.stl`), `dir/SAMPLE/heatmap.png` — this run's mesh coloured by each
    /// vertex's distance to expected.stl. Returns the paths written.
    package static func writeArtifacts(
        _ m: Metrics, lines: [Line], sampleDir: String, drift: Drift?, into dir: String
    ) throws -> [String] {
        let sample = sampleDir.split(separator: "/").last.map(String.init) ?? sampleDir
        let out = dir + "/" + sample
        try AtomicFile.prepareDirectory(dir)
        try AtomicFile.prepareDirectory(out)
        let t = OutputSet()
        var written: [String] = []
        try t.stage(Array(lines.map { $0.text + "\n" }.joined().utf8), to: out + "/report.txt")
        written.append(out + "/report.txt")
        if let drift {
            let image = try Heatmap.render(m.mesh, valuesUm: drift.distancesUm, maxUm: drift.topUm).image
            try t.stage(try PNGEncoder.encode(image, name: out + "/heatmap.png"), to: out + "/heatmap.png")
            written.append(out + "/heatmap.png")
        }
        try t.commit()
        return written
    }

    /// `text` with XML's special characters escaped (``Markup/escaped(_:)``).
    static func xml(_ text: String) -> String { Markup.escaped(text) }
}
