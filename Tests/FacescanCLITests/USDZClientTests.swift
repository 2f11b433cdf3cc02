import FaceScanKit
import Foundation
import Testing

/// USDZ checked by the clients that read it (issue 57): Pixar's USD (`usd-core` from PyPI, in
/// .venv-usd, `make usd-venv`) opens the packages facescan writes — a sample capture, a `--solid`
/// part and a textured mesh — and Tests/usdz/check-usdz.py reports what it finds: the stage's
/// metadata, the mesh's counts and extent, the bound material, the texture read from inside the
/// package, every registered validator's errors (the USDZ package validators among them), the
/// root layer's magic and the zip's entries. Blender (PyPI's `bpy`, Blender as a Python module, in
/// .venv-bpy, `make bpy-venv`: Debian's Blender 3.4 is built without USD, its `wm.usd_import`
/// does not exist) imports them at the STL's size. Without the venvs the tests are skipped with
/// the reason; with `CI` set they run and fail.
@Suite(.serialized) struct USDZClientTests {
    /// A Python of `venv` (under the package root) that runs `probe`, else the system's; nil when
    /// neither does.
    static func python(venv: String, probe: String) -> String? {
        [packageRoot + "/" + venv + "/bin/python", "/usr/bin/python3"].first { p in
            FileManager.default.isExecutableFile(atPath: p) && (try? runProgram(p, ["-c", probe]).status) == 0
        }
    }

    /// Python with Pixar's USD and its validation framework (usd-core 24.11 or later).
    static let usdPython = python(venv: ".venv-usd", probe: "from pxr import Usd, UsdValidation")
    /// Python with Blender as a module, built with USD.
    static let blenderPython = python(venv: ".venv-bpy", probe: "import bpy; assert bpy.app.build_options.usd")

    static let usdMissing = "usd-core is missing (make usd-venv installs it into .venv-usd)"
    static let blenderMissing = "Blender with USD (PyPI's bpy) is missing (make bpy-venv installs it into .venv-bpy)"

    /// What check-usdz.py reports for `package`.
    static func facts(_ package: String) throws -> [String: Any] {
        let python = try #require(usdPython, "\(usdMissing); CI is set, so the test must run")
        let (status, out, err) = try ClientImportTests.run(
            python, [packageRoot + "/Tests/usdz/check-usdz.py", package], cwd: tempDir())
        #expect(status == 0, "check-usdz: \(err.suffix(2000))")
        return try #require(
            (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any], "check-usdz printed \(out)")
    }

    /// The bounding box of a millimetre STL the run wrote, in metres.
    static func box(_ stl: String) throws -> (lo: SIMD3<Double>, hi: SIMD3<Double>) {
        let mesh = try MeshIO.read(path: stl)
        var lo = SIMD3<Double>(repeating: .infinity), hi = -lo
        for p in mesh.positions {
            lo = pointwiseMin(lo, SIMD3<Double>(p))
            hi = pointwiseMax(hi, SIMD3<Double>(p))
        }
        return (lo * 0.001, hi * 0.001)
    }

    /// The checks every package must pass: opened, metres and y up, the default prim, one
    /// triangle mesh with `vertices` points and `triangles` faces whose stored extent is the
    /// computed one and `expected` (metres, within `tolerance`), a UsdPreviewSurface bound, no
    /// validator error, the root layer first and binary, every entry stored and 64-byte aligned
    /// with a correct CRC and the fixed date. Returns the mesh's facts.
    @discardableResult
    static func expectValid(
        _ facts: [String: Any], vertices: Int, triangles: Int, expected: (lo: SIMD3<Double>, hi: SIMD3<Double>),
        entries: [String], tolerance: Double = 1e-6, _ label: String
    ) throws -> [String: Any] {
        #expect(facts["opened"] as? Bool == true, "\(label): Usd.Stage.Open failed")
        #expect(facts["metersPerUnit"] as? Double == 1, "\(label)")
        #expect(facts["upAxis"] as? String == "Y", "\(label)")
        #expect(facts["defaultPrim"] as? String == "/face", "\(label)")
        #expect(facts["rootLayer"] as? String == "face.usdc" && facts["rootMagic"] as? String == "PXR-USDC", "\(label)")
        #expect(facts["crcOK"] as? Bool == true, "\(label): a CRC-32 does not match")
        let zipEntries = try #require(facts["entries"] as? [[String: Any]], "\(label)")
        #expect(zipEntries.compactMap { $0["name"] as? String } == entries, "\(label)")
        for e in zipEntries {
            #expect(e["stored"] as? Bool == true, "\(label): \(e)")
            #expect((e["dataOffset"] as? Int).map { $0 % 64 == 0 } == true, "\(label): \(e)")
            #expect(e["date"] as? [Int] == [1980, 1, 1, 0, 0, 0], "\(label): \(e)")
        }
        let run = try #require(facts["validatorsRun"] as? [String], "\(label)")
        for name in [
            "usdUtilsValidators:RootPackageValidator", "usdUtilsValidators:UsdzPackageValidator",
            "usdUtilsValidators:FileExtensionValidator", "usdUtilsValidators:PackageEncapsulationValidator",
            "usdGeomValidators:StageMetadataChecker",
        ] {
            #expect(run.contains(name), "\(label): validator \(name) not registered")
        }
        let errors = try #require(facts["validators"] as? [String: [String]], "\(label)")
        #expect(errors.isEmpty, "\(label): \(errors)")
        let meshes = try #require(facts["meshes"] as? [[String: Any]], "\(label)")
        try #require(meshes.count == 1, "\(label): \(meshes.count) meshes")
        let mesh = meshes[0]
        #expect(mesh["points"] as? Int == vertices, "\(label): \(mesh["points"] ?? "-") points, the run's \(vertices)")
        #expect(mesh["faces"] as? Int == triangles, "\(label): \(mesh["faces"] ?? "-") faces, the run's \(triangles)")
        #expect(mesh["faceVertices"] as? [Int] == [3], "\(label)")
        #expect(mesh["normals"] as? Int == vertices && mesh["normalsInterpolation"] as? String == "vertex", "\(label)")
        #expect(mesh["subdivisionScheme"] as? String == "none", "\(label)")
        #expect(mesh["material"] as? String == "/face/material", "\(label): no bound material")
        #expect(mesh["surface"] as? String == "UsdPreviewSurface", "\(label)")
        let extent = try #require(mesh["extent"] as? [[Double]], "\(label)")
        let computed = try #require(mesh["computedExtent"] as? [[Double]], "\(label)")
        #expect(extent == computed, "\(label): stored extent \(extent), computed \(computed)")
        for k in 0..<3 {
            #expect(
                abs(extent[0][k] - expected.lo[k]) <= tolerance,
                "\(label) min[\(k)]: \(extent[0][k]) m, \(expected.lo[k])")
            #expect(
                abs(extent[1][k] - expected.hi[k]) <= tolerance,
                "\(label) max[\(k)]: \(extent[1][k]) m, \(expected.hi[k])")
        }
        return mesh
    }

    /// `process` output for a sample: its USDZ opens and validates, at the STL's size (the face
    /// frame is USD's: same axes); the same capture again gives the same bytes.
    @Test(.enabled(if: Tool.inCI || usdPython != nil, "\(usdMissing)"))
    func sampleCaptureOpensInUSD() throws {
        let sample = try #require(sampleCaptures().first { $0.dir.hasSuffix("/ict-neutral") }, "no ict-neutral sample")
        let dir = tempDir()
        let r = try runFacescan(["process", sample.capture, "-o", dir, "--formats", "stl,usdz", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(r.json?["mesh"] as? [String: Any])
        let facts = try Self.facts(dir + "/capture.usdz")
        try Self.expectValid(
            facts, vertices: try #require(report["outputVertices"] as? Int),
            triangles: try #require(report["outputTriangles"] as? Int), expected: try Self.box(dir + "/capture.stl"),
            entries: ["face.usdc"], "sample")
        let again = try runFacescan(["process", sample.capture, "-o", dir + "/again", "--formats", "usdz", "-q"])
        #expect(again.status == 0)
        #expect(
            FileManager.default.contents(atPath: dir + "/capture.usdz")
                == FileManager.default.contents(atPath: dir + "/again/capture.usdz"), "same capture, other bytes")
    }

    /// A `--solid` part: printing position (standing on z = 0) turned to y up, (x, y, z) → (x, z, −y):
    /// it stands on y = 0, as tall as the STL's z.
    @Test(.enabled(if: Tool.inCI || usdPython != nil, "\(usdMissing)"))
    func solidPartStandsOnYZero() throws {
        let sample = try #require(sampleCaptures().first { $0.dir.hasSuffix("/ict-arkit") }, "no ict-arkit sample")
        let dir = tempDir()
        let (status, out, err) = try ClientImportTests.run(
            fastFacescanBinary,
            ["process", sample.capture, "-o", dir, "--solid", "-n", "3000", "--formats", "stl,usdz", "--json"],
            cwd: dir)
        #expect(status == 0, "\(err)")
        let json = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any]
        let report = try #require(json?["mesh"] as? [String: Any])
        let stl = try Self.box(dir + "/capture.stl")
        #expect(abs(stl.lo.z) < 1e-9, "the STL part stands on z = 0: \(stl.lo.z)")
        let turned = (lo: SIMD3(stl.lo.x, stl.lo.z, -stl.hi.y), hi: SIMD3(stl.hi.x, stl.hi.z, -stl.lo.y))
        try Self.expectValid(
            try Self.facts(dir + "/capture.usdz"), vertices: try #require(report["outputVertices"] as? Int),
            triangles: try #require(report["outputTriangles"] as? Int), expected: turned, entries: ["face.usdc"],
            "solid")
    }

    /// A mesh with UVs and a PNG (made by facescan's own encoder) through the library's entry:
    /// `primvars:st` per vertex, the texture read back from inside the package byte for byte.
    @Test(.enabled(if: Tool.inCI || usdPython != nil, "\(usdMissing)"))
    func texturedMeshReadsItsTextureFromThePackage() throws {
        let (mesh, png) = try Self.texturedPatch()
        let dir = tempDir()
        let bytes = try #require(mesh.usdzBytes(metresPerUnit: 0.001, texturePNG: png))
        #expect(bytes == mesh.usdzBytes(metresPerUnit: 0.001, texturePNG: png), "same mesh, other bytes")
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/textured.usdz"))
        let lo = mesh.positions.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) }
        let hi = mesh.positions.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) }
        let facts = try Self.facts(dir + "/textured.usdz")
        let m = try Self.expectValid(
            facts, vertices: mesh.vertexCount, triangles: mesh.triangleCount,
            expected: (SIMD3<Double>(lo) * 0.001, SIMD3<Double>(hi) * 0.001), entries: ["face.usdc", "texture.png"],
            "textured")
        let st = try #require(m["st"] as? [String: Any], "no primvars:st")
        #expect(st["count"] as? Int == mesh.vertexCount && st["interpolation"] as? String == "vertex", "\(st)")
        let textures = try #require(m["textures"] as? [[String: Any]])
        try #require(textures.count == 1, "\(textures)")
        #expect(textures[0]["asset"] as? String == "texture.png")
        #expect((textures[0]["resolved"] as? String)?.hasSuffix("textured.usdz[texture.png]") == true, "\(textures[0])")
        #expect(textures[0]["bytes"] as? Int == png.count, "\(textures[0])")
        #expect(textures[0]["head"] as? [Int] == png.prefix(8).map(Int.init), "\(textures[0])")
    }

    /// A 16 × 12 curved patch in millimetres with UVs, and a 32 × 32 PNG of a colour ramp.
    static func texturedPatch() throws -> (Mesh, [UInt8]) {
        var positions: [SIMD3<Float>] = [], uvs: [SIMD2<Float>] = [], triangles: [UInt32] = []
        let nx = 16, ny = 12
        for j in 0..<ny {
            for i in 0..<nx {
                let u = Float(i) / Float(nx - 1), v = Float(j) / Float(ny - 1)
                positions.append(
                    SIMD3(150 * (u - 0.4), 200 * (v - 0.45), 40 - 60 * ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5))))
                uvs.append(SIMD2(u, v))
            }
        }
        for j in 0..<(ny - 1) {
            for i in 0..<(nx - 1) {
                let a = UInt32(j * nx + i)
                triangles += [a, a + 1, a + UInt32(nx), a + UInt32(nx), a + 1, a + UInt32(nx) + 1]
            }
        }
        var pixels: [UInt8] = []
        for y in 0..<32 { for x in 0..<32 { pixels += [UInt8(8 * x), UInt8(8 * y), 128, 255] } }
        let png = try PNGEncoder.encode(RGBAImage(width: 32, height: 32, pixels: pixels))
        return (try Mesh(positions: positions, triangles: triangles, uvs: uvs), png)
    }

    static let blenderScript = #"""
        import bpy, sys, os
        for path in sys.argv[sys.argv.index("--") + 1:]:
            for ob in list(bpy.data.objects):
                bpy.data.objects.remove(ob, do_unlink=True)
            for me in list(bpy.data.meshes):
                bpy.data.meshes.remove(me)
            result = bpy.ops.wm.usd_import(filepath=path)
            bpy.context.view_layer.update()
            meshes = [ob for ob in bpy.context.scene.objects if ob.type == "MESH"]
            if result != {"FINISHED"} or len(meshes) != 1:
                print("USDIMPORT %s error=%s meshes=%d" % (os.path.basename(path), sorted(result), len(meshes)))
                continue
            ob = meshes[0]
            ws = [ob.matrix_world @ v.co for v in ob.data.vertices]
            lo = [min(w[k] for w in ws) for k in range(3)]
            hi = [max(w[k] for w in ws) for k in range(3)]
            print("USDIMPORT %s vertices=%d polygons=%d size=%.9g,%.9g,%.9g materials=%s" % (
                os.path.basename(path), len(ob.data.vertices), len(ob.data.polygons),
                hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], ",".join(m.name for m in ob.data.materials if m)))
        """#

    /// Blender imports the sample's and the solid part's USDZ with the run's counts at the STL's
    /// size in metres (USD y up, Blender z up: Blender's (x, y, z) sizes are the USD (x, z, y)).
    @Test(.enabled(if: Tool.inCI || blenderPython != nil, "\(blenderMissing)"))
    func blenderImportsAtTheSTLSize() throws {
        let python = try #require(Self.blenderPython, "\(Self.blenderMissing); CI is set, so the test must run")
        let sample = try #require(sampleCaptures().first { $0.dir.hasSuffix("/ict-neutral") }, "no ict-neutral sample")
        let dir = tempDir()
        var runs: [(file: String, vertices: Int, triangles: Int, size: SIMD3<Double>)] = []
        for (name, flags) in [("face", [String]()), ("part", ["--solid", "-n", "3000"])] {
            let out = dir + "/" + name
            let (status, stdout, err) = try ClientImportTests.run(
                fastFacescanBinary,
                ["process", sample.capture, "-o", out, "--name", name, "--formats", "stl,usdz", "--json"] + flags,
                cwd: dir)
            #expect(status == 0, "\(err)")
            let json = (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
            let report = try #require(json?["mesh"] as? [String: Any])
            let box = try Self.box(out + "/\(name).stl")
            let s = box.hi - box.lo
            // The USD frame: the face's as it is; the part's turned y up, (x, y, z) → (x, z, −y).
            let usd = name == "face" ? s : SIMD3(s.x, s.z, s.y)
            runs.append(
                (
                    "\(out)/\(name).usdz", try #require(report["outputVertices"] as? Int),
                    try #require(report["outputTriangles"] as? Int), SIMD3(usd.x, usd.z, usd.y)
                ))
        }
        try Self.blenderScript.write(toFile: dir + "/import.py", atomically: false, encoding: .utf8)
        let (status, out, err) = try ClientImportTests.run(
            python, [dir + "/import.py", "--"] + runs.map(\.file), cwd: dir)
        #expect(status == 0, "bpy: \(err.suffix(2000))")
        let lines = out.split(separator: "\n").filter { $0.hasPrefix("USDIMPORT ") }
        for line in lines { print("USDZClientTests: \(line)") }
        for run in runs {
            let base = URL(fileURLWithPath: run.file).lastPathComponent
            let line = try #require(
                lines.first { $0.hasPrefix("USDIMPORT \(base) ") }, "\(base): no import line in \(out.suffix(2000))")
            var fields: [String: String] = [:]
            for field in line.split(separator: " ").dropFirst(2) {
                let kv = field.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
            }
            #expect(fields["error"] == nil, "\(line)")
            #expect(fields["vertices"].flatMap { Int($0) } == run.vertices, "\(line): the run has \(run.vertices)")
            #expect(fields["polygons"].flatMap { Int($0) } == run.triangles, "\(line): the run has \(run.triangles)")
            // Blender names the second import's material material.001.
            #expect(fields["materials"]?.hasPrefix("material") == true, "\(line)")
            let size = try #require(fields["size"]?.split(separator: ",").compactMap { Double($0) }, "\(line)")
            try #require(size.count == 3, "\(line)")
            for k in 0..<3 {
                #expect(
                    abs(size[k] - run.size[k]) < 1e-6,
                    "\(base) axis \(k): Blender \(size[k]) m, the STL \(run.size[k]) m")
            }
        }
    }
}
