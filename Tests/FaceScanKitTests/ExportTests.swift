import Foundation
import Testing

@testable import FaceScanExport
@testable import FaceScanKit

@Suite struct ExportTests {
    let quad = Mesh(
        uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0), SIMD3(2, 0, 0)],
        triangles: [0, 1, 2, 2, 1, 3, 0, 1, 4])  // last triangle is degenerate (collinear)

    /// The thumbnail is stated once (`Exporter.thumbnail`): the given bytes as they are, else the
    /// mesh rendered and encoded as PNG, and the PNG output is that same rendering.
    @Test func thumbnailIsTheGivenElseARenderedPNG() throws {
        let given: [UInt8] = [1, 2, 3]
        #expect(try Exporter.thumbnail(quad, given: given, render: RenderOptions(size: 32)) == given)
        let png = try Exporter.thumbnail(quad, render: RenderOptions(size: 32))
        #expect(Array(png.prefix(8)) == [137, 80, 78, 71, 13, 10, 26, 10])
        #expect(try Exporter.bytes(quad, format: .png, render: RenderOptions(size: 32)) == png)
    }

    @Test func stlByteLayout() {
        let b = quad.stlBytes()
        #expect(b.count == 84 + 50 * 3)
        #expect(!b.starts(with: Array("solid".utf8)))
        #expect(b[80] == 3 && b[81] == 0 && b[82] == 0 && b[83] == 0)
        func f(_ o: Int) -> Float {
            Float(bitPattern: UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24)
        }
        // Facet 0: normal +z, corners in order.
        #expect([f(84), f(88), f(92)] == [0, 0, 1])
        #expect([f(96 + 12), f(100 + 12), f(104 + 12)] == [1, 0, 0])
        #expect(b[84 + 48] == 0 && b[84 + 49] == 0)
        // Facet 2 is degenerate: zero normal, never NaN.
        let o = 84 + 100
        #expect([f(o), f(o + 4), f(o + 8)] == [0, 0, 0])
        for k in stride(from: 84, to: b.count - 2, by: 50) { for j in 0..<12 { #expect(f(k + 4 * j).isFinite) } }
        // And it reads back.
        let back = try! Mesh.parseSTL(b, name: "x.stl")
        #expect(back.triangleCount == 3)
        #expect(back.vertexCount == 5)
    }

    @Test func objRoundTrip() throws {
        var m = sphere(radius: 0.093, rings: 6, segments: 9)
        m.uvs = m.positions.map { SIMD2($0.x + 0.5, $0.y + 0.25) }
        let back = try Mesh.parseOBJ(m.objBytes(), name: "s.obj")
        #expect(back == m)
        m.uvs = nil
        let text = String(decoding: m.objBytes(), as: UTF8.self)
        #expect(text.contains("vn "))
        #expect(text.contains("//"))
        #expect(try Mesh.parseOBJ(Array(text.utf8), name: "s.obj") == m)
    }

    /// The OBJ writer formats floats without `String`; its text must be `Float.description`'s
    /// (the bytes the writer always wrote), for every kind of float.
    @Test func objFloatsAreTheDescription() {
        var values: [Float] = [
            0, -0.0, 1, -1, 0.1, 1e-5, 1e-4, 1.2345678e-4, 16_777_216, 1e16, 3.4028235e38, -3.4028235e38,
            1.1754944e-38, -1.1754944e-38, 1e-45, -1.4e-45, 77.61819, -0.124808095, 123_456.79, 0.5, 2.5e-3,
            .infinity, -.infinity,
        ]
        var rng = SplitMix64(seed: 49)
        for _ in 0..<200_000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            if !f.isNaN { values.append(f) }
        }
        for _ in 0..<50_000 { values.append(Float.random(in: -300...300, using: &rng)) }
        var mismatches: [String] = []
        for f in values {
            let bytes = ByteWriter.bytes(capacity: ByteWriter.floatRoom) { $0.text(f) }
            #expect(bytes.count <= ByteWriter.floatRoom)
            let text = String(decoding: bytes, as: UTF8.self)
            if text != f.description && mismatches.count < 5 { mismatches.append("\(f.bitPattern): \(text)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // Indices: every digit count.
        var ints: [UInt32] = [0, 1, 9, 10, 99, 100, 4_294_967_295]
        for d in 1...9 { ints += [UInt32(pow(10, Double(d))) - 1, UInt32(pow(10, Double(d)))] }
        for v in ints {
            let text = String(decoding: ByteWriter.bytes(capacity: 10) { $0.text(v) }, as: UTF8.self)
            #expect(text == "\(v)")
        }
    }

    @Test func vertexNormalsAreAreaWeighted() {
        let n = quad.vertexNormals()
        #expect(n[0] == SIMD3(0, 0, 1))
        #expect(n.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
    }
}
