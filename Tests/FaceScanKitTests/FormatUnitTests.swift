import Foundation
import Testing

@testable import FaceScanInterop
@testable import FaceScanKit

/// A face-sized box in millimetres (a different size along each axis, off the origin) with UVs.
private func faceBox() -> Mesh {
    var p: [SIMD3<Float>] = []
    for i in 0..<8 {
        p.append(
            SIMD3(Float(i & 1), Float((i >> 1) & 1), Float((i >> 2) & 1)) * SIMD3(150, 210, 95) + SIMD3(-75, -100, 10))
    }
    let t: [UInt32] = [
        0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5,
    ]
    return Mesh(uncheckedPositions: p, triangles: t, uvs: p.map { SIMD2(($0.x + 75) / 150, ($0.y + 100) / 210) })
}

private func bounds(_ m: Mesh) -> (SIMD3<Float>, SIMD3<Float>) {
    m.positions.reduce((m.positions[0], m.positions[0])) { (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1)) }
}

/// The largest coordinate difference of `a` and `b`.
private func maxDiff(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let d = a - b
    return max(abs(d.x), abs(d.y), abs(d.z))
}

private func scratch() -> String {
    let dir =
        FileManager.default.temporaryDirectory.path + "/facescan-units-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// The JSON chunk of a GLB.
private func glbJSON(_ b: [UInt8]) throws -> [String: Any] {
    let n = Int(b[12]) | Int(b[13]) << 8 | Int(b[14]) << 16 | Int(b[15]) << 24
    return try #require(try JSONSerialization.jsonObject(with: Data(b[20..<(20 + n)])) as? [String: Any])
}

@Suite(.serialized) struct FormatUnitTests {
    /// Whatever unit the mesh is in, a format that states its unit reads back at the true size:
    /// the same box in mm and in m gives files that read back (in mm) to the same box.
    @Test(arguments: ["glb", "dae", "x3d", "fbx", "3mf"])
    func statedUnitFormatsAreTheTrueSizeWhateverTheRunsUnit(format: String) throws {
        let mm = faceBox()
        var m = mm
        m.positions = mm.positions.map { $0 / 1000 }
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (lo, hi) = bounds(mm)
        for (mesh, unit) in [(mm, LengthUnit.mm), (m, .m)] {
            let path = dir + "/box-\(unit.rawValue).\(format)"
            try AtomicFile.write(
                try MeshIO.bytes(mesh, format: #require(FileFormat.named(format)), unit: unit), to: path)
            for readUnit in LengthUnit.allCases {
                let back = try MeshIO.read(path: path, unit: readUnit)
                #expect(back.triangleCount == 12, "\(format)")
                let (blo, bhi) = bounds(back)
                let scale = Float(readUnit.millimetres)
                let err = max(maxDiff(blo * scale, lo), maxDiff(bhi * scale, hi))
                #expect(err < 2e-3, "\(format) written in \(unit), read in \(readUnit): \(blo)…\(bhi) (\(err) mm off)")
            }
        }
    }

    /// Unit-less formats carry the numbers of the run's unit.
    @Test(arguments: ["stl", "obj", "ply"])
    func unitlessFormatsFollowTheRun(format: String) throws {
        var m = faceBox()
        m.positions = m.positions.map { $0 / 1000 }
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/box.\(format)"
        try AtomicFile.write(try MeshIO.bytes(m, format: #require(FileFormat.named(format)), unit: .m), to: path)
        let back = try MeshIO.read(path: path, unit: .mm)  // no unit in the file: numbers as they are
        #expect(bounds(back) == bounds(m), "\(format)")
        #expect(MeshIO.statedUnitMillimetres(format: format) == nil)
    }

    @Test func daeStatesMetresAndHoldsMetres() throws {
        let text = String(decoding: try MeshIO.bytes(faceBox(), format: .dae, unit: .mm), as: UTF8.self)
        #expect(text.contains(#"<unit name="meter" meter="1" />"#))
        #expect(text.contains("0.075") || text.contains("0.0750"), "positions not in metres")
        #expect(!text.contains(" 75 ") && !text.contains(" -75 "))
    }

    /// GLB: metres, only what glTF 2.0 requires and nothing unused: no extensions, accessor
    /// min/max of the positions, 4-byte aligned chunks; assimp reads it back with its UVs.
    @Test func glbIsCleanAndInMetres() throws {
        let box = faceBox()
        let b = try MeshIO.bytes(box, format: .glb, unit: .mm)
        #expect(Array(b[0..<4]) == Array("glTF".utf8))
        let total = Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24
        #expect(total == b.count && b.count % 4 == 0)
        let j = try glbJSON(b)
        #expect(j["extensionsUsed"] == nil && j["extensionsRequired"] == nil && j["extensions"] == nil)
        #expect((j["asset"] as? [String: Any])?["version"] as? String == "2.0")
        let accessors = try #require(j["accessors"] as? [[String: Any]])
        let minV = try #require(accessors[0]["min"] as? [Double]), maxV = try #require(accessors[0]["max"] as? [Double])
        let (lo, hi) = bounds(box)
        for k in 0..<3 {
            #expect(
                abs(minV[k] - Double(lo[k]) / 1000) < 1e-7 && abs(maxV[k] - Double(hi[k]) / 1000) < 1e-7,
                "axis \(k): \(minV) \(maxV)")
        }
        #expect(accessors.count == 4)  // POSITION, NORMAL, TEXCOORD_0, indices
        let back = try AssimpIO.parse(b, formatHint: "glb", name: "box.glb")
        #expect(back.vertexCount == 8 && back.triangleCount == 12 && back.uvs != nil)
        #expect(try MeshIO.bytes(box, format: .glb) == b, "same mesh, same bytes")
    }

    /// 3MF through lib3mf: unit millimeter, one object, one build item, the thumbnail as the
    /// package thumbnail, the same bytes every time, read back by lib3mf.
    @Test func threeMFIsMillimetresWithThumbnailAndDeterministic() throws {
        let box = faceBox()
        let png = try PNGEncoder.encode(Rasterizer.render(box, options: RenderOptions(size: 32)), name: "t")
        let a = try MeshIO.bytes(box, format: .threeMF, unit: .mm, thumbnail: png)
        let b = try MeshIO.bytes(box, format: .threeMF, unit: .mm, thumbnail: png)
        #expect(a == b, "two exports differ")
        // No clock in the package: every zip entry (local header: signature PK\u{3}\u{4}, DOS
        // time and date at +10 and +12) carries the same fixed date, not today's.
        var stamps = Set<UInt32>()
        var i = 0
        while let r = a[i...].firstRange(of: [0x50, 0x4B, 0x03, 0x04]), r.lowerBound + 14 <= a.count {
            let at = r.lowerBound
            stamps.insert(
                UInt32(a[at + 10]) | UInt32(a[at + 11]) << 8 | UInt32(a[at + 12]) << 16 | UInt32(a[at + 13]) << 24)
            i = r.upperBound
        }
        var now = time(nil), parts = tm()
        gmtime_r(&now, &parts)
        let today = UInt32(((parts.tm_year + 1900 - 1980) << 9) | ((parts.tm_mon + 1) << 5) | parts.tm_mday)
        #expect(!stamps.isEmpty && stamps.count == 1, "zip entries' stamps: \(stamps)")
        #expect(stamps.allSatisfy { $0 >> 16 != today }, "a zip entry is dated today")
        #expect(Lib3MFIO.statedUnitMillimetres(a) == 1)
        #expect(Lib3MFIO.thumbnail(a) == png)
        let back = try Lib3MFIO.parse(a, name: "box.3mf")
        #expect(back.vertexCount == 8 && back.triangleCount == 12)
        #expect(back.triangles == box.triangles)
        let err = zip(back.positions, box.positions).map { maxDiff($0, $1) }.max() ?? 1
        #expect(err < 1e-3, "positions \(err) mm off")
        #expect(try Lib3MFIO.bytes(box, thumbnail: png) == a)
    }

    @Test func unreadable3MFNamesTheFile() throws {
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/bad.3mf"
        try AtomicFile.write(Array("PK not really a zip".utf8), to: path)
        do {
            _ = try MeshIO.read(path: path)
            Issue.record("expected an error")
        } catch FaceScanError.badInput(let e) {
            #expect(e.file == path && e.message.hasPrefix("lib3mf: "), "\(e)")
        } catch {
            Issue.record("expected a bad-input error, got \(error)")
        }
    }

    /// assimp's 3MF exporter writes `$blobfile` into the current directory: it is refused, and
    /// nothing appears in the working directory.
    @Test func assimps3MFExporterIsRefused() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: cwd)) ?? [])
        #expect(throws: FaceScanError.self) { try AssimpIO.export(faceBox(), formatID: "3mf") }
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: cwd)) ?? [])
        #expect(!after.contains("$blobfile") && after.subtracting(before).allSatisfy { !$0.hasPrefix("$blob") })
    }

    /// A 3MF made by another writer (Python's lib3mf) in centimetres, with a components object
    /// and transforms on the component and the build item, reads as millimetres where it is placed.
    @Test func threeMFInCentimetresWithComponentsReadsInMillimetres() throws {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        let path = url.path + "/Fixtures/components-centimetre.3mf"
        let mesh = try MeshIO.read(path: path)
        #expect(mesh.vertexCount == 4 && mesh.triangleCount == 4)
        let (lo, hi) = bounds(mesh)
        #expect(maxDiff(lo, SIMD3(100, 0, 50)) < 1e-3 && maxDiff(hi, SIMD3(110, 20, 80)) < 1e-3, "\(lo)…\(hi)")
        let inMetres = try MeshIO.read(path: path, unit: .m)
        #expect(maxDiff(bounds(inMetres).1, SIMD3(0.11, 0.02, 0.08)) < 1e-6)
    }

    /// FBX states its unit as UnitScaleFactor (centimetres per unit), which assimp does not apply:
    /// facescan reads it from the file, ASCII or binary.
    @Test func fbxUnitScaleFactorIsHonoured() throws {
        let box = faceBox()
        // assimp's ASCII FBX (facescan no longer writes it), the box in centimetres.
        let ascii = try AssimpIO.export(MeshIO.converted(box, factor: 0.1, name: "box"), formatID: "fbxa")[0].bytes
        #expect(MeshIO.fbxUnitScaleFactor(ascii) == 1)
        let binary = try AssimpIO.export(box, formatID: "fbx")[0].bytes
        #expect(binary.starts(with: Array("Kaydara FBX Binary".utf8)))
        #expect(MeshIO.fbxUnitScaleFactor(binary) == 1)
        // facescan's own binary FBX states the run's unit: 0.1 cm per millimetre.
        #expect(MeshIO.fbxUnitScaleFactor(try MeshIO.bytes(box, format: .fbx, unit: .mm)) == 0.1)
        // The same numbers declared as decimetres (10 cm per unit) read ten times larger.
        let text = String(decoding: ascii, as: UTF8.self)
        let key = #""UnitScaleFactor", "double", "Number", "", 1"#
        #expect(text.contains(key + "\n"))
        let dm = text.replacingOccurrences(
            of: key + "\n", with: #""UnitScaleFactor", "double", "Number", "", 10"# + "\n")
        #expect(MeshIO.fbxUnitScaleFactor(Array(dm.utf8)) == 10)
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFile.write(Array(dm.utf8), to: dir + "/dm.fbx")
        let (lo, hi) = bounds(try MeshIO.read(path: dir + "/dm.fbx"))
        let (blo, bhi) = bounds(box)
        #expect(max(maxDiff(lo, blo * 10), maxDiff(hi, bhi * 10)) < 1e-2, "\(lo)…\(hi)")
    }
}
