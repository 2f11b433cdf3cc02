import FaceScanKit
import Foundation
import Testing

/// A PNG `w × h`, base64, for a capture's `image`: of one colour `c`, or `pixel(x, y)` (r, g, b)
/// when given (ColourClientTests paints a gradient, so that a texture read the wrong way round
/// shows).
func pngBase64(_ w: Int, _ h: Int, _ c: [UInt8], pixel: ((Int, Int) -> [UInt8])? = nil) throws -> String {
    var px: [UInt8] = []
    for y in 0..<h {
        for x in 0..<w { px += (pixel?(x, y) ?? c) + [255] }
    }
    return Data(try PNGEncoder.encode(RGBAImage(width: w, height: h, pixels: px))).base64EncodedString()
}

let camera64 = "\"camera\":{\"intrinsics\":[60,0,0,0,60,0,32,24,1],\"imageResolution\":[64,48]}"

/// The small patch capture, five good frames, the first two with a camera image of `image`.
func colourCapture(image: String, camera: String = camera64, imageFrames: Set<Int> = [0, 1]) -> String {
    let frames = (0..<5).map { i in
        goodMeta + (imageFrames.contains(i) ? ",\(camera),\"ambientColorTemperature\":6500,\"image\":\"\(image)\"" : "")
    }
    return smallCapture(frames: frames)
}

@Suite struct ColourCLITests {
    let skin: [UInt8] = [200, 60, 40]

    /// With images: OBJ + MTL + texture, GLB with the texture, PLY with colours, all in the
    /// texture's colour; without: none of them (and no `mtllib`).
    @Test func colourOutputs() throws {
        let dir = tempDir()
        try colourCapture(image: pngBase64(64, 48, skin)).write(
            toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan([
            "process", dir + "/c.json", "-o", dir + "/out", "--formats", "obj,glb,ply,png", "-n", "100",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let obj = try String(contentsOfFile: dir + "/out/c.obj", encoding: .utf8)
        #expect(obj.contains("mtllib c.mtl\nusemtl skin\n"))
        let mtl = try String(contentsOfFile: dir + "/out/c.mtl", encoding: .utf8)
        #expect(mtl.contains("map_Kd c.texture.png"))
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/out/c.texture.png")))
        let texture = try PNGEncoder.decode(png, name: "texture")
        #expect(texture.width == 512 && texture.height == 512)
        // The picture was taken at 900 lm (goodMeta): the skin is its colour / 0.9 in linear light.
        func undone(_ b: UInt8) -> Int {
            let c = Double(b) / 255
            let lin = (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)) / 0.9
            return Int(((lin <= 0.0031308 ? 12.92 * lin : 1.055 * pow(lin, 1 / 2.4) - 0.055) * 255).rounded())
        }
        let centre = texture[256, 256]
        #expect(
            abs(Int(centre.x) - undone(200)) <= 4 && abs(Int(centre.y) - undone(60)) <= 4
                && abs(Int(centre.z) - undone(40)) <= 4, "\(centre)")
        let glb = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/c.glb"))
        #expect(String(decoding: glb.prefix(4000), as: UTF8.self).contains("\"mimeType\":\"image/png\""))
        #expect(glb.range(of: Data(png)) != nil, "the GLB embeds the texture's bytes")
        let ply = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/c.ply"))
        #expect(String(decoding: ply.prefix(400), as: UTF8.self).contains("property uchar red"))

        try smallCapture(frames: Array(repeating: goodMeta, count: 5)).write(
            toFile: dir + "/g.json", atomically: false, encoding: .utf8)
        let g = try runFacescan(["process", dir + "/g.json", "-o", dir + "/grey", "--formats", "obj", "-n", "100"])
        #expect(g.status == 0, "\(g.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/grey/g.mtl"))
        #expect(!(try String(contentsOfFile: dir + "/grey/g.obj", encoding: .utf8)).contains("mtllib"))
    }

    /// Hostile images and cameras, each in one frame: the capture, what its one-line error says
    /// and the reason `--skip-bad-images` counts it under.
    func hostileCases() throws -> [(capture: String, expected: [String], reason: String)] {
        let good = try pngBase64(64, 48, skin)
        let truncated = Data(Data(base64Encoded: good)!.prefix(60)).base64EncodedString()
        return [
            (colourCapture(image: truncated, imageFrames: [1]), ["frame 1", "field 'image'", "PNG"], "corrupt"),
            (
                colourCapture(image: try pngBase64(32, 24, skin), imageFrames: [2]),
                ["frame 2", "field 'image'", "32 × 24"], "wrongSize"
            ),
            (
                colourCapture(image: "bm90IGFuIGltYWdl", imageFrames: [0]),
                ["frame 0", "field 'image'", "neither JPEG nor PNG"], "corrupt"
            ),
            (colourCapture(image: "@@@@", imageFrames: [0]), ["frame 0", "field 'image'", "base64"], "corrupt"),
            (
                colourCapture(image: good, camera: "\"camera\":{\"imageResolution\":[64,48]}", imageFrames: [3]),
                ["frame 3", "field 'camera.intrinsics'"], "camera"
            ),
            (
                colourCapture(
                    image: good,
                    camera: "\"camera\":{\"intrinsics\":[60,0,0,0,60,0,32,24,1],\"imageResolution\":[100000,100000]}",
                    imageFrames: [0]), ["frame 0", "field 'camera.imageResolution'"], "oversized"
            ),
            (
                smallCapture(frames: [goodMeta + ",\"image\":\"\(good)\""]),
                ["frame 0", "field 'camera'", "needs the 'camera'"], "camera"
            ),
        ]
    }

    /// Hostile images and cameras: one line naming the file, the frame and the field, exit 2,
    /// nothing written.
    @Test func hostileImages() throws {
        let dir = tempDir()
        for (i, (text, expected, _)) in try hostileCases().enumerated() {
            let path = dir + "/bad\(i).json"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let r = try runFacescan(["process", path, "-o", dir + "/out\(i)", "--formats", "obj", "-n", "100"])
            #expect(r.status == 2, "case \(i): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "case \(i): \(r.stderr)")
            #expect(r.stderr.contains(path), "case \(i): \(r.stderr)")
            for t in expected { #expect(r.stderr.contains(t), "case \(i): no '\(t)' in \(r.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: dir + "/out\(i)/bad\(i).obj"))
        }
    }

    /// The same captures with `--skip-bad-images`: the run succeeds, the bad frame's geometry
    /// averaged (every frame accepted) but not its image, the report counting it under its
    /// reason and warning once; the good frames' images still colour the face (when there are any).
    @Test func skipBadImages() throws {
        let dir = tempDir()
        for (i, (text, _, reason)) in try hostileCases().enumerated() {
            let path = dir + "/bad\(i).json"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let r = try runFacescan([
                "process", path, "-o", dir + "/out\(i)", "--formats", "obj", "-n", "100", "--skip-bad-images", "--json",
            ])
            #expect(r.status == 0, "case \(i): exit \(r.status): \(r.stderr)")
            let json = try #require(r.json, "case \(i): \(r.stdout)")
            let skipped = try #require(json["skippedImages"] as? [String: Int], "case \(i): \(json)")
            for key in ["corrupt", "wrongSize", "oversized", "camera"] {
                #expect(skipped[key] == (key == reason ? 1 : 0), "case \(i): \(skipped)")
            }
            #expect(skipped["total"] == 1)
            let frames = try #require(json["frames"] as? [String: Any])
            #expect(frames["accepted"] as? Int == frames["read"] as? Int, "case \(i): \(frames)")
            let warnings = json["warnings"] as? [String] ?? []
            #expect(warnings.count == 1 && warnings[0].contains("skipped (--skip-bad-images)"), "\(warnings)")
            #expect(FileManager.default.fileExists(atPath: dir + "/out\(i)/bad\(i).obj"))
            // The bad frame was the only one with an image: no colour at all.
            #expect(!FileManager.default.fileExists(atPath: dir + "/out\(i)/bad\(i).texture.png"), "case \(i)")
        }
        // Good images around a bad one: the face is coloured by the good ones.
        let good = try pngBase64(64, 48, skin)
        let truncated = Data(Data(base64Encoded: good)!.prefix(60)).base64EncodedString()
        let image = { (b64: String) in ",\(camera64),\"ambientColorTemperature\":6500,\"image\":\"\(b64)\"" }
        try smallCapture(frames: [
            goodMeta + image(good), goodMeta + image(truncated), goodMeta + image(good), goodMeta,
        ])
        .write(toFile: dir + "/mixed.json", atomically: false, encoding: .utf8)
        let plain = try runFacescan([
            "process", dir + "/mixed.json", "-o", dir + "/m0", "--formats", "obj", "-n", "100",
        ])
        expectOneLine(plain, status: 2, "mixed.json", "frame 1", "field 'image'")
        let r = try runFacescan([
            "process", dir + "/mixed.json", "-o", dir + "/m", "--formats", "obj", "-n", "100", "--skip-bad-images",
            "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect((r.json?["skippedImages"] as? [String: Int])?["corrupt"] == 1, "\(r.stdout)")
        let texture = try PNGEncoder.decode(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/m/mixed.texture.png"))), name: "texture")
        let centre = texture[256, 256]
        #expect(centre.x > 200 && centre.y < 90 && centre.z < 70, "the good images' colour: \(centre)")
    }

    static let blenderScript = #"""
        import bpy, sys, json, numpy
        # Debian's Blender 3.4 glTF importer uses np.bool, gone in numpy 2 (as ClientImportTests).
        if not hasattr(numpy, "bool"):
            numpy.bool = numpy.bool_
        out, paths = sys.argv[sys.argv.index("--") + 1], sys.argv[sys.argv.index("--") + 2:]
        res = {}
        for p in paths:
            bpy.ops.wm.read_factory_settings(use_empty=True)
            try:
                if p.endswith(".obj"): bpy.ops.wm.obj_import(filepath=p)
                else: bpy.ops.import_scene.gltf(filepath=p)
                sizes = []
                for m in bpy.data.materials:
                    if m.node_tree:
                        for n in m.node_tree.nodes:
                            if n.type == "TEX_IMAGE" and n.image is not None:
                                sizes.append(list(n.image.size))
                res[p.rsplit(".", 1)[1]] = {"images": sizes}
            except Exception as e:
                res[p.rsplit(".", 1)[1]] = {"error": str(e)}
        json.dump(res, open(out, "w"))
        """#

    /// Blender imports the OBJ and the GLB with the texture attached to the material at its size.
    @Test(.enabled(if: Tool.available("blender"), "blender is not installed (make test-deps installs it)"))
    func blenderAttachesTheTexture() throws {
        let blender = try Tool.require("blender")
        let dir = tempDir()
        try colourCapture(image: pngBase64(64, 48, skin)).write(
            toFile: dir + "/c.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["process", dir + "/c.json", "-o", dir + "/out", "--formats", "obj,glb", "-n", "100"])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.blenderScript.write(toFile: dir + "/import.py", atomically: false, encoding: .utf8)
        let b = try runProgram(
            blender,
            [
                "-b", "--factory-startup", "-noaudio", "--python-exit-code", "1", "--python", dir + "/import.py", "--",
                dir + "/result.json", dir + "/out/c.obj", dir + "/out/c.glb",
            ])
        #expect(b.status == 0, "blender: \(b.stderr.suffix(2000))")
        let data = try #require(FileManager.default.contents(atPath: dir + "/result.json"))
        let results = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        for format in ["obj", "glb"] {
            let images = try #require(results[format]?["images"] as? [[Int]], "\(format): \(results[format] ?? [:])")
            #expect(images.contains([512, 512]), "\(format): images \(images)")
        }
    }
}
