import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Building a page's entries from what `batch` and `regress` produce: thumbnails at a reduced
/// size, links relative to the page, stored reports, the settings in force. (These read the
/// outputs; ``HTMLReport/html(_:)`` itself reads nothing.)
extension HTMLReport {
    /// The longest side of a thumbnail on the page, pixels (a 512-pixel render shown at 112: a
    /// 500-capture page stays a few MB).
    public static let thumbnailSide = 112

    /// Side of the pictures of a regression sample.
    public static let sampleImageSide = 192

    /// Refuses, before any work, a page path that cannot be written: `-`, a directory, a link
    /// or special file, or a path whose directory does not exist (the same checks as every output)
    /// unless that directory is `outputDirectory`, which the run creates.
    package static func checkDestination(_ path: String, outputDirectory: String? = nil) throws(FaceScanError) {
        guard path != "-" && !path.isEmpty && !path.hasSuffix("/") else {
            throw .badSetting(
                UsageError("--report needs a file name, got '\(path)' (the page is not written to standard output)"))
        }
        let dir = AtomicFile.directory(of: path)
        if let outputDirectory, !AtomicFile.isDirectoryFollowingLinks(dir),
            absolute(dir) == absolute(outputDirectory)
        {
            return
        }
        do { try AtomicFile.checkTarget(path) } catch { throw .io(error) }
    }

    /// Writes the page atomically (an existing page at `path` is replaced in one step).
    package static func write(_ page: Page, to path: String) throws(IOFailure) {
        try OutputSet.write(html(page), to: path)
    }

    // MARK: Images

    /// `image` shrunk so that its longer side is at most `maxSide` (box filter, each output pixel
    /// the alpha-weighted mean of the source pixels it covers); unchanged when already that small.
    public static func downscaled(_ image: RGBAImage, maxSide: Int) -> RGBAImage {
        let side = Swift.max(1, maxSide)
        guard image.width > side || image.height > side else { return image }
        let w = Swift.max(1, image.width * side / Swift.max(image.width, image.height))
        let h = Swift.max(1, image.height * side / Swift.max(image.width, image.height))
        var out = [UInt8](repeating: 0, count: w * h * 4)
        let src = image.pixels
        for y in 0..<h {
            let y0 = y * image.height / h, y1 = Swift.max(y0 + 1, (y + 1) * image.height / h)
            for x in 0..<w {
                let x0 = x * image.width / w, x1 = Swift.max(x0 + 1, (x + 1) * image.width / w)
                var r = 0, g = 0, b = 0, a = 0
                for sy in y0..<y1 {
                    var o = 4 * (sy * image.width + x0)
                    for _ in x0..<x1 {
                        let al = Int(src[o + 3])
                        r += Int(src[o]) * al
                        g += Int(src[o + 1]) * al
                        b += Int(src[o + 2]) * al
                        a += al
                        o += 4
                    }
                }
                let n = (y1 - y0) * (x1 - x0)
                let d = 4 * (y * w + x)
                if a > 0 {
                    out[d] = UInt8((r + a / 2) / a)
                    out[d + 1] = UInt8((g + a / 2) / a)
                    out[d + 2] = UInt8((b + a / 2) / a)
                }
                out[d + 3] = UInt8((a + n / 2) / n)
            }
        }
        return RGBAImage(uncheckedWidth: w, height: h, pixels: out)
    }

    /// `image` downscaled to `maxSide` and encoded as PNG.
    public static func image(_ image: RGBAImage, maxSide: Int) throws(FaceScanError) -> Image {
        let small = downscaled(image, maxSide: maxSide)
        return Image(png: try PNGEncoder.encode(small, name: "thumbnail"), width: small.width, height: small.height)
    }

    /// The PNG file at `path` as a thumbnail of at most `maxSide` pixels, made small to inline:
    /// composited over the page's picture background and posterized (5 bits per channel, ``thumbnailBits``).
    public static func thumbnail(path: String, maxSide: Int = thumbnailSide) throws(FaceScanError) -> Image {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, upTo: 1 << 28) } catch { throw .io(error) }
        let small = compact(downscaled(try PNGEncoder.decode(bytes, name: path), maxSide: maxSide))
        return Image(png: try PNGEncoder.encode(small, name: path), width: small.width, height: small.height)
    }

    /// The grey behind pictures on the page (`#eeeeee`).
    static let pictureBackground: UInt8 = 0xEE

    /// Bits kept per colour channel of a thumbnail.
    public static let thumbnailBits = 5

    /// `image` composited over ``pictureBackground`` (opaque) with each channel rounded to
    /// ``thumbnailBits`` bits: on a smooth clay render the PNG is about a third the size, and at
    /// thumbnail size the steps do not show.
    static func compact(_ image: RGBAImage) -> RGBAImage {
        var p = image.pixels
        let step = 1 << (8 - thumbnailBits)
        let bg = Int(pictureBackground)
        var i = 0
        while i < p.count {
            let a = Int(p[i + 3])
            for k in 0..<3 {
                let c = (Int(p[i + k]) * a + bg * (255 - a) + 127) / 255
                p[i + k] = UInt8(Swift.min(255, (c + step / 2) / step * step))
            }
            p[i + 3] = 255
            i += 4
        }
        return RGBAImage(uncheckedWidth: image.width, height: image.height, pixels: p)
    }

    // MARK: Links

    /// `path` made absolute against the working directory, without `.` and empty components
    /// (and `..` resolved lexically).
    package static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            var cwd = "."
            if let p = getcwd(nil, 0) {
                cwd = String(cString: p)
                free(p)
            }
            full = cwd + "/" + path
        }
        var parts: [Substring] = []
        for p in full.split(separator: "/", omittingEmptySubsequences: true) where p != "." {
            if p == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else {
                parts.append(p)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The href of `target` from a page in `directory`, both absolute and normalised (no `.`,
    /// `..` or empty component): relative, each component percent-encoded (the RFC 3986
    /// unreserved characters kept, every other byte of its UTF-8 as `%XX`).
    public static func relativeHref(to target: String, fromDirectory directory: String) -> String {
        let t = target.split(separator: "/").map(String.init)
        let d = directory.split(separator: "/").map(String.init)
        var common = 0
        while common < t.count - 1 && common < d.count && t[common] == d[common] { common += 1 }
        let up = Array(repeating: "..", count: d.count - common)
        return (up + t[common...].map(percentEncoded)).joined(separator: "/")
    }

    /// One path component as it goes into a URL: unreserved ASCII kept, every other byte `%XX`.
    static func percentEncoded(_ component: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in component.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(b)
            default: out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Batch

    /// The page entry of one batch capture. `exitCode` and `message` are the command line's
    /// (its exit-code mapping); `pageDirectory` is the absolute directory of the page, for the links.
    /// A thumbnail that cannot be read is left out (the entry says "no picture").
    package static func capture(
        _ o: Batch.Outcome, exitCode: Int32, message: String, outputDirectory: String, pageDirectory: String,
        thumbnailSide: Int = thumbnailSide
    ) -> Capture {
        let report = o.report ?? o.storedReport.map(Report.init(stored:))
        let verdict: Verdict =
            o.skipped
            ? .skipped(
                reason: o.doneByOther
                    ? "done by another facescan batch into the same directory while this one waited"
                    : "done earlier (--resume): \(o.name).report.json and its outputs are whole (sizes and CRC-32s checked)"
            )
            : exitCode == 0 ? .done : .failed(exitCode: exitCode, message: message)
        var links: [Link] = []
        var thumb: Image?
        var uncertainty: Image?
        if exitCode == 0, let r = report {
            for out in r.outputs {
                let path = o.skipped ? outputDirectory + "/" + o.name + "." + out.format : out.path
                links.append(
                    Link(label: out.format, href: relativeHref(to: absolute(path), fromDirectory: pageDirectory)))
                if out.format == "png" && thumb == nil { thumb = try? thumbnail(path: path, maxSide: thumbnailSide) }
                if out.format == "uncertainty.png" && uncertainty == nil {
                    // Wider than the thumbnail: the picture carries its legend on the right.
                    uncertainty = try? thumbnail(path: path, maxSide: thumbnailSide * 3 / 2)
                }
            }
            let reportFile = Batch.reportPath(outputDirectory: outputDirectory, name: o.name)
            links.append(
                Link(label: "report.json", href: relativeHref(to: absolute(reportFile), fromDirectory: pageDirectory)))
        }
        return Capture(
            name: o.name, input: o.input, verdict: verdict, report: report, thumbnail: thumb,
            uncertainty: uncertainty, links: links)
    }

    /// The page entry of an input that is not a capture (``Batch/Ignored``).
    package static func capture(ignored i: Batch.Ignored) -> Capture {
        let name = AtomicFile.baseName(of: i.path)
        return Capture(name: name, input: i.path, verdict: .skipped(reason: "not processed: \(i.reason)"))
    }

    /// The settings of a batch run as the header lists them (unset ones as their default).
    public static func settings(_ o: PipelineOptions, extra: [Setting] = []) -> [Setting] {
        func or(_ v: String?, _ d: String) -> String { v ?? d }
        var s = [
            Setting("output directory", o.outputDirectory),
            Setting("formats", or(o.formats?.joined(separator: ","), "the capture's settings, else stl,obj,png")),
            Setting("quality", or(o.quality.map { "\($0)" }, "the capture's settings")),
            Setting("target vertices", or(o.targetVertices.map(String.init), "the capture's settings")),
            Setting("smoothing", or(o.smoothing.map(\.description), "auto")),
            Setting("smoothing weights", "\(o.smoothingWeights)"),
            Setting("units", or(o.units.map { "\($0)" }, "the capture's settings, else mm")),
            Setting("scale", or(o.scale.map { "\($0)" }, "1")),
            Setting("max frames", or(o.maxFrames.map(String.init), "all")),
            Setting("thumbnail size", "\(o.thumbnailSize)"),
            Setting("solid", o.solid == nil ? "no" : "yes"),
        ]
        let gate: [(String, Double?)] = [
            ("min distance (m)", o.gate.minDistance), ("max distance (m)", o.gate.maxDistance),
            ("min light (lm)", o.gate.minAmbientIntensity), ("max jaw open", o.gate.maxJawOpen),
            ("max smile", o.gate.maxSmile), ("max brow up", o.gate.maxBrowInnerUp),
        ]
        for (name, v) in gate { s.append(Setting(name, v.map { "\($0)" } ?? "the capture's settings, else default")) }
        return s + extra
    }

    // MARK: Regress

    /// The page entry of one regression sample: `expected.stl` and this run's mesh rendered alike
    /// (``sampleImageSide``), the heatmap of each new vertex's distance to `expected.stl` (`drift`,
    /// the artifacts' heatmap; nil without `expected.stl`), and the metric lines.
    package static func sample(
        _ m: Regression.Metrics, lines: [Regression.Line], sampleDir: String, drift: Regression.Drift?,
        allowChanged: Bool
    ) throws -> Sample {
        let name = sampleDir.split(separator: "/").last.map(String.init) ?? sampleDir
        let failing = lines.filter { Regression.fails($0, allowChanged: allowChanged) }
        let verdict: Verdict =
            failing.isEmpty
            ? .done
            : .failed(
                exitCode: 1,
                message: failing.map { "\($0.status.rawValue) \($0.metric)" }.joined(separator: ", "))
        let options = RenderOptions(size: sampleImageSide)
        let current = try image(Rasterizer.render(m.mesh, options: options), maxSide: sampleImageSide)
        var expected: Image?, heat: Image?, rms: Double?, mx: Double?
        if let drift {
            expected = try image(Rasterizer.render(drift.expected, options: options), maxSide: sampleImageSide)
            let d = drift.distancesUm
            rms = (d.reduce(0) { $0 + $1 * $1 } / Double(Swift.max(1, d.count))).squareRoot()
            mx = d.max() ?? 0
            // Drawn at its own size: a legend shrunk after drawing would not be legible.
            let rendered = try Heatmap.render(
                m.mesh, valuesUm: d, maxUm: drift.topUm, options: RenderOptions(size: 256))
            heat = try image(rendered.image, maxSide: Swift.max(rendered.image.width, rendered.image.height))
        }
        let metrics = lines.map {
            Metric(
                status: $0.status.rawValue, name: $0.metric, detail: $0.detail,
                fails: Regression.fails($0, allowChanged: allowChanged))
        }
        return Sample(
            name: name, verdict: verdict, metrics: metrics, expected: expected, current: current, heatmap: heat,
            rmsUm: rms, maxUm: mx, report: m.report)
    }
}
