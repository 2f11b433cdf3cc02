import FaceScanKit
import Foundation
import Testing

/// The coloured outputs read by the programs people use (issue 56, "Real clients"): lib3mf (the
/// 3MF Consortium's library, 2.x from PyPI, a reader other than the 1.8 that writes) reads the
/// 3MF's texture and per-triangle texture coordinates (Tests/colour/check-3mf.py); trimesh (PyPI)
/// loads the OBJ with its MTL and texture, the GLB and the PLY and finds the same colours at the
/// same surface points, every front-facing point coloured (Tests/colour/sample-colours.py);
/// Chromium shows the colour thumbnail in the HTML report. The captures are the small patch of
/// ColourCLITests with a gradient image (red across, green down), so a texture read upside down or
/// mirrored gives other colours. Without a client a test says skipped and why; with `CI` set it
/// runs and fails.
@Suite(.serialized) struct ColourClientTests {
    /// Python with PyPI's lib3mf (`make lib3mf-venv`: .venv-lib3mf).
    static let lib3mfPython = USDZClientTests.python(venv: ".venv-lib3mf", probe: "import lib3mf; lib3mf.get_wrapper()")
    /// Python with PyPI's trimesh, numpy, Pillow and rtree (`make trimesh-venv`: .venv-trimesh).
    static let trimeshPython = USDZClientTests.python(
        venv: ".venv-trimesh", probe: "import trimesh, PIL, rtree; trimesh.creation.box().ray")
    static let lib3mfMissing = "PyPI's lib3mf is missing (make lib3mf-venv installs it into .venv-lib3mf)"
    static let trimeshMissing = "PyPI's trimesh is missing (make trimesh-venv installs it into .venv-trimesh)"

    /// The gradient the camera saw: red 120…246 across, green 50…97 down, blue 40.
    static func gradient(_ x: Int, _ y: Int) -> [UInt8] { [UInt8(120 + 2 * x), UInt8(50 + y), 40] }

    /// `process` of the gradient capture (`extra` flags) into `dir/out`; the output base path.
    static func colourRun(_ dir: String, formats: String, _ extra: [String] = []) throws -> String {
        let image = try pngBase64(64, 48, [], pixel: gradient)
        try colourCapture(image: image, imageFrames: [0, 1, 2, 3, 4]).write(
            toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/c.json", "-o", dir + "/out", "--formats", formats] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return dir + "/out/c"
    }

    /// Skin, not clay: warm (red above green above blue) and saturated.
    static func isSkin(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > g + 25 && g > b && r - b > 60 }

    static func json(_ text: String, _ what: String) throws -> [String: Any] {
        try #require((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], "\(what): \(text)")
    }

    // MARK: - lib3mf

    /// lib3mf reads the 3MF's texture (the very PNG beside the OBJ) and each triangle's corner UVs
    /// (those of the OBJ's vertices); the colours they give are the texture's at the vertices, the
    /// gradient's, not one colour. A `--solid` part's every triangle, back and plinth too, has
    /// texture coordinates.
    @Test(.enabled(if: lib3mfPython != nil || Tool.inCI, "\(lib3mfMissing)"))
    func lib3mfReadsTheColour() throws {
        let python = try #require(Self.lib3mfPython, "\(Self.lib3mfMissing); CI is set, so the test must run")
        let dir = tempDir()
        let base = try Self.colourRun(dir, formats: "obj,3mf", ["-n", "100"])
        let facts = try read3MF(python, base + ".3mf", dir)
        let obj = try MeshIO.read(path: base + ".obj")
        let uvs = try #require(obj.uvs, "the OBJ has vt")
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + ".texture.png")))
        let texture = try PNGEncoder.decode(png, name: "texture")

        let textures = try #require(facts["textures"] as? [String: [String: Any]])
        #expect(textures.count == 1, "\(textures)")
        let (id, t) = try #require(textures.first)
        #expect(t["packagePath"] as? String == "/3D/Textures/face.png" && t["contentType"] as? Int == 1, "\(t)")
        let read = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try #require(t["file"] as? String))))
        #expect(read == png, "the package's texture is the texture PNG")

        let objects = try #require(facts["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        let vertices = try #require(object["vertices"] as? [[Double]])
        let triangles = try #require(object["triangles"] as? [[Int]])
        let corners = try #require(object["corners"] as? [Any])
        #expect(vertices.count == obj.vertexCount && triangles.count == obj.triangleCount)
        #expect(corners.count == triangles.count)
        var worst: Float = 0, worstColour = 0, reds: [Int] = []
        for (i, p) in vertices.enumerated() where i < obj.vertexCount {
            let q = obj.positions[i]
            worst = max(worst, abs(Float(p[0]) - q.x), abs(Float(p[1]) - q.y), abs(Float(p[2]) - q.z))
        }
        #expect(worst < 1e-3, "3MF and OBJ vertices differ by \(worst) mm")
        for (k, c) in corners.enumerated() where k < triangles.count {
            let corner = try #require(c as? [String: Any], "triangle \(k) has no texture coordinates")
            #expect(corner["texture"] as? Int == Int(id), "triangle \(k): \(corner)")
            let uv = try #require(corner["uv"] as? [[Double]])
            for j in 0..<3 {
                let v = triangles[k][j], mine = uvs[v]
                let theirs = SIMD2<Float>(Float(uv[j][0]), Float(uv[j][1]))
                #expect(abs(theirs.x - mine.x) < 2e-5 && abs(theirs.y - mine.y) < 2e-5, "triangle \(k) corner \(j)")
                // The colour lib3mf's texture and coordinates give, against the vertex's colour.
                let a = TexturedMesh.sample(try PNGEncoder.decode(read, name: "3mf"), theirs)
                let b = TexturedMesh.sample(texture, mine)
                worstColour = max(
                    worstColour, abs(Int(a.x) - Int(b.x)), abs(Int(a.y) - Int(b.y)), abs(Int(a.z) - Int(b.z)))
                #expect(Self.isSkin(Int(a.x), Int(a.y), Int(a.z)), "triangle \(k) corner \(j): \(a)")
                reds.append(Int(a.x))
            }
        }
        #expect(worstColour <= 1, "lib3mf's colours differ from the texture's at the vertices by \(worstColour)")
        #expect(
            (reds.max() ?? 0) - (reds.min() ?? 0) >= 20,
            "the gradient is in the 3MF: red \(reds.min() ?? 0)…\(reds.max() ?? 0)")

        // The solid part: every triangle textured, the back's all the texture's corner.
        let solidDir = tempDir()
        let solid = try Self.colourRun(solidDir, formats: "3mf", ["-n", "100", "--solid"])
        let solidFacts = try read3MF(python, solid + ".3mf", solidDir)
        let solidObject = try #require((solidFacts["objects"] as? [[String: Any]])?.first)
        let solidCorners = try #require(solidObject["corners"] as? [Any])
        #expect(!solidCorners.isEmpty && solidCorners.allSatisfy { $0 is [String: Any] }, "every triangle textured")
        #expect(solidCorners.count > obj.triangleCount, "\(solidCorners.count) triangles: the back is there")
    }

    /// What check-3mf.py reports for `package` (textures written into `dir`).
    func read3MF(_ python: String, _ package: String, _ dir: String) throws -> [String: Any] {
        let (status, out, err) = try ClientImportTests.run(
            python, [packageRoot + "/Tests/colour/check-3mf.py", package, dir], cwd: dir)
        #expect(status == 0, "check-3mf: \(err.suffix(2000))")
        return try Self.json(out, "check-3mf")
    }

    // MARK: - trimesh

    /// trimesh loads the OBJ (MTL and texture beside it), the GLB and the PLY; 24 × 24 rays from
    /// the front hit each at the same points, where the OBJ's and the GLB's textures give the same
    /// colour (within 1 of 255: the same PNG and UVs) and the PLY's vertex colours, interpolated,
    /// the texture's within 8 (a vertex colour cannot hold what varies inside a triangle); every
    /// front-facing point is skin-coloured, and the gradient shows.
    @Test(.enabled(if: trimeshPython != nil || Tool.inCI, "\(trimeshMissing)"))
    func trimeshSamplesTheSameColours() throws {
        let python = try #require(Self.trimeshPython, "\(Self.trimeshMissing); CI is set, so the test must run")
        let dir = tempDir()
        let base = try Self.colourRun(dir, formats: "obj,glb,ply", ["-n", "100"])
        let (status, out, err) = try ClientImportTests.run(
            python,
            [
                packageRoot + "/Tests/colour/sample-colours.py", "24", base + ".obj:1", base + ".glb:1000",
                base + ".ply:1",
            ],
            cwd: dir)
        #expect(status == 0, "sample-colours: \(err.suffix(2000))")
        let facts = try Self.json(out, "sample-colours")
        func hits(_ ext: String) throws -> (kind: String, image: [Int]?, hits: [[Any]?]) {
            let f = try #require(facts[base + "." + ext] as? [String: Any], "\(ext): \(facts.keys)")
            let h = try #require(f["hits"] as? [Any])
            return (f["kind"] as? String ?? "", f["image"] as? [Int], h.map { $0 as? [Any] })
        }
        let obj = try hits("obj"), glb = try hits("glb"), ply = try hits("ply")
        #expect(obj.kind == "texture" && obj.image == [512, 512], "OBJ: \(obj.kind) \(obj.image ?? [])")
        #expect(glb.kind == "texture" && glb.image == [512, 512], "GLB: \(glb.kind) \(glb.image ?? [])")
        #expect(ply.kind == "vertex", "PLY: \(ply.kind)")
        #expect(obj.hits.count == 24 * 24 && glb.hits.count == obj.hits.count && ply.hits.count == obj.hits.count)
        func values(_ h: [Any]) -> (p: SIMD3<Double>, c: SIMD3<Int>, front: Bool) {
            let d = h.prefix(6).map { ($0 as? NSNumber)?.doubleValue ?? .nan }
            return (SIMD3(d[0], d[1], d[2]), SIMD3(Int(d[3]), Int(d[4]), Int(d[5])), h[6] as? Bool ?? false)
        }
        var front = 0, glbWorst = 0, plyWorst = 0, reds: [Int] = [], greens: [Int] = []
        for i in 0..<obj.hits.count {
            guard let o = obj.hits[i] else {
                #expect(glb.hits[i] == nil && ply.hits[i] == nil, "ray \(i) hits the GLB or PLY, not the OBJ")
                continue
            }
            let g = try #require(glb.hits[i], "ray \(i) misses the GLB"), p = try #require(ply.hits[i], "ray \(i)")
            let vo = values(o), vg = values(g), vp = values(p)
            let apart = max(gap(vo.p, vg.p), gap(vo.p, vp.p))
            #expect(apart < 0.01, "ray \(i): the hits are \(apart) mm apart")
            glbWorst = max(glbWorst, Int(gap(SIMD3<Double>(vo.c), SIMD3<Double>(vg.c))))
            plyWorst = max(plyWorst, Int(gap(SIMD3<Double>(vo.c), SIMD3<Double>(vp.c))))
            guard vo.front else { continue }
            front += 1
            for c in [vo.c, vg.c, vp.c] {
                #expect(Self.isSkin(c.x, c.y, c.z), "ray \(i): front-facing point not coloured: \(c)")
            }
            reds.append(vo.c.x)
            greens.append(vo.c.y)
        }
        #expect(front >= 24 * 24 / 2, "\(front) front-facing hits of \(24 * 24) rays")
        #expect(glbWorst <= 1, "GLB and OBJ colours differ by up to \(glbWorst)")
        #expect(plyWorst <= 8, "PLY and OBJ colours differ by up to \(plyWorst)")
        #expect((reds.max() ?? 0) - (reds.min() ?? 0) >= 20, "red \(reds.min() ?? 0)…\(reds.max() ?? 0)")
        #expect((greens.max() ?? 0) - (greens.min() ?? 0) >= 8, "green \(greens.min() ?? 0)…\(greens.max() ?? 0)")
        // Red grows with x and green with y, as in the camera's picture (the camera looks along
        // -z with x right and y up; image rows run down): the texture is the right way round.
        let points = obj.hits.compactMap { $0.map(values) }.filter(\.front)
        #expect(correlation(points.map { $0.p.x }, points.map { Double($0.c.x) }) > 0.9)
        #expect(correlation(points.map { $0.p.y }, points.map { Double($0.c.y) }) < -0.9)
    }

    /// The largest difference of one coordinate.
    func gap(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
    }

    func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count), ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) {
            sab += (x - ma) * (y - mb)
            saa += (x - ma) * (x - ma)
            sbb += (y - mb) * (y - mb)
        }
        return sab / (saa * sbb).squareRoot()
    }
}

/// The HTML report in Chromium (HTMLReportBrowserTests' browser, skipped or failing as they are):
/// a batch of a capture with images and one without; in the screenshot, the first one's
/// thumbnail shows the texture's colours (their proportions, green and blue to red, within 0.1) and
/// the other's the clay (far less red than the skin).
extension HTMLReportBrowserTests {
    @Test func colourThumbnailInTheBrowser() throws {
        let base = tempDir(), input = base + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let image = try pngBase64(64, 48, [], pixel: ColourClientTests.gradient)
        try colourCapture(image: image, imageFrames: [0, 1, 2, 3, 4]).write(
            toFile: input + "/colour.json", atomically: false, encoding: .utf8)
        try smallCapture(frames: Array(repeating: goodMeta, count: 5)).write(
            toFile: input + "/grey.json", atomically: false, encoding: .utf8)
        let page = base + "/out/report.html"
        let r = try runFacescan([
            "batch", input, "--output-dir", base + "/out", "--report", page, "--target-vertices", "100",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        // Where each entry's thumbnail lies on the page (CSS pixels: the scale factor is 1).
        let probe = """
            <pre id="rects"></pre><script>
            window.addEventListener('load', () => {
              const r = [...document.querySelectorAll('.entry')].map(e => {
                const i = e.querySelector('img'); if (!i) return null;
                const b = i.getBoundingClientRect();
                return { name: e.textContent.includes('colour') ? 'colour' : 'grey', decoded: i.naturalWidth > 0,
                  x: b.left + window.scrollX, y: b.top + window.scrollY, w: b.width, h: b.height };
              });
              document.getElementById('rects').textContent = encodeURIComponent(JSON.stringify(r));
            });
            </script>
            """
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let copy = base + "/out/probe.html"
        try html.replacingOccurrences(of: "</body>", with: probe + "</body>").write(
            toFile: copy, atomically: false, encoding: .utf8)
        let size = ["--window-size=1280,1600", "--force-device-scale-factor=1", "--hide-scrollbars"]
        let dom = try chromium(
            size + ["--virtual-time-budget=10000", "--dump-dom", URL(fileURLWithPath: copy).absoluteString])
        #expect(dom.status == 0, "\(dom.stderr)")
        let match = try #require(dom.stdout.firstMatch(of: /<pre id="rects">([^<]*)<\/pre>/), "no rects: \(dom.stderr)")
        struct Rect: Decodable {
            var name: String
            var decoded: Bool
            var x, y, w, h: Double
        }
        let rects = try JSONDecoder().decode(
            [Rect?].self, from: Data(try #require(String(match.1).removingPercentEncoding).utf8)
        ).compactMap { $0 }
        #expect(Set(rects.map(\.name)) == ["colour", "grey"] && rects.allSatisfy(\.decoded), "\(rects)")
        let shot = base + "/shot.png"
        let s = try chromium(size + ["--screenshot=" + shot, URL(fileURLWithPath: copy).absoluteString])
        #expect(s.status == 0, "\(s.stderr)")
        let picture = try PNGEncoder.decode(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: shot))), name: "screenshot")
        if let keep = ProcessInfo.processInfo.environment["FACESCAN_SCREENSHOT_DIR"] {
            try? FileManager.default.removeItem(atPath: keep + "/colour-report.png")
            try FileManager.default.copyItem(atPath: shot, toPath: keep + "/colour-report.png")
        }
        // The colours' proportions (green / red, blue / red: shading scales the channels alike): the
        // face's pixels (those unlike the thumbnail's corner) against the texture's mean.
        let texture = try PNGEncoder.decode(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + "/out/colour.texture.png"))), name: "texture")
        var tg = 0.0, tb = 0.0
        for y in 0..<texture.height {
            for x in 0..<texture.width {
                let c = texture[x, y]
                tg += Double(c.y) / Double(max(c.x, 1))
                tb += Double(c.z) / Double(max(c.x, 1))
            }
        }
        let texels = Double(texture.width * texture.height)
        let expected = SIMD2(tg / texels, tb / texels)
        for rect in rects {
            let x0 = Int(rect.x.rounded(.up)), y0 = Int(rect.y.rounded(.up))
            let x1 = min(Int(rect.x + rect.w), picture.width), y1 = min(Int(rect.y + rect.h), picture.height)
            let corner = SIMD4<Int>(truncatingIfNeeded: picture[x0, y0])
            var g = 0.0, b = 0.0, face = 0
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let c = SIMD4<Int>(truncatingIfNeeded: picture[x, y])
                    guard max(abs(c.x - corner.x), abs(c.y - corner.y), abs(c.z - corner.z)) > 12 else { continue }
                    face += 1
                    g += Double(c.y) / Double(max(c.x, 1))
                    b += Double(c.z) / Double(max(c.x, 1))
                }
            }
            #expect(face > 1000, "\(rect.name): the face covers \(face) pixels of the thumbnail")
            let seen = SIMD2(g, b) / Double(max(face, 1))
            if rect.name == "colour" {
                #expect(
                    abs(seen.x - expected.x) < 0.1 && abs(seen.y - expected.y) < 0.1,
                    "colour thumbnail: green/red, blue/red \(seen), the texture's \(expected)")
            } else {
                #expect(seen.x > expected.x + 0.25, "clay thumbnail: green/red \(seen.x), the texture's \(expected.x)")
            }
        }
    }
}
