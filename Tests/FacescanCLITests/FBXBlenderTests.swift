import FaceScanKit
import Foundation
import Testing

/// Binary FBX checked with the client people use it with: headless Blender imports a sample's
/// `process` output written in millimetres and in metres, and reports one line per file,
/// `FBXIMPORT <file> vertices=N polygons=N triangles=N size=X,Y,Z scale=S` (world space,
/// metres). The counts must be the run's and the size the STL's in metres (FBX is y-up, Blender
/// z-up: Blender's y is the mesh's z). Without Blender the test is skipped, with the reason; with
/// `CI` set it runs and fails.
@Suite(.serialized) struct FBXBlenderTests {

    static let script = #"""
        import bpy, sys, os
        for path in sys.argv[sys.argv.index("--") + 1:]:
            for ob in list(bpy.data.objects):
                bpy.data.objects.remove(ob, do_unlink=True)
            for me in list(bpy.data.meshes):
                bpy.data.meshes.remove(me)
            result = bpy.ops.import_scene.fbx(filepath=path)
            bpy.context.view_layer.update()
            meshes = [ob for ob in bpy.context.scene.objects if ob.type == "MESH"]
            if result != {"FINISHED"} or len(meshes) != 1:
                print("FBXIMPORT %s error=%s meshes=%d" % (os.path.basename(path), sorted(result), len(meshes)))
                continue
            ob = meshes[0]
            me = ob.data
            me.calc_loop_triangles()
            ws = [ob.matrix_world @ v.co for v in me.vertices]
            lo = [min(w[k] for w in ws) for k in range(3)]
            hi = [max(w[k] for w in ws) for k in range(3)]
            print("FBXIMPORT %s vertices=%d polygons=%d triangles=%d size=%.9g,%.9g,%.9g scale=%.9g" % (
                os.path.basename(path), len(me.vertices), len(me.polygons), len(me.loop_triangles),
                hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], ob.scale[0]))
        """#

    @Test(
        .enabled(
            if: Tool.available("blender"),
            "blender is not installed (`make test-deps` installs it; with CI set this test runs and fails)"))
    func blenderImportsASampleAtItsSize() throws {
        let blender = try Tool.require("blender")
        let sample = try #require(sampleCaptures().first { $0.dir.hasSuffix("/ict-neutral") }, "no ict-neutral sample")
        let dir = tempDir()
        var runs: [(file: String, vertices: Int, triangles: Int, size: SIMD3<Double>)] = []
        for unit in ["mm", "m"] {
            let out = dir + "/" + unit
            let r = try runFacescan([
                "process", sample.capture, "--output-dir", out, "--formats", "fbx,stl", "--units", unit, "--json",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let mesh = try #require(r.json?["mesh"] as? [String: Any])
            let stl = try MeshIO.read(path: out + "/capture.stl", unit: unit == "m" ? .m : .mm)
            var lo = SIMD3<Double>(repeating: .infinity), hi = -lo
            for p in stl.positions {
                lo = pointwiseMin(lo, SIMD3<Double>(p))
                hi = pointwiseMax(hi, SIMD3<Double>(p))
            }
            let metres = (hi - lo) * (unit == "m" ? 1 : 0.001)
            try FileManager.default.copyItem(atPath: out + "/capture.fbx", toPath: dir + "/face-\(unit).fbx")
            runs.append(
                (
                    "face-\(unit).fbx", try #require(mesh["outputVertices"] as? Int),
                    try #require(mesh["outputTriangles"] as? Int), metres
                ))
        }
        try Self.script.write(toFile: dir + "/import.py", atomically: false, encoding: .utf8)
        let (status, out, err) = try ClientImportTests.run(
            blender,
            ["-b", "--factory-startup", "-noaudio", "--python-exit-code", "1", "--python", dir + "/import.py", "--"]
                + runs.map { dir + "/" + $0.file }, cwd: dir)
        #expect(status == 0, "blender: \(err.suffix(2000))")
        let lines = out.split(separator: "\n").filter { $0.hasPrefix("FBXIMPORT ") }
        for line in lines { print("FBXBlenderTests: \(line)") }
        for run in runs {
            let line = try #require(
                lines.first { $0.hasPrefix("FBXIMPORT \(run.file) ") },
                "\(run.file): no import line in \(out.suffix(2000))")
            var fields: [String: String] = [:]
            for field in line.split(separator: " ").dropFirst(2) {
                let kv = field.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
            }
            #expect(fields["error"] == nil, "\(line)")
            #expect(
                fields["vertices"].flatMap { Int($0) } == run.vertices, "\(line): the run has \(run.vertices) vertices")
            #expect(fields["polygons"].flatMap { Int($0) } == run.triangles, "\(line): \(run.triangles) triangles")
            #expect(fields["triangles"].flatMap { Int($0) } == run.triangles, "\(line)")
            let size = try #require(fields["size"]?.split(separator: ",").compactMap { Double($0) }, "\(line)")
            try #require(size.count == 3, "\(line)")
            // y-up to z-up: Blender's (x, y, z) extents are the mesh's (x, z, y).
            let expected = [run.size.x, run.size.z, run.size.y]
            for k in 0..<3 {
                #expect(
                    abs(size[k] - expected[k]) < 1e-6,
                    "\(run.file) axis \(k): Blender \(size[k]) m, the STL \(expected[k]) m")
            }
        }
    }
}
