import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanKit

/// Captures and meshes in memory both ways, and the one error type, through the public API
/// (CaptureReader is package-level: the library's readers take bytes the same way).
@Suite struct InMemoryIOTests {
    static func capture(frames: [[Double]]) -> [UInt8] {
        var b = CaptureBuilder()
        b.frames = frames.map { CaptureBuilder.frame(vertices: $0) }
        return Array(b.json.utf8)
    }

    @Test func captureBytesReadLikeTheFile() throws {
        let bytes = Self.capture(frames: [CaptureBuilder.square, CaptureBuilder.square.map { $0 + 0.25 }])
        let path = makeTempDir() + "/c.json"
        try AtomicFile.write(bytes, to: path)
        func frames(_ r: CaptureReader) throws -> [Frame] {
            try r.readHeader()
            var out: [Frame] = []
            var f = Frame()
            while try r.nextFrame(&f) { out.append(f) }
            try r.finish()
            return out
        }
        let fromBytes = CaptureReader(bytes: bytes, name: "c.json")
        let inMemory = try frames(fromBytes)
        let onDisk = try frames(try CaptureReader(path: path))
        #expect(inMemory.count == 2)
        #expect(inMemory.map(\.xyz) == onDisk.map(\.xyz))
        #expect(inMemory[1].xyz[3] == 1.25)
        #expect(fromBytes.topology?.triangles == [0, 1, 2, 2, 1, 3])
        #expect(inMemory[0].metadata == onDisk[0].metadata)
        // Small chunks refill the buffer from memory as from a file (same frames, any Sequence).
        let chunked = try frames(CaptureReader(bytes: bytes, name: "c.json", chunkSize: 1200))
        #expect(chunked.map(\.xyz) == onDisk.map(\.xyz))
        let viaData = try frames(CaptureReader(bytes: Data(bytes), name: "c.json"))
        #expect(viaData.map(\.xyz) == onDisk.map(\.xyz))
    }

    @Test func frameFirstDocumentInMemoryNeedsNoSpool() throws {
        // `frames` before `topology`: the reader skips them and seeks back, in memory too.
        let text =
            "{\"frames\":[" + CaptureBuilder.frame(vertices: CaptureBuilder.square)
            + "],\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[0,1,2,2,1,3]}}"
        let r = CaptureReader(bytes: Array(text.utf8), name: "late.json")
        try r.readHeader()
        var f = Frame()
        #expect(try r.nextFrame(&f))
        #expect(f.xyz == CaptureBuilder.square.map { Float($0) })
        #expect(try !r.nextFrame(&f))
        try r.finish()
    }

    @Test func badCaptureBytesGiveATypedErrorNamingFileFrameAndField() {
        // Frame 1 has 3 vertices where frame 0 fixed 4.
        let bytes = Self.capture(frames: [CaptureBuilder.square, [0, 0, 0, 1, 0, 0, 0, 1, 0]])
        do throws(FaceScanError) {
            _ = try FaceScan.process(capture: bytes, name: "app-capture.json")
            Issue.record("expected an error")
        } catch {
            guard case .badInput(let e) = error else {
                Issue.record("expected .badInput, got \(error)")
                return
            }
            #expect(e.file == "app-capture.json")
            #expect(e.frame == 1)
            #expect(e.field == "vertices")
            #expect(e.message.contains("the first frame fixed the count at 4"), "\(e.message)")
            #expect(error.description == e.description)
            #expect(error.description.hasPrefix("app-capture.json: frame 1: field 'vertices': "))
        }
    }

    static func tetrahedron() -> Mesh {
        Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(10, 0, 0), SIMD3(0, 10, 0), SIMD3(0, 0, 10)],
            triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
    }

    /// Each triangle's corners in order: what survives STL, which numbers vertices by first use.
    static func corners(_ m: Mesh) -> [SIMD3<Float>] { m.triangles.map { m.positions[Int($0)] } }

    @Test(arguments: [MeshFormat.stl, .obj])
    func meshBytesRoundTrip(format: MeshFormat) throws {
        let mesh = Self.tetrahedron()
        let bytes = try mesh.encoded(as: format)
        let back = try Mesh(bytes: bytes, format: format)
        #expect(Self.corners(back) == Self.corners(mesh))
        #expect(back.vertexCount == 4 && back.triangleCount == 4)
        #expect(try back.encoded(as: format) == bytes, "same mesh, same bytes")
        #expect(try Mesh(data: Data(bytes), format: format) == back)
        #expect(try mesh.encodedData(as: format) == Data(bytes))
    }

    @Test func thumbnailIsTheProcessRendering() throws {
        let mesh = Self.tetrahedron()
        let png = try mesh.thumbnail(RenderOptions(size: 64))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(png == (try Exporter.bytes(mesh, format: .png, render: RenderOptions(size: 64))))
        let image = try PNGEncoder.decode(png, name: "thumbnail")
        #expect(image.width == 64 && image.height == 64)
    }

    @Test func filesAreASeparateStep() throws {
        let path = makeTempDir() + "/t.stl"
        let mesh = Self.tetrahedron()
        try mesh.write(to: path)
        #expect(try FileBytes.read(path) == mesh.encoded(as: .stl))
        #expect(Self.corners(try Mesh(contentsOf: path)) == Self.corners(mesh))
        do throws(FaceScanError) {
            try mesh.write(to: makeTempDir() + "/t.stlx")
            Issue.record("expected an error")
        } catch {
            guard case .badSetting(let e) = error else { Issue.record("expected .badSetting, got \(error)"); return }
            #expect(e.message.contains("cannot tell the mesh format"))
        }
    }

    @Test func formatNamesAreAnEnum() {
        #expect(MeshFormat(fileExtension: "STL") == .stl)
        #expect(MeshFormat(fileExtension: "3mf") == .threeMF)
        #expect(MeshFormat(fileExtension: "stlx") == nil)
        #expect(MeshFormat(path: "a/b.c/face.glb") == .glb)
        #expect(MeshFormat(path: "a.d/face") == nil)
        #expect(MeshFormat.allCases.count == 7)
        #expect(MeshFormat(path: "face.USDZ") == .usdz && !MeshFormat.usdz.isReadable)
    }

    @Test func badMeshBytesGiveATypedError() {
        do throws(FaceScanError) {
            _ = try Mesh(bytes: Array("v 0 0 0\nv 1 0 0\nf 1 2 7\n".utf8), format: .obj, name: "m.obj")
            Issue.record("expected an error")
        } catch {
            guard case .badInput(let e) = error else { Issue.record("expected .badInput, got \(error)"); return }
            #expect(e.file == "m.obj")
            #expect(e.field == "f")
            #expect(e.message.hasPrefix("line 3: index 7 out of range"), "\(e.message)")
        }
    }

    @Test func validatingInitialiserThrowsWhereTheMemberwiseOneTraps() throws {
        let p: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)]
        #expect(
            try Mesh(validatingPositions: p, triangles: [0, 1, 2]) == Mesh(uncheckedPositions: p, triangles: [0, 1, 2]))
        for (tris, uvs, field) in [
            ([0, 1] as [UInt32], nil as [SIMD2<Float>]?, "triangles"), ([0, 1, 3], nil, "triangles"),
            ([0, 1, 2], [SIMD2<Float>(0, 0)], "uvs"),
        ] {
            do throws(FaceScanError) {
                _ = try Mesh(validatingPositions: p, triangles: tris, uvs: uvs)
                Issue.record("expected an error for \(tris)")
            } catch {
                guard case .badInput(let e) = error else { Issue.record("expected .badInput, got \(error)"); continue }
                #expect(e.field == field, "\(e)")
            }
        }
    }

    #if Assimp
    @Test func offRoundTripsThroughItsOwnWriterAndAssimp() throws {
        let mesh = Self.tetrahedron()
        let text = String(decoding: try mesh.encoded(as: .off), as: UTF8.self)
        #expect(text.hasPrefix("OFF\n4 4 0\n0.0 0.0 0.0\n"))
        let back = try Mesh(bytes: try mesh.encoded(as: .off), format: .off)
        #expect(back.vertexCount == 4 && back.triangleCount == 4)
    }
    #endif
}
