import Testing

@testable import FaceScanKit

#if canImport(Glibc)
import Glibc
#endif

/// A unit cube, outward-facing, counter-clockwise from outside: watertight, volume 1.
///
///       7────6
///      ╱│   ╱│      z up out of the page's top face
///     4────5 │
///     │ 3──│─2
///     │╱   │╱
///     0────1
private func cube() -> Mesh {
    let p: [SIMD3<Float>] = [
        SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0),
        SIMD3(0, 0, 1), SIMD3(1, 0, 1), SIMD3(1, 1, 1), SIMD3(0, 1, 1),
    ]
    let t: [UInt32] = [
        0, 2, 1, 0, 3, 2,  // bottom (−z)
        4, 5, 6, 4, 6, 7,  // top (+z)
        0, 1, 5, 0, 5, 4,  // front (−y)
        1, 2, 6, 1, 6, 5,  // right (+x)
        2, 3, 7, 2, 7, 6,  // back (+y)
        3, 0, 4, 3, 4, 7,  // left (−x)
    ]
    return Mesh(uncheckedPositions: p, triangles: t)
}

/// A 3×3-vertex grid in z = 0 (8 triangles), with UVs: open, one boundary loop.
///
///     6──7──8
///     │╲ │╲ │
///     3──4──5
///     │╲ │╲ │
///     0──1──2
private func grid() -> Mesh {
    var p: [SIMD3<Float>] = [], uv: [SIMD2<Float>] = []
    for y in 0..<3 {
        for x in 0..<3 {
            p.append(SIMD3(Float(x) * 0.5, Float(y) * 0.5, 0))
            uv.append(SIMD2(Float(x) / 2, Float(y) / 2))
        }
    }
    var t: [UInt32] = []
    for y in 0..<2 {
        for x in 0..<2 {
            let a = UInt32(y * 3 + x)
            t += [a, a + 1, a + 4, a, a + 4, a + 3]
        }
    }
    return Mesh(uncheckedPositions: p, triangles: t, uvs: uv)
}

private func tempPath(_ name: String) -> String { "/tmp/facescan-interop-\(getpid())-\(name)" }

private func bounds(_ m: Mesh) -> (SIMD3<Float>, SIMD3<Float>) {
    m.positions.reduce((m.positions[0], m.positions[0])) { (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1)) }
}

/// Positions as a sorted list, for order-independent comparison.
private func sortedPositions(_ m: Mesh) -> [SIMD3<Float>] {
    m.positions.sorted { ($0.x, $0.y, $0.z) < ($1.x, $1.y, $1.z) }
}

@Suite(.serialized) struct InteropTests {
    @Test(arguments: ["ply", "glb", "obj", "stl"])
    func roundTripKeepsCountsAndPositions(format: String) throws {
        for mesh in [cube(), grid()] {
            let path = tempPath("roundtrip.\(format)")
            defer { unlink(path) }
            try MeshIO.write(mesh, to: path)
            let back = try MeshIO.read(path: path)
            #expect(back.vertexCount == mesh.vertexCount, "\(format): \(back.vertexCount) vertices")
            #expect(back.triangleCount == mesh.triangleCount)
            #expect(sortedPositions(back) == sortedPositions(mesh))
            let a = MeshCheck(mesh), b = MeshCheck(back)
            #expect(a.isWatertight == b.isWatertight && a.boundaryLoops == b.boundaryLoops && b.inconsistentEdges == 0)
        }
    }

    @Test func glbKeepsUVs() throws {
        let bytes = try MeshIO.bytes(grid(), format: .glb)
        let back = try AssimpIO.parse(bytes, formatHint: "glb", name: "memory.glb")
        #expect(back.uvs != nil)
        #expect(back.vertexCount == 9)
    }

    @Test func assimpWritesAndReadsOtherFormats() throws {
        // A box with a different size along each axis, off the origin: a swapped or flipped axis
        // shows in the bounding box.
        var box = cube()
        box.positions = box.positions.map { $0 * SIMD3(1, 2, 3) + SIMD3(0.5, -4, 7) }
        let (lo, hi) = bounds(box)
        for format in ["dae", "fbx", "x3d", "3ds", "x", "ply", "glb"] {
            let path = tempPath("box.\(format)")
            defer { unlink(path) }
            try MeshIO.write(box, to: path)
            let back = try MeshIO.read(path: path)
            #expect(back.triangleCount == 12, "\(format)")
            #expect(MeshCheck(back).isWatertight, "\(format)")
            let (blo, bhi) = bounds(back)
            let e0 = blo - lo, e1 = bhi - hi
            #expect(max((e0 * e0).max(), (e1 * e1).max()) < 1e-10, "\(format): box \(blo)…\(bhi), wrote \(lo)…\(hi)")
        }
    }

    /// assimp stamps COLLADA files with the export time; facescan writes a fixed time instead (the
    /// stamp checked below: no clock left in the file, so no need to wait and write again) (that the files still read back is
    /// ``assimpWritesAndReadsOtherFormats()``; binary FBX, written by facescan: `FBXTests`).
    @Test func daeIsTheSameBytesEveryTime() throws {
        var now = time(nil), parts = tm()
        gmtime_r(&now, &parts)
        let year = String(parts.tm_year + 1900)
        let first = try MeshIO.bytes(cube(), format: .dae)
        let text = String(decoding: first, as: UTF8.self)
        let header = text.split(separator: "</asset>", maxSplits: 1).first.map(String.init) ?? ""
        #expect(header.count < text.count, "no header found")
        #expect(!header.contains(year), "the year \(year) in \(header)")
        #expect(header.contains("<created>1970-01-01T00:00:00</created>"), "\(header)")
        #expect(header.contains("<modified>1970-01-01T00:00:00</modified>"), "\(header)")
        #expect(try MeshIO.bytes(cube(), format: .dae) == first, "two exports differ")
    }

    @Test func garbageFileGivesAnInputErrorNamingIt() throws {
        let path = tempPath("garbage.ply")
        defer { unlink(path) }
        try AtomicFile.write(Array("ply\nthis is not really a ply file\nend_header\n\u{1}\u{2}".utf8), to: path)
        do {
            _ = try MeshIO.read(path: path)
            Issue.record("expected an error")
        } catch FaceScanError.badInput(let e) {
            #expect(e.file == path)
            // facescan's PLY header check answers before assimp sees the file.
            #expect(e.message.hasPrefix("header line 2: unknown keyword 'this'"), "\(e.message)")
        } catch {
            Issue.record("expected a bad-input error, got \(error)")
        }
    }

    @Test func missingFileIsAnIOFailure() {
        let error = #expect(throws: FaceScanError.self) { try MeshIO.read(path: tempPath("missing.glb")) }
        guard case .io? = error else {
            Issue.record("expected an I/O failure, got \(String(describing: error))"); return
        }
    }

    /// A name that is no mesh format facescan writes is refused where it is parsed (a path's
    /// extension, `--format`), as a usage error naming it; a format that is not a mesh (PNG) is
    /// refused by the writer with the same words.
    @Test func unknownFormatIsAUsageError() {
        #expect(FileFormat.writableMesh(named: "nope") == nil)
        #expect(FileFormat.writableMesh(named: "png") == nil)
        #expect(FileFormat.writableMesh(named: "gltf2") == nil)
        #expect(FileFormat.writableMesh(named: "PLYB") == .ply)
        #expect(FileFormat.writableMesh(named: "collada") == .dae)
        for (path, name) in [("x.nope", "nope"), ("x.PNG", "png")] {
            let error = #expect(throws: FaceScanError.self) { try MeshIO.fileBytes(cube(), for: path) }
            guard case .badSetting(let e)? = error else {
                Issue.record("expected a usage error, got \(String(describing: error))"); continue
            }
            #expect(e.message.hasPrefix("unknown mesh format '\(name)'; use one of obj, stl, "), "\(e)")
        }
        #expect(throws: FaceScanError.badSetting(MeshIO.unknownMeshFormat("png"))) {
            try MeshIO.bytes(cube(), format: .png)
        }
    }

    @Test func inspectCube() {
        let r = MeshInspection(cube(), unit: .m)
        #expect(r.check.vertexCount == 8 && r.check.triangleCount == 12)
        #expect(r.check.isWatertight)
        #expect(r.check.boundaryLoops == 0 && r.check.nonManifoldEdges == 0 && r.check.degenerateTriangles == 0)
        #expect(abs(r.volume! - 1) < 1e-9)
        #expect(r.size == SIMD3(1, 1, 1))
        #expect(r.text.contains("watertight:           yes"))
        #expect(r.json.serialized().contains("\"volume\":1,"))
    }

    @Test func inspectOpenGrid() {
        let r = MeshInspection(grid(), unit: .mm)
        #expect(r.check.vertexCount == 9 && r.check.triangleCount == 8)
        #expect(!r.check.isWatertight)
        #expect(r.check.boundaryLoops == 1)
        #expect(r.volume == nil)
        #expect(r.json.serialized().contains("\"watertight\":false"))
        #expect(r.json.serialized().contains("\"volume\":null"))
    }
}
