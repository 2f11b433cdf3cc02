import Foundation
import Testing

@testable import FaceScanKit

/// ``OFFReader``: the OFF variants writers produce, read without assimp.
@Suite struct OFFReaderTests {
    func read(_ text: String) throws -> Mesh {
        try Mesh(bytes: Array(text.utf8), format: .off, name: "t.off")
    }

    func message(_ text: String) -> String {
        do throws(FaceScanError) {
            _ = try Mesh(bytes: Array(text.utf8), format: .off, name: "t.off")
            return "read"
        } catch {
            return error.description
        }
    }

    @Test func roundTripIsExact() throws {
        let mesh = try ictFixture()
        let back = try Mesh(bytes: try mesh.encoded(as: .off), format: .off)
        #expect(back.positions == mesh.positions)
        #expect(back.triangles == mesh.triangles)
    }

    @Test func variants() throws {
        // Colours after the coordinates and after the indices, comments, blank lines, CRLF.
        let coff = try read(
            "COFF\r\n# made by hand\r\n\r\n4 2 0\r\n0 0 0 255 0 0 255\r\n1 0 0 0 255 0 255\r\n"
                + "1 1 0 0 0 255 255 # corner\r\n0 1 0 9 9 9 255\r\n3 0 1 2 1 0 0\r\n3 0 2 3\r\n")
        #expect(coff.vertexCount == 4 && coff.triangles == [0, 1, 2, 0, 2, 3])
        // Lone carriage returns (classic Mac OS), keyword and counts on one line, a quad.
        let mac = try read("OFF 4 1 0\r0 0 0\r1 0 0\r1 1 0\r0 1 0\r4 0 1 2 3\r")
        #expect(mac.triangles == [0, 1, 2, 0, 2, 3])
        // Normals after the coordinates; a point and a line are skipped.
        let noff = try read("NOFF\n3 3 0\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n1 0\n2 0 1\n3 2 1 0\n")
        #expect(noff.triangles == [2, 1, 0])
        // Homogeneous coordinates are divided out; nOFF with dimension 3.
        let h = try read("4OFF\n3 1 0\n2 0 0 2\n4 0 0 2\n0 2 0 2\n3 0 1 2\n")
        #expect(h.positions == [SIMD3(1, 0, 0), SIMD3(2, 0, 0), SIMD3(0, 1, 0)])
        let n = try read("nOFF\n3\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
        #expect(n.triangleCount == 1)
        // No keyword: the caller says it is OFF.
        let bare = try read("3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
        #expect(bare.triangleCount == 1)
        // A polygon of 100 corners: 98 triangles, no vertex in more than a handful (a strip, as OBJ).
        let ring = (0..<100).map { i -> String in
            let a = Double(i) * 2 * .pi / 100
            return "\(cos(a)) \(sin(a)) 0"
        }
        let big = try read(
            "OFF\n100 1 0\n" + ring.joined(separator: "\n") + "\n100 "
                + (0..<100).map(String.init).joined(separator: " ") + "\n")
        #expect(big.triangleCount == 98)
        var uses = [Int](repeating: 0, count: 100)
        for t in big.triangles { uses[Int(t)] += 1 }
        #expect(uses.max()! <= 4)
    }

    @Test func refusals() {
        #expect(
            message("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n").contains(
                "t.off: line 6: face 0: vertex index 3 out of range (3 vertices)"))
        #expect(
            message("OFF\n# c\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n").contains(
                "line 7: face 0: vertex index -1 out of range"))
        #expect(
            message("OFF\n3 1 0\n0 0 0\n1 0 x\n0 1 0\n3 0 1 2\n").contains(
                "line 4: vertex 1: expected 3 finite coordinates"))
        #expect(message("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1\n").contains("line 6: face 0: expected a corner count"))
        #expect(
            message("OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n").contains(
                "line 2: 3 vertices and 2 faces declared, more than the 4 lines"))
        #expect(message("OFF\n3\n").contains("line 2: expected the vertex and face counts"))
        #expect(
            message("OFFX\n3 1 0\n").contains(
                "line 1: expected the OFF keyword or the vertex and face counts, found 'OFFX'"))
        #expect(message("nOFF\n4\n3 1 0\n").contains("nOFF: only dimension 3 is supported, found '4'"))
        #expect(
            message("4OFF\n3 1 0\n0 0 0 0\n1 0 0 1\n0 1 0 1\n3 0 1 2\n").contains(
                "line 3: vertex 0: expected a non-zero homogeneous"))
        #expect(message("OFF\n1 1 0\n0 0 0\n0\n").contains("holds no triangles"))
        #expect(message("").contains("empty file"))
    }

    /// Files that say OFF in their first bytes are read by FaceScanKit whatever their name or
    /// format hint (assimp's OFF loader would take them).
    @Test func sniffedWhateverTheHint() throws {
        let text = Array("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n".utf8)
        #expect(OFFReader.looksLikeOFF(text[...]))
        #expect(OFFReader.looksLikeOFF(Array("oFf\n".utf8)[...]))
        #expect(OFFReader.looksLikeOFF(Array("STCOFF\n".utf8)[...]))
        #expect(!OFFReader.looksLikeOFF(Array("ply\n".utf8)[...]))
        #if Assimp
        let m = try Mesh(bytes: text, format: .ply, name: "x.ply")
        #expect(m.triangleCount == 1)
        // assimp's loader takes `off` in any case; FaceScanKit knows the keyword in capitals only.
        do throws(FaceScanError) {
            _ = try Mesh(bytes: Array("off 3 1 0\n".utf8), format: .glb, name: "x.glb")
            Issue.record("read")
        } catch {
            #expect(error.description.contains("x.glb: line 1: expected the OFF keyword"))
        }
        #endif
    }
}

/// PLY files written with Windows line ends (`\r\n`), ASCII and binary: read like the same files
/// with `\n` (the header check once took a CRLF header for one long line).
@Suite struct PLYLineEndTests {
    static let header = [
        "ply", "format FORMAT 1.0", "element vertex 3", "property float x", "property float y", "property float z",
        "element face 1", "property list uchar int vertex_indices", "end_header",
    ]

    @Test(arguments: ["\n", "\r\n"]) func asciiAndBinary(lineEnd: String) throws {
        #if Assimp
        let ascii = (Self.header + ["0 0 0", "1 0 0", "0 1 0", "3 0 1 2", ""]).joined(separator: lineEnd)
            .replacingOccurrences(of: "FORMAT", with: "ascii")
        let a = try Mesh(bytes: Array(ascii.utf8), format: .ply)
        #expect(a.positions == [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)] && a.triangles == [0, 1, 2])
        var binary = Array(
            (Self.header + [""]).joined(separator: lineEnd).replacingOccurrences(
                of: "FORMAT", with: "binary_little_endian"
            )
            .utf8)
        for v: Float in [0, 0, 0, 1, 0, 0, 0, 1, 0] { withUnsafeBytes(of: v.bitPattern.littleEndian) { binary += $0 } }
        binary.append(3)
        for i: Int32 in [0, 1, 2] { withUnsafeBytes(of: i.littleEndian) { binary += $0 } }
        let b = try Mesh(bytes: binary, format: .ply)
        #expect(b.positions == a.positions && b.triangles == a.triangles)
        #else
        print("PLYLineEndTests skipped: built without the Assimp trait (PLY is read through assimp)")
        #endif
    }
}

/// Polygons read through assimp are cut by FaceScanKit (assimp's ear clipping ran for minutes on
/// one PLY face of 100 000 corners): a fan, or a strip beyond 64 corners.
@Suite struct PLYPolygonTests {
    @Test func hugePolygonIsAStrip() throws {
        #if Assimp
        let n = 100_000
        var text =
            "ply\nformat ascii 1.0\nelement vertex \(n)\nproperty float x\nproperty float y\nproperty float z\n"
            + "element face 2\nproperty list uint int vertex_indices\nend_header\n"
        for i in 0..<n {
            let a = 2 * Double.pi * Double(i) / Double(n)
            text += "\(cos(a) * 50) \(sin(a) * 50) 0\n"
        }
        text += "\(n) " + (0..<n).map(String.init).joined(separator: " ") + "\n4 0 1 2 3\n"
        let m = try Mesh(bytes: Array(text.utf8), format: .ply)
        #expect(m.triangleCount == (n - 2) + 2)
        var uses = [Int](repeating: 0, count: m.vertexCount)
        for t in m.triangles { uses[Int(t)] += 1 }
        #expect(uses.max()! <= 6)
        // The quad: a fan from its first corner.
        #expect(Array(m.triangles.suffix(6)) == [0, 1, 2, 0, 2, 3])
        #else
        print("PLYPolygonTests skipped: built without the Assimp trait (PLY is read through assimp)")
        #endif
    }
}
