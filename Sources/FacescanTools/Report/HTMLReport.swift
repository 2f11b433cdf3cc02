import FaceScanKit

/// One self-contained static HTML page for a batch or a regression run: per capture (or sample)
/// its pictures, verdict, frame-gate counts, vertex counts, timings, warnings and links to its
/// outputs; a header with the totals, the facescan version and the settings in force; buttons that
/// filter by verdict (a few lines of inline JavaScript; without it every entry shows).
///
/// ``html(_:)`` is a pure function of its ``Page``: no clock, no file system, no network. Images
/// are inlined as `data:` URIs (PNG), links are the relative hrefs the caller puts in, and every
/// text is escaped, so the same page gives the same bytes and a file name holding `<`, `&` or
/// quotes stays text.
public enum HTMLReport {
    /// A PNG image shown inline.
    public struct Image: Sendable, Equatable {
        /// The encoded PNG file.
        public var png: [UInt8]
        /// Width, pixels.
        public var width: Int
        /// Height, pixels.
        public var height: Int
    }

    /// One line of the header's settings table.
    public struct Setting: Sendable, Equatable {
        /// The setting's name, e.g. `quality`.
        public var name: String
        /// Its value as shown.
        public var value: String
        /// A settings line from its name and value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A link to an output file, relative to the page (``HTMLReport/relativeHref(to:fromDirectory:)``).
    public struct Link: Sendable, Equatable {
        /// The link's text, e.g. the format name.
        public var label: String
        /// The file's href relative to the page.
        public var href: String
    }

    /// What became of a capture or sample. Its ``key`` is what the page filters on.
    public enum Verdict: Sendable, Equatable {
        /// Processed (batch) or every metric within tolerance (regress).
        case done
        /// Failed with this exit code and one-line message.
        case failed(exitCode: Int32, message: String)
        /// Not processed, for this reason (done earlier with `--resume`, not a capture).
        case skipped(reason: String)

        /// `done`, `failed` or `skipped`.
        public var key: String {
            switch self {
            case .done: "done"
            case .failed: "failed"
            case .skipped: "skipped"
            }
        }
    }

    /// One capture of a batch.
    public struct Capture: Sendable, Equatable {
        /// The output base name.
        public var name: String
        /// The capture's path as given.
        public var input: String
        /// Done, failed or skipped.
        public var verdict: Verdict
        /// What the run did (also for a capture that failed in the gate, and for one skipped by
        /// `--resume`: its stored report); nil when nothing is known.
        public var report: Report?
        /// The thumbnail at a reduced size (``HTMLReport/thumbnail(path:maxSide:)``).
        public var thumbnail: Image?
        /// The uncertainty picture (`uncertainty.png`) at a reduced size, shown beside the thumbnail.
        public var uncertainty: Image?
        /// Links to the outputs written.
        public var links: [Link] = []
    }

    /// One metric line of a regression sample.
    public struct Metric: Sendable, Equatable {
        /// PASS, FAIL, CHANGED or UPDATED.
        public var status: String
        /// The metric's name.
        public var name: String
        /// What was measured against what was expected, one line.
        public var detail: String
        /// Whether this line fails the run.
        public var fails: Bool
    }

    /// One sample of a regression run: the last accepted output beside this run's, and the heatmap
    /// of their distance.
    public struct Sample: Sendable, Equatable {
        /// The sample's name (its folder under samples/).
        public var name: String
        /// Done when every metric is within tolerance, else failed or skipped.
        public var verdict: Verdict
        /// Every metric line of the sample, in the order compared.
        public var metrics: [Metric]
        /// `expected.stl` rendered (nil when the sample has none).
        public var expected: Image?
        /// This run's mesh rendered with the same settings.
        public var current: Image?
        /// This run's mesh coloured by each vertex's distance to `expected.stl`, with its legend.
        public var heatmap: Image?
        /// RMS of those distances, µm.
        public var rmsUm: Double?
        /// Largest of those distances, µm.
        public var maxUm: Double?
        /// What this run did for the sample; nil when it did not run.
        public var report: Report?
    }

    /// Everything the page shows.
    public struct Page: Sendable, Equatable {
        /// `batch` or `regress`: the page's title.
        public var command: String
        /// The facescan version the header shows.
        public var version: String
        /// The settings in force, one table line each.
        public var settings: [Setting]
        /// Batch: in input order.
        public var captures: [Capture]
        /// Regress: shown failures first, otherwise in this order.
        public var samples: [Sample]
        /// A page; a batch page gives `captures`, a regression page `samples`.
        public init(
            command: String, version: String = HTMLReport.facescanVersion, settings: [Setting] = [],
            captures: [Capture] = [],
            samples: [Sample] = []
        ) {
            self.command = command
            self.version = version
            self.settings = settings
            self.captures = captures
            self.samples = samples
        }

        /// Entries per verdict key, in the order done, failed, skipped.
        public var counts: [(key: String, count: Int)] {
            let keys = captures.map(\.verdict.key) + samples.map(\.verdict.key)
            return ["done", "failed", "skipped"].map { k in (k, keys.filter { $0 == k }.count) }
        }

        /// Captures plus samples.
        public var total: Int { captures.count + samples.count }
    }

    /// facescan's version, the default of ``Page/version``.
    public static var facescanVersion: String { version }

    /// The page's bytes (UTF-8). The same page gives the same bytes.
    public static func html(_ page: Page) -> [UInt8] {
        var h = HTMLWriter()
        let title = "facescan \(page.command) report"
        h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        h.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        h.raw("<meta name=\"generator\" content=\"facescan \(escape(page.version))\">\n")
        h.raw("<title>\(escape(title))</title>\n<style>\n\(style)</style>\n</head>\n<body>\n")
        header(page, title: title, into: &h)
        h.raw("<main id=\"entries\">\n")
        for c in page.captures { capture(c, into: &h) }
        // Failures first; otherwise in the order given (stable).
        let ordered =
            page.samples.filter { $0.verdict.key == "failed" } + page.samples.filter { $0.verdict.key != "failed" }
        for s in ordered { sample(s, into: &h) }
        if page.total == 0 { h.raw("<p class=\"none\">Nothing was processed.</p>\n") }
        h.raw("</main>\n<script>\n\(script)</script>\n</body>\n</html>\n")
        return Array(h.text.utf8)
    }

    // MARK: Parts

    private static func header(_ page: Page, title: String, into h: inout HTMLWriter) {
        let noun = page.command == "regress" ? "sample" : "capture"
        h.raw("<header>\n<h1>\(escape(title))</h1>\n<p class=\"totals\">")
        h.raw(
            "<span class=\"count\" data-count=\"total\">\(page.total)</span> \(noun)\(page.total == 1 ? "" : "s"): ")
        let labels = page.command == "regress" ? ["done": "passed", "failed": "failed", "skipped": "skipped"] : [:]
        h.raw(
            page.counts.filter { $0.count > 0 || $0.key != "skipped" || page.command != "regress" }.map { k, n in
                "<span class=\"count v-\(k)\" data-count=\"\(k)\">\(n)</span> \(labels[k] ?? k)"
            }.joined(separator: ", "))
        h.raw(" · facescan <span class=\"version\">\(escape(page.version))</span></p>\n")
        if !page.settings.isEmpty {
            h.raw("<details class=\"settings\"><summary>Settings in force</summary>\n<table>\n")
            for s in page.settings {
                h.raw("<tr><th>\(escape(s.name))</th><td>\(escape(s.value))</td></tr>\n")
            }
            h.raw("</table></details>\n")
        }
        h.raw("<p class=\"legend\">Frames: ")
        h.raw(
            ["accepted", "distance", "tracking", "lighting", "expression"].map {
                "<i class=\"g-\($0)\"></i>\($0 == "accepted" ? $0 : "rejected: " + $0)"
            }.joined(separator: " "))
        h.raw("</p>\n")
        h.raw("<nav class=\"filter\" aria-label=\"Show\">Show: ")
        h.raw("<button type=\"button\" data-filter=\"all\" class=\"on\">all (\(page.total))</button>")
        for (k, n) in page.counts where n > 0 {
            h.raw(
                " <button type=\"button\" data-filter=\"\(k)\">\(page.command == "regress" && k == "done" ? "passed" : k) (\(n))</button>"
            )
        }
        h.raw("</nav>\n</header>\n")
    }

    private static func capture(_ c: Capture, into h: inout HTMLWriter) {
        let key = c.verdict.key
        h.raw("<section class=\"entry v-\(key)\" data-verdict=\"\(key)\">\n")
        h.raw("<div class=\"pics\">")
        if let t = c.thumbnail {
            image(t, alt: "thumbnail of \(c.name)", into: &h)
        } else {
            h.raw("<div class=\"noimg\">no picture</div>")
        }
        if let u = c.uncertainty { image(u, alt: "standard error of \(c.name), µm", into: &h) }
        h.raw("</div>\n<div class=\"body\">\n")
        h.raw(
            "<h2><span class=\"badge v-\(key)\">\(key)</span> \(escape(c.name))</h2>\n<p class=\"input\">\(escape(c.input))</p>\n"
        )
        verdictLine(c.verdict, into: &h)
        if let r = c.report { reportFacts(r, into: &h) }
        if !c.links.isEmpty {
            h.raw("<p class=\"links\">")
            h.raw(
                c.links.map { "<a href=\"\(escape($0.href))\">\(escape($0.label))</a>" }.joined(separator: " · "))
            h.raw("</p>\n")
        }
        h.raw("</div>\n</section>\n")
    }

    private static func sample(_ s: Sample, into h: inout HTMLWriter) {
        let key = s.verdict.key
        h.raw("<section class=\"entry sample v-\(key)\" data-verdict=\"\(key)\">\n<div class=\"body\">\n")
        h.raw(
            "<h2><span class=\"badge v-\(key)\">\(key == "done" ? "passed" : key)</span> \(escape(s.name))</h2>\n")
        verdictLine(s.verdict, into: &h)
        h.raw("<div class=\"compare\">")
        for (label, img) in [("expected", s.expected), ("current", s.current), ("distance", s.heatmap)] {
            h.raw("<figure>")
            if let img {
                image(img, alt: "\(label): \(s.name)", into: &h)
            } else {
                h.raw("<div class=\"noimg\">none</div>")
            }
            var caption =
                label == "expected" ? "expected.stl" : label == "current" ? "this run" : "distance to expected"
            if label == "distance", let rms = s.rmsUm, let mx = s.maxUm {
                caption += ": RMS \(fixed(rms, 1)) µm, max \(fixed(mx, 1)) µm"
            }
            h.raw("<figcaption>\(escape(caption))</figcaption></figure>")
        }
        h.raw("</div>\n")
        if let r = s.report { reportFacts(r, into: &h) }
        // The lines that fail, in full; the others folded.
        let failing = s.metrics.filter(\.fails), passing = s.metrics.filter { !$0.fails }
        metricTable(failing, into: &h)
        if !passing.isEmpty {
            h.raw(
                "<details class=\"passing\"><summary>\(passing.count) metric\(passing.count == 1 ? "" : "s") within tolerance</summary>\n"
            )
            metricTable(passing, into: &h)
            h.raw("</details>\n")
        }
        h.raw("</div>\n</section>\n")
    }

    private static func metricTable(_ metrics: [Metric], into h: inout HTMLWriter) {
        guard !metrics.isEmpty else { return }
        h.raw("<table class=\"metrics\">\n")
        for m in metrics {
            h.raw("<tr class=\"\(m.fails ? "fails" : "ok")\"><td class=\"st\">\(escape(m.status))</td>")
            h.raw("<td>\(escape(m.name))</td><td>\(escape(m.detail))</td></tr>\n")
        }
        h.raw("</table>\n")
    }

    private static func verdictLine(_ v: Verdict, into h: inout HTMLWriter) {
        switch v {
        case .done: break
        case .failed(let code, let message):
            h.raw("<p class=\"message\">exit \(code): \(escape(message))</p>\n")
        case .skipped(let reason):
            h.raw("<p class=\"message\">\(escape(reason))</p>\n")
        }
    }

    /// Gate bar, counts, timings and warnings of a report.
    private static func reportFacts(_ r: Report, into h: inout HTMLWriter) {
        let f = r.frames, rej = f.rejected
        let parts: [(String, Int)] = [
            ("accepted", f.accepted), ("distance", rej.distance), ("tracking", rej.tracking),
            ("lighting", rej.lighting), ("expression", rej.expression),
        ]
        let total = parts.reduce(0) { $0 + $1.1 }
        if total > 0 {
            h.raw("<div class=\"gate\" title=\"frames: \(f.accepted) of \(f.read) accepted\">")
            for (name, n) in parts where n > 0 {
                h.raw(
                    "<span class=\"g-\(name)\" style=\"width:\(percent(n, of: total))%\" title=\"\(name) \(n)\"></span>"
                )
            }
            h.raw("</div>\n")
        }
        var facts = "frames \(f.accepted)/\(f.read) accepted"
        let rejected = parts.dropFirst().filter { $0.1 > 0 }
        if !rejected.isEmpty {
            facts += " (rejected: " + rejected.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
        }
        if rej.outlier > 0 { facts += ", \(rej.outlier) outlier\(rej.outlier == 1 ? "" : "s")" }
        h.raw("<p class=\"facts\">\(escape(facts))")
        if r.mesh.outputVertices > 0 || r.mesh.inputVertices > 0 {
            h.raw(
                "<br>vertices \(r.mesh.inputVertices) → \(r.mesh.outputVertices), triangles \(r.mesh.inputTriangles) → \(r.mesh.outputTriangles)"
            )
        }
        if let n = r.noise {
            let s = r.smoothing.map { ", \($0.passes) smoothing passes\($0.automatic ? " (auto)" : "")" } ?? ""
            h.raw(
                "<br>standard error \(Int(n.medianStandardErrorUm.rounded())) µm median, \(Int(n.p95StandardErrorUm.rounded())) µm 95th percentile\(s)"
            )
        }
        let t = r.timingsMs
        if t.total > 0 {
            var stages = [
                ("ingest", t.ingest), ("smooth", t.smooth), ("decimate", t.decimate), ("refine", t.refine),
                ("render", t.render), ("export", t.export),
            ].filter { $0.1 > 0 }.map { "\($0.0) \(milliseconds($0.1))" }.joined(separator: ", ")
            if !stages.isEmpty { stages = " (" + stages + ")" }
            h.raw("<br>time \(milliseconds(t.total))\(escape(stages))")
        }
        h.raw("</p>\n")
        if !r.warnings.isEmpty {
            h.raw("<ul class=\"warnings\">")
            for w in r.warnings { h.raw("<li>\(escape(w))</li>") }
            h.raw("</ul>\n")
        }
    }

    private static func image(_ img: Image, alt: String, into h: inout HTMLWriter) {
        h.raw(
            "<img width=\"\(img.width)\" height=\"\(img.height)\" alt=\"\(escape(alt))\" src=\"data:image/png;base64,")
        h.raw(base64(img.png))
        h.raw("\">")
    }

    // MARK: Text

    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, fit for element text and
    /// quoted attribute values; control characters other than tab and newline dropped.
    public static func escape(_ text: String) -> String { Markup.escaped(text) }

    /// `n / total` as a percentage with two decimals (integer arithmetic: the same on every machine).
    static func percent(_ n: Int, of total: Int) -> String {
        guard total > 0 else { return "0" }
        let hundredths = (n * 10_000 + total / 2) / total
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac)"
    }

    /// `x` with `digits` decimals (0 to 3), rounded half away from zero; `?` when not finite.
    static func fixed(_ x: Double, _ digits: Int) -> String {
        guard x.isFinite, abs(x) < 1e15 else { return x.isNaN ? "?" : (x > 0 ? "∞" : "-∞") }
        let scale = [1, 10, 100, 1000][min(max(digits, 0), 3)]
        let n = Int((abs(x) * Double(scale)).rounded())
        let sign = x < 0 && n != 0 ? "-" : ""
        guard scale > 1 else { return sign + String(n) }
        var frac = String(n % scale)
        while frac.count < String(scale).count - 1 { frac = "0" + frac }
        return sign + String(n / scale) + "." + frac
    }

    /// A duration: `850 ms`, `12.3 s`, `4 min 05 s`.
    static func milliseconds(_ ms: Double) -> String {
        guard ms.isFinite else { return "?" }
        if ms < 10_000 { return "\(fixed(ms, 0)) ms" }
        if ms < 60_000 { return "\(fixed(ms / 1000, 1)) s" }
        let s = Int((ms / 1000).rounded())
        return "\(s / 60) min \(s % 60 < 10 ? "0" : "")\(s % 60) s"
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [table[Int(v >> 18)], table[Int(v >> 12 & 63)], table[Int(v >> 6 & 63)], table[Int(v & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out += [table[Int(v >> 18)], table[Int(v >> 12 & 63)]]
            out += rest == 2 ? [table[Int(v >> 6 & 63)], UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Style and script

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f2;color:#222}
        header{background:#fff;border-bottom:1px solid #ccc;padding:12px 20px;position:sticky;top:0;z-index:1}
        h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:0 0 2px;word-break:break-all}
        .totals{margin:0 0 6px}.count{font-weight:bold}
        .settings table{border-collapse:collapse;margin:4px 0}.settings th,.settings td{text-align:left;padding:0 12px 0 0;font-weight:normal}
        .settings th{color:#666}
        button{font:inherit;border:1px solid #999;background:#fff;border-radius:4px;padding:2px 10px;margin:0 2px;cursor:pointer}
        button.on{background:#333;color:#fff}
        main{padding:12px 20px}
        .entry{display:flex;gap:14px;background:#fff;border:1px solid #ddd;border-left:6px solid #4a4;border-radius:4px;margin:0 0 10px;padding:10px}
        .entry.v-failed{border-left-color:#c33}.entry.v-skipped{border-left-color:#999}
        .pics{flex:0 0 auto}.pics img,.noimg{display:block;background:#eee;border-radius:3px}
        .noimg{width:112px;height:112px;line-height:112px;text-align:center;color:#888}
        .body{flex:1 1 auto;min-width:0}
        .badge{display:inline-block;font-size:12px;padding:0 6px;border-radius:3px;color:#fff;background:#4a4;vertical-align:1px}
        .badge.v-failed{background:#c33}.badge.v-skipped{background:#888}
        .input{color:#666;margin:0;font-size:12px;word-break:break-all}
        .message{color:#a00;margin:4px 0;font-weight:bold}.v-skipped .message{color:#555;font-weight:normal}
        .gate{display:flex;width:320px;max-width:100%;height:10px;margin:6px 0 2px;background:#eee;border-radius:2px;overflow:hidden}
        .g-accepted{background:#4a4}.g-distance{background:#e90}.g-tracking{background:#c33}.g-lighting{background:#fc3}.g-expression{background:#96c}
        .facts{margin:2px 0;font-size:13px}.warnings{margin:2px 0;color:#a60;padding-left:18px}
        .links a{margin-right:2px}
        .compare{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0}.compare figure{margin:0}
        figcaption{font-size:12px;color:#555}
        .metrics{border-collapse:collapse;font-size:12px}.passing summary{font-size:12px;color:#555}.metrics td{padding:1px 8px 1px 0;vertical-align:top}
        .metrics tr.fails{color:#b00;font-weight:bold}.st{font-family:monospace}
        .legend{margin:0 0 6px;font-size:12px;color:#555}.legend i{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;vertical-align:-1px}
        [hidden]{display:none!important}

        """

    static let script = """
        for (const b of document.querySelectorAll('[data-filter]')) b.addEventListener('click', () => {
          for (const e of document.querySelectorAll('.entry')) e.hidden = b.dataset.filter !== 'all' && e.dataset.verdict !== b.dataset.filter;
          for (const o of document.querySelectorAll('[data-filter]')) o.classList.toggle('on', o === b);
        });

        """
}

/// Builds the page text.
struct HTMLWriter {
    var text = ""
    mutating func raw(_ s: String) { text += s }
}
