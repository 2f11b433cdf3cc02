import Foundation
import Testing

@testable import FaceScanKit
@testable import FacescanTools

@Suite struct HTMLReportTests {
    func report(accepted: Int, tracking: Int) -> Report {
        var r = Report(input: "in.json")
        r.frames.read = accepted + tracking
        r.frames.accepted = accepted
        r.frames.rejected.tracking = tracking
        r.mesh.inputVertices = 468
        r.mesh.outputVertices = 1000
        r.timingsMs.total = 1234.5
        r.timingsMs.ingest = 100
        r.warnings = ["the cut <moved> 2 mm & more"]
        return r
    }

    func page() throws -> HTMLReport.Page {
        let img = try HTMLReport.image(RGBAImage(width: 4, height: 4), maxSide: 4)
        return HTMLReport.Page(
            command: "batch", version: "9.9.9", settings: [HTMLReport.Setting("formats", "stl,png")],
            captures: [
                HTMLReport.Capture(
                    name: "a<b>&\"c'", input: "in/a<b>&\"c'.json", verdict: .done,
                    report: report(accepted: 3, tracking: 1),
                    thumbnail: img, links: [HTMLReport.Link(label: "stl", href: "out/a%3Cb%3E.stl")]),
                HTMLReport.Capture(
                    name: "bad", input: "bad.json", verdict: .failed(exitCode: 3, message: "no frame <passed>"),
                    report: report(accepted: 0, tracking: 4)),
                HTMLReport.Capture(name: "x.json", input: "x.json", verdict: .skipped(reason: "not a capture")),
            ])
    }

    @Test func escapesEveryTextAndCountsTheVerdicts() throws {
        let text = String(decoding: HTMLReport.html(try page()), as: UTF8.self)
        #expect(text.contains("a&lt;b&gt;&amp;&quot;c&#39;"))
        #expect(!text.contains("a<b>"))
        #expect(text.contains("no frame &lt;passed&gt;"))
        #expect(text.contains("the cut &lt;moved&gt; 2 mm &amp; more"))
        #expect(text.contains("data-count=\"total\">3<"))
        #expect(text.contains("data-count=\"done\">1<"))
        #expect(text.contains("data-count=\"failed\">1<"))
        #expect(text.contains("data-count=\"skipped\">1<"))
        #expect(text.contains("facescan <span class=\"version\">9.9.9</span>"))
        #expect(text.contains("href=\"out/a%3Cb%3E.stl\""))
        // The gate bar: 3 of 4 accepted, 1 rejected for tracking.
        #expect(text.contains("class=\"g-accepted\" style=\"width:75.00%\""))
        #expect(text.contains("class=\"g-tracking\" style=\"width:25.00%\""))
        // No network: nothing is loaded from elsewhere.
        #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("src=\"/"))
        #expect(text.components(separatedBy: "src=\"data:image/png;base64,").count == 2)
    }

    /// The uncertainty picture sits beside the thumbnail, and the noise and smoothing are told.
    @Test func showsTheUncertaintyBesideTheThumbnail() throws {
        var p = try page()
        p.captures[0].uncertainty = try HTMLReport.image(RGBAImage(width: 6, height: 4), maxSide: 6)
        p.captures[0].report?.noise = Report.Noise(standardErrors: [40e-6, 50e-6, 60e-6])
        p.captures[0].report?.smoothing = Report.Smoothing(passes: 3, automatic: true, reason: "r")
        let text = String(decoding: HTMLReport.html(p), as: UTF8.self)
        #expect(text.components(separatedBy: "src=\"data:image/png;base64,").count == 3)
        #expect(text.contains("alt=\"standard error of a&lt;b&gt;&amp;&quot;c&#39;, µm\""))
        #expect(text.contains("standard error 50 µm median, 60 µm 95th percentile, 3 smoothing passes (auto)"))
    }

    @Test func sameInputSameBytes() throws {
        #expect(HTMLReport.html(try page()) == HTMLReport.html(try page()))
        var other = try page()
        other.captures[0].report?.timingsMs.total += 1
        #expect(HTMLReport.html(other) != HTMLReport.html(try page()))
    }

    @Test func regressPageShowsFailuresFirst() {
        let pass = HTMLReport.Sample(
            name: "aaa-pass", verdict: .done,
            metrics: [HTMLReport.Metric(status: "PASS", name: "outputVertices", detail: "10", fails: false)])
        let fail = HTMLReport.Sample(
            name: "zzz-fail", verdict: .failed(exitCode: 1, message: "FAIL previousErrorUm"),
            metrics: [HTMLReport.Metric(status: "FAIL", name: "previousErrorUm", detail: "rms 5", fails: true)],
            rmsUm: 5, maxUm: 12.25)
        let text = String(
            decoding: HTMLReport.html(HTMLReport.Page(command: "regress", samples: [pass, fail])), as: UTF8.self)
        let f = try! #require(text.range(of: "zzz-fail")), p = try! #require(text.range(of: "aaa-pass"))
        #expect(f.lowerBound < p.lowerBound)
        #expect(text.contains("RMS 5.0 µm, max 12.3 µm"))
        #expect(text.contains("data-count=\"failed\">1<"))
    }

    @Test func relativeLinksArePercentEncoded() {
        #expect(HTMLReport.relativeHref(to: "/w/out/a b.png", fromDirectory: "/w") == "out/a%20b.png")
        #expect(HTMLReport.relativeHref(to: "/w/out/x.stl", fromDirectory: "/w/out") == "x.stl")
        #expect(HTMLReport.relativeHref(to: "/w/out/x.stl", fromDirectory: "/w/r/s") == "../../out/x.stl")
        #expect(HTMLReport.relativeHref(to: "/w/o/<&\"'#?.stl", fromDirectory: "/w") == "o/%3C%26%22%27%23%3F.stl")
        #expect(HTMLReport.relativeHref(to: "/w/é.png", fromDirectory: "/w") == "%C3%A9.png")
        #expect(HTMLReport.absolute("/a/./b//c/../d") == "/a/b/d")
    }

    @Test func base64MatchesFoundation() {
        for n in 0..<8 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 77 + 3) }
            #expect(HTMLReport.base64(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test func downscaleAveragesCoveredPixelsByAlpha() throws {
        // 4×2: left half opaque red and transparent green, right half opaque blue.
        var px: [UInt8] = []
        for _ in 0..<2 { px += [255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 255, 255, 0, 0, 255, 255] }
        let small = HTMLReport.downscaled(try RGBAImage(width: 4, height: 2, pixels: px), maxSide: 2)
        #expect(small.width == 2 && small.height == 1)
        #expect(small[0, 0] == SIMD4(255, 0, 0, 128))  // the transparent green adds no colour
        #expect(small[1, 0] == SIMD4(0, 0, 255, 255))
        let same = try RGBAImage(width: 3, height: 3)
        #expect(HTMLReport.downscaled(same, maxSide: 8) == same)
    }

    @Test func storedReportReadsBack() {
        var r = report(accepted: 7, tracking: 2)
        r.outputs = [Report.Output(format: "png", path: "out/a.png", bytes: 10)]
        let back = Report(stored: r.json)
        #expect(back.frames == r.frames)
        #expect(back.mesh == r.mesh)
        #expect(back.outputs == r.outputs)
        #expect(back.warnings == r.warnings)
        #expect(back.timingsMs.total == r.timingsMs.total)
    }

    @Test func destinationIsCheckedBeforeAnyWork() throws {
        #expect(throws: FaceScanError.self) { try HTMLReport.checkDestination("-") }
        #expect(throws: FaceScanError.self) { try HTMLReport.checkDestination("/nonexistent-dir-40/r.html") }
        // The output directory the run is about to create is accepted.
        try HTMLReport.checkDestination("newdir-40/r.html", outputDirectory: "./newdir-40")
        let dir = FileManager.default.temporaryDirectory.path + "/htmlreport-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir + "/r.html", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: FaceScanError.self) { try HTMLReport.checkDestination(dir + "/r.html") }
    }
}
