import Foundation
import Testing

/// Headless Chromium: Debian's `chromium` (`make test-deps` installs it), or the executable CHROMIUM
/// names (only that one: CHROMIUM=/nonexistent shows the tests skipped, or failing under CI).
let chromiumBinary: String? = {
    if let env = ProcessInfo.processInfo.environment["CHROMIUM"], !env.isEmpty {
        return FileManager.default.isExecutableFile(atPath: env) ? env : nil
    }
    return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}()

/// Under CI the browser tests must run: a missing chromium fails them there instead of skipping.
let runningUnderCI = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false

/// `batch --report` and `regress --report` pages opened in a real browser: every image decodes, the
/// header's counts are the run's, the filter shows only failures, every link names a file.
/// Skipped (with the reason) where chromium is missing, except under CI.
@Suite(
    .serialized,
    .enabled(
        if: chromiumBinary != nil || runningUnderCI,
        "chromium is not installed (apt-get install chromium, or make test-deps); CI runs these tests"))
struct HTMLReportBrowserTests {
    /// What the check script found in the page (``check(page:)``).
    struct Check: Decodable {
        var images: Int
        var decoded: Int
        var counts: [String: Int]
        var entries: [String]
        var visibleAfterFilter: [String]
        var links: [String]
        var title: String
    }

    /// Runs chromium headless on `args` + `url`; its standard output.
    func chromium(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try #require(chromiumBinary, "chromium is required under CI (make test-deps installs it)")
        let run = try runProgram(
            binary,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--allow-file-access-from-files", "--user-data-dir=" + tempDir(),
            ] + args)
        return (run.status, String(decoding: run.stdout, as: UTF8.self), run.stderr)
    }

    /// Opens a copy of `page` (beside it, so its relative links and images stay valid) with a
    /// script that, once the page has loaded, reads the DOM, clicks the "failed" filter and writes
    /// what it saw into `<pre id="check">`; returns that.
    func check(page: String) throws -> Check {
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let probe = """
            <pre id="check"></pre><script>
            window.addEventListener('load', () => {
              const imgs = [...document.images];
              const counts = {};
              for (const c of document.querySelectorAll('[data-count]')) counts[c.dataset.count] = +c.textContent;
              const entries = [...document.querySelectorAll('.entry')];
              const shown = () => entries.filter(e => getComputedStyle(e).display !== 'none').map(e => e.dataset.verdict);
              const r = { images: imgs.length, decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
                counts, entries: shown(), links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                title: document.title };
              const f = document.querySelector('[data-filter="failed"]');
              if (f) f.click();
              r.visibleAfterFilter = f ? shown() : [];
              document.getElementById('check').textContent = encodeURIComponent(JSON.stringify(r));
            });
            </script>
            """
        let copy = (page as NSString).deletingLastPathComponent + "/check-\(UInt32.random(in: 0...UInt32.max)).html"
        try html.replacingOccurrences(of: "</body>", with: probe + "</body>").write(
            toFile: copy, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let r = try chromium(["--virtual-time-budget=10000", "--dump-dom", URL(fileURLWithPath: copy).absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        let match = try #require(
            r.stdout.firstMatch(of: /<pre id="check">([^<]*)<\/pre>/), "no check output in the DOM: \(r.stderr)")
        let json = try #require(String(match.1).removingPercentEncoding)
        return try JSONDecoder().decode(Check.self, from: Data(json.utf8))
    }

    /// Saves a screenshot of `page` to `dir/name` (and to FACESCAN_SCREENSHOT_DIR when set, to look at).
    func screenshot(_ page: String, name: String, in dir: String) throws {
        let png = dir + "/" + name
        let r = try chromium([
            "--screenshot=" + png, "--window-size=1280,1600", "--hide-scrollbars",
            URL(fileURLWithPath: page).absoluteString,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000)
        if let keep = ProcessInfo.processInfo.environment["FACESCAN_SCREENSHOT_DIR"] {
            try? FileManager.default.removeItem(atPath: keep + "/" + name)
            try FileManager.default.copyItem(atPath: png, toPath: keep + "/" + name)
        }
    }

    @Test func batchPageInTheBrowser() throws {
        let base = tempDir()
        let input = base + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        // Two good captures (one named with characters HTML and URLs must escape), one whose
        // frames all fail the gate (exit 3), one JSON file that is not a capture.
        let odd = "face <1> & \"two\" 'q'"
        try smallCapture(frames: [goodMeta, goodMeta]).write(
            toFile: input + "/good.json", atomically: false, encoding: .utf8)
        try smallCapture(frames: [goodMeta, goodMeta + ",\"distance\":0.9"]).write(
            toFile: input + "/\(odd).json", atomically: false, encoding: .utf8)
        try smallCapture(frames: ["\"trackingState\":\"limited\"", "\"trackingState\":\"limited\""]).write(
            toFile: input + "/bad.json", atomically: false, encoding: .utf8)
        try "{\"name\":\"not a capture\"}".write(toFile: input + "/package.json", atomically: false, encoding: .utf8)
        let out = base + "/out"
        let flags = ["--output-dir", out, "--target-vertices", "144", "--jobs", "2"]
        // A first run of good.json alone: the second run, with --resume, skips it.
        let first = try runFacescan(["batch", input + "/good.json"] + flags)
        #expect(first.status == 0, "\(first.stderr)")
        let page = out + "/report.html"
        let r = try runFacescan(["batch", input, "--resume", "--json", "--report", page] + flags)
        #expect(r.status == 3, "\(r.stdout)\(r.stderr)")
        // What the batch itself says.
        var batch = ["done": 0, "failed": 0, "skipped": 0]
        for line in r.stdout.split(separator: "\n") {
            let j = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let verdict =
                j["skipped"] as? Bool == true ? "skipped" : (j["exitCode"] as? Int == 0 ? "done" : "failed")
            batch[verdict, default: 0] += 1
        }
        #expect(batch == ["done": 1, "failed": 1, "skipped": 1])
        #expect(r.stderr.contains("1 input skipped, not captures"))
        // Written atomically: no temporary or journal left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(!names.contains { $0.hasPrefix(".facescan-") }, "\(names)")

        let c = try check(page: page)
        #expect(c.title == "facescan batch report")
        // Two thumbnails (done, and skipped by --resume, whose outputs are there), all decoded.
        #expect(c.images == 2 && c.decoded == c.images, "\(c.images) images, \(c.decoded) decoded")
        // The header's counts are the batch's, plus the input that is not a capture.
        #expect(c.counts["done"] == batch["done"])
        #expect(c.counts["failed"] == batch["failed"])
        #expect(c.counts["skipped"] == batch["skipped"]! + 1)
        #expect(c.counts["total"] == 4 && c.entries.count == 4)
        #expect(c.visibleAfterFilter == ["failed"])
        // Every link names an output that exists (the odd name's too, percent-encoded).
        #expect(c.links.count == 8)
        for link in c.links {
            let url = try #require(URL(string: link))
            #expect(url.isFileURL && FileManager.default.fileExists(atPath: url.path), "\(link)")
        }
        #expect(c.links.contains { URL(string: $0)?.lastPathComponent == odd + ".stl" })
        try screenshot(page, name: "batch-report.png", in: base)
    }

    @Test func regressPageInTheBrowser() throws {
        // Two copies of the quick MediaPipe sample (468 vertices); one's expected.stl is moved.
        let base = tempDir()
        var dirs: [String] = []
        for name in ["kept", "moved"] {
            let dir = base + "/" + name
            try FileManager.default.copyItem(atPath: packageRoot + "/samples/mediapipe", toPath: dir)
            for f in ["expected.json", "expected.stl", "truth.obj"] {
                try? FileManager.default.removeItem(atPath: dir + "/" + f)
            }
            let capture = dir + "/capture.json"
            let text = try String(contentsOfFile: capture, encoding: .utf8)
            try text.replacingOccurrences(of: "\"settings\":{", with: "\"settings\":{\"targetVertexCount\":468,")
                .write(toFile: capture, atomically: false, encoding: .utf8)
            dirs.append(dir)
        }
        let up = try runFacescan(["regress", "--update"] + dirs)
        #expect(up.status == 0, "\(up.stderr)")
        // Move every vertex of the moved sample's expected mesh 0.05 mm along z.
        let stlPath = dirs[1] + "/expected.stl"
        var stl = try Data(contentsOf: URL(fileURLWithPath: stlPath))
        let facets = stl.subdata(in: 80..<84).withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
        for f in 0..<facets {
            for k in 0..<3 {
                let o = 84 + 50 * f + 12 + 12 * k + 8
                var z = stl.subdata(in: o..<(o + 4)).withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
                z += 0.05
                withUnsafeBytes(of: z) { stl.replaceSubrange(o..<(o + 4), with: $0) }
            }
        }
        try stl.write(to: URL(fileURLWithPath: stlPath))
        let page = base + "/regress.html"
        let r = try runFacescan(["regress", "--report", page] + dirs)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let first = try Data(contentsOf: URL(fileURLWithPath: page))

        let c = try check(page: page)
        #expect(c.title == "facescan regress report")
        // Per sample: expected, current and heatmap.
        #expect(c.images == 6 && c.decoded == 6, "\(c.images) images, \(c.decoded) decoded")
        #expect(c.counts["total"] == 2 && c.counts["failed"] == 1 && c.counts["done"] == 1)
        // Failures first.
        #expect(c.entries == ["failed", "done"])
        #expect(c.visibleAfterFilter == ["failed"])
        let html = String(decoding: first, as: UTF8.self)
        let moved = try #require(html.range(of: "</span> moved</h2>")),
            kept = try #require(html.range(of: "</span> kept</h2>"))
        #expect(moved.lowerBound < kept.lowerBound)
        // The moved sample's heatmap: distances of up to 0.05 mm; the kept one's: none.
        let rms = html.matches(of: /RMS (\d+\.\d) µm/).map { Double($0.1)! }
        #expect(rms.count == 2 && rms[0] > 10 && rms[0] <= 50.1 && rms[1] == 0, "\(rms)")
        try screenshot(page, name: "regress-report.png", in: base)
    }
}

/// `--report` errors (no browser needed).
@Suite struct HTMLReportCLITests {
    @Test func aPageThatCannotBeWrittenIsRefusedBeforeAnyWork() throws {
        let base = tempDir()
        try smallCapture(frames: [goodMeta]).write(toFile: base + "/a.json", atomically: false, encoding: .utf8)
        let missing = try runFacescan([
            "batch", base + "/a.json", "--output-dir", base + "/out", "--report", base + "/no/r.html",
        ])
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("no/r.html") && missing.stderr.split(separator: "\n").count == 1,
            "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: base + "/out"), "nothing processed")
        let dash = try runFacescan(["batch", base + "/a.json", "--output-dir", base + "/out", "--report", "-"])
        #expect(dash.status == 2, "\(dash.stderr)")
    }
}
