import FaceScanKit
import Foundation
import Testing

/// Every output read by the applications people read it with: headless Blender imports STL, OBJ,
/// PLY, GLB, DAE, X3D and FBX (Blender 3.4 has no 3MF importer) and PrusaSlicer's command line
/// loads the STL and the 3MF. Counts and bounding boxes are compared with the run's report and
/// its STL, in metres. A missing application is reported as a skipped test in a developer's shell
/// and is a failure when `CI` is set (``Tool``).
@Suite(.serialized) struct ClientImportTests {
    /// One `process` run (millimetres, the default) to every format the clients read, in a
    /// temporary directory: (directory, report's vertex and triangle counts, bounds in mm from the STL).
    static func processedFace(_ extra: [String] = []) throws -> (
        out: String, vertices: Int, triangles: Int, lo: SIMD3<Double>, hi: SIMD3<Double>
    ) {
        let dir = tempDir()
        // Off the origin and longer on one side of every axis, so that a mirrored or swapped axis
        // shows in the bounding box.
        let text = smallCapture(frames: Array(repeating: goodMeta, count: 3), centre: [0.3, 0.4], depth: 0.04)
        try text.write(toFile: dir + "/face.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(
            [
                "process", dir + "/face.json", "--output-dir", dir + "/out", "--json", "--target-vertices", "400",
                "--formats", "stl,obj,ply,glb,dae,x3d,fbx,3mf,png",
            ] + extra, cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let mesh = try #require(r.json?["mesh"] as? [String: Any])
        let stl = try MeshIO.read(path: dir + "/out/face.stl")
        var lo = SIMD3<Double>(repeating: .infinity), hi = -lo
        for p in stl.positions {
            lo = pointwiseMin(lo, SIMD3<Double>(p))
            hi = pointwiseMax(hi, SIMD3<Double>(p))
        }
        return (
            dir + "/out", try #require(mesh["outputVertices"] as? Int), try #require(mesh["outputTriangles"] as? Int),
            lo, hi
        )
    }

    /// Runs `executable` with `args` in `cwd`, which is also its HOME (the clients keep their
    /// settings there, not in the user's home); returns (status, stdout, stderr).
    static func run(_ executable: String, _ args: [String], cwd: String) throws -> (Int32, String, String) {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = cwd
        let r = try runProgram(executable, args, cwd: cwd, environment: env)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// Imports each file into an empty scene and writes {ext: {vertices, triangles, min, max}}
    /// (world space, Blender units) as JSON. Works around two faults of Debian's Blender 3.4 on
    /// Python 3.11 / numpy 2 (the X3D importer's open mode 'rU', the glTF importer's np.bool).
    static let blenderScript = #"""
        import bpy, sys, json, os, builtins
        args = sys.argv[sys.argv.index("--") + 1:]
        out_path, files = args[0], args[1:]
        _open = builtins.open
        def _open_without_U(file, mode="r", *a, **k):
            return _open(file, mode.replace("U", "") if isinstance(mode, str) else mode, *a, **k)
        builtins.open = _open_without_U
        try:
            import numpy
            if not hasattr(numpy, "bool"):
                numpy.bool = numpy.bool_
        except ImportError:
            pass
        importers = {
            "stl": lambda p: bpy.ops.import_mesh.stl(filepath=p),
            "obj": lambda p: bpy.ops.wm.obj_import(filepath=p),
            "ply": lambda p: bpy.ops.import_mesh.ply(filepath=p),
            "glb": lambda p: bpy.ops.import_scene.gltf(filepath=p),
            "dae": lambda p: bpy.ops.wm.collada_import(filepath=p),
            "x3d": lambda p: bpy.ops.import_scene.x3d(filepath=p),
            "fbx": lambda p: bpy.ops.import_scene.fbx(filepath=p),
        }
        results = {}
        for path in files:
            ext = os.path.splitext(path)[1][1:].lower()
            for ob in list(bpy.data.objects):
                bpy.data.objects.remove(ob, do_unlink=True)
            for me in list(bpy.data.meshes):
                bpy.data.meshes.remove(me)
            try:
                importers[ext](path)
            except Exception as e:
                results[ext] = {"error": str(e).splitlines()[-1] if str(e) else repr(e)}
                continue
            bpy.context.view_layer.update()
            verts = tris = 0
            lo = [float("inf")] * 3
            hi = [float("-inf")] * 3
            for ob in bpy.context.scene.objects:
                if ob.type != "MESH":
                    continue
                me = ob.data
                me.calc_loop_triangles()
                verts += len(me.vertices)
                tris += len(me.loop_triangles)
                for v in me.vertices:
                    w = ob.matrix_world @ v.co
                    for k in range(3):
                        lo[k] = min(lo[k], w[k])
                        hi[k] = max(hi[k], w[k])
            results[ext] = {"vertices": verts, "triangles": tris, "min": lo, "max": hi}
        with open(out_path, "w") as f:
            json.dump(results, f)
        """#

    /// Where each format's bounding box lands in Blender, in metres, from the mesh's (millimetres,
    /// y up): STL and PLY are taken as they are, in Blender's unit (so millimetre numbers
    /// are read as metres: 1000 × true size; Blender has no way to know); OBJ, GLB, DAE, X3D and
    /// FBX are y-up and turned z-up: (x, y, z) → (x, −z, y), except X3D, whose importer takes +z
    /// as forward: (−x, z, y); GLB, DAE and X3D state metres, FBX the run's unit (millimetres).
    static func expectedBlenderBox(_ format: String, lo: SIMD3<Double>, hi: SIMD3<Double>) -> (
        SIMD3<Double>, SIMD3<Double>
    ) {
        // Blender units per file number.
        let perUnit = ["glb": 0.001, "dae": 0.001, "x3d": 0.001, "fbx": 0.001][format] ?? 1.0
        let l = lo * perUnit, h = hi * perUnit
        if format == "stl" || format == "ply" { return (l, h) }
        if format == "x3d" { return (SIMD3(-h.x, l.z, l.y), SIMD3(-l.x, h.z, h.y)) }
        return (SIMD3(l.x, -h.z, l.y), SIMD3(h.x, -l.z, h.y))
    }

    @Test(.enabled(if: Tool.available("blender"), "blender is not installed (make test-deps installs it)"))
    func blenderImportsEveryFormatAtTheReportedSize() throws {
        let blender = try Tool.require("blender")
        let face = try Self.processedFace()
        let dir = tempDir()
        try Self.blenderScript.write(toFile: dir + "/import.py", atomically: false, encoding: .utf8)
        let formats = ["stl", "obj", "ply", "glb", "dae", "x3d", "fbx"]
        let started = Date()
        let (status, out, err) = try Self.run(
            blender,
            [
                "-b", "--factory-startup", "-noaudio", "--python-exit-code", "1",
                "--python", dir + "/import.py", "--", dir + "/result.json",
            ]
                + formats.map { face.out + "/face." + $0 }, cwd: dir)
        print(
            "ClientImportTests: Blender imported \(formats.joined(separator: ", ")) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
        #expect(status == 0, "blender: \(err.suffix(2000)) \(out.suffix(2000))")
        let data = try #require(
            FileManager.default.contents(atPath: dir + "/result.json"), "no result from Blender: \(err.suffix(2000))")
        let results = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        for format in formats {
            let r = try #require(results[format], "\(format): not imported")
            #expect(r["error"] == nil, "\(format): \(r["error"] ?? "")")
            #expect(
                r["vertices"] as? Int == face.vertices,
                "\(format): \(r["vertices"] ?? "?") vertices, report \(face.vertices)")
            #expect(
                r["triangles"] as? Int == face.triangles,
                "\(format): \(r["triangles"] ?? "?") triangles, report \(face.triangles)")
            let lo = try #require(r["min"] as? [Double]), hi = try #require(r["max"] as? [Double])
            let (elo, ehi) = Self.expectedBlenderBox(format, lo: face.lo, hi: face.hi)
            // In metres: Blender's number times the file's unit (mm for the unit-less files of this run).
            let toMetres = ["glb", "dae", "x3d", "fbx"].contains(format) ? 1.0 : 0.001
            for k in 0..<3 {
                let e = max(abs(lo[k] - elo[k]), abs(hi[k] - ehi[k])) * toMetres
                #expect(
                    e < 2e-6,
                    "\(format) axis \(k): Blender \(lo[k])…\(hi[k]), expected \(elo[k])…\(ehi[k]) (\(e) m off)")
            }
        }
    }

    @Test(.enabled(if: Tool.available("prusa-slicer"), "prusa-slicer is not installed (make test-deps installs it)"))
    func prusaSlicerLoadsTheSTLAnd3MFAtTheSameSize() throws {
        let slicer = try Tool.require("prusa-slicer")
        let face = try Self.processedFace()
        let (status, out, err) = try Self.run(
            slicer, ["--info", face.out + "/face.stl", face.out + "/face.3mf"], cwd: tempDir())
        #expect(status == 0, "prusa-slicer: \(err.suffix(2000))")
        // One block per file, in order: size_x … number_of_facets …
        var blocks: [[String: Double]] = []
        for line in out.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, let v = Double(kv[1]) else { continue }
            if kv[0] == "size_x" { blocks.append([:]) }
            if !blocks.isEmpty { blocks[blocks.count - 1][kv[0]] = v }
        }
        #expect(blocks.count == 2, "prusa-slicer --info: \(out)")
        let size = face.hi - face.lo
        for (file, b) in zip(["stl", "3mf"], blocks) {
            #expect(b["number_of_facets"] == Double(face.triangles), "\(file): \(b)")
            for (k, key) in ["size_x", "size_y", "size_z"].enumerated() {
                // Millimetres: the slicer's unit for STL; 3MF states it.
                #expect(abs((b[key] ?? -1) - size[k]) < 1e-3, "\(file) \(key): \(b[key] ?? -1) mm, expected \(size[k])")
            }
        }
    }

    /// `--units m` changes the unit-less formats only: STL and OBJ hold metres, while GLB, DAE,
    /// X3D, FBX and 3MF read back at the same size as from a millimetre run.
    @Test func unitsMetresChangesOnlyTheUnitlessFormats() throws {
        let mm = try Self.processedFace(), m = try Self.processedFace(["--units", "m"])
        func box(_ path: String) throws -> (SIMD3<Float>, SIMD3<Float>) {
            let mesh = try MeshIO.read(path: path)  // in millimetres for formats that state a unit
            return mesh.positions.reduce((mesh.positions[0], mesh.positions[0])) {
                (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1))
            }
        }
        func off(_ a: (SIMD3<Float>, SIMD3<Float>), _ b: (SIMD3<Float>, SIMD3<Float>), scale: Float = 1) -> Float {
            let d0 = a.0 - b.0 * scale, d1 = a.1 - b.1 * scale
            return max(abs(d0.x), abs(d0.y), abs(d0.z), abs(d1.x), abs(d1.y), abs(d1.z))
        }
        for format in ["glb", "dae", "x3d", "fbx", "3mf"] {
            let e = off(try box(mm.out + "/face." + format), try box(m.out + "/face." + format))
            #expect(e < 2e-3, "\(format): the --units m file is \(e) mm off the millimetre run's")
        }
        for format in ["stl", "obj"] {
            let e = off(try box(mm.out + "/face." + format), try box(m.out + "/face." + format), scale: 1000)
            #expect(
                e < 2e-3, "\(format): the --units m file does not hold the millimetre run's numbers / 1000 (\(e) off)")
        }
    }
}
