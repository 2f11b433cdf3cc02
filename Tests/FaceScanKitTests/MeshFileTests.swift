import Foundation
import Synchronization
import Testing

@testable import FaceScanExport
@testable import FaceScanKit

/// The byte-scanning OBJ and ASCII STL readers against the straightforward split-and-convert
/// readers they replaced (kept here as the oracle): same mesh, bit for bit, or the same error.
@Suite struct MeshFileTests {
    // MARK: Oracles (the previous implementation, verbatim in behaviour)

    static func referenceOBJ(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var positions: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        var tris: [UInt32] = []
        var uvOf: [Int32] = []
        var uvConsistent = true
        var danglingTexture = false
        var lineNo = 0
        var poly: [(Int, Int)] = []
        for raw in b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNo += 1
            let words = raw.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
            guard let head = words.first else { continue }
            func num(_ i: Int) throws(InputError) -> Float {
                guard i < words.count, let v = Float(String(decoding: words[i], as: UTF8.self)), v.isFinite else {
                    throw InputError(
                        file: name, field: String(decoding: head, as: UTF8.self),
                        "line \(lineNo): expected a finite number")
                }
                return v
            }
            if head.elementsEqual("v".utf8) {
                positions.append(SIMD3(try num(1), try num(2), try num(3)))
            } else if head.elementsEqual("vt".utf8) {
                texcoords.append(SIMD2(try num(1), try num(2)))
            } else if head.elementsEqual("f".utf8) {
                poly.removeAll(keepingCapacity: true)
                for w in words.dropFirst() {
                    let parts = w.split(separator: UInt8(ascii: "/"), maxSplits: 2, omittingEmptySubsequences: false)
                    func idx(_ s: ArraySlice<UInt8>, _ count: Int, texture: Bool = false) throws(InputError) -> Int {
                        guard let i = Int(String(decoding: s, as: UTF8.self)), i != 0 else {
                            throw InputError(
                                file: name, field: "f",
                                "line \(lineNo): bad index '\(String(decoding: w, as: UTF8.self))'")
                        }
                        let r = i > 0 ? i - 1 : count + i
                        guard r >= 0 && r < count else {
                            // A texture index that points nowhere drops the UVs (a warning), not the file.
                            if texture { danglingTexture = true; return -1 }
                            throw InputError(
                                file: name, field: "f", "line \(lineNo): index \(i) out of range (\(count) defined)")
                        }
                        return r
                    }
                    let v = try idx(parts[0], positions.count)
                    var t = -1
                    if parts.count > 1, !parts[1].isEmpty { t = try idx(parts[1], texcoords.count, texture: true) }
                    poly.append((v, t))
                }
                guard poly.count >= 3 else {
                    throw InputError(file: name, field: "f", "line \(lineNo): a face needs at least 3 corners")
                }
                if uvOf.count < positions.count {
                    uvOf.append(contentsOf: repeatElement(-2, count: positions.count - uvOf.count))
                }
                for (v, t) in poly {
                    if uvOf[v] == -2 { uvOf[v] = Int32(t) } else if uvOf[v] != Int32(t) { uvConsistent = false }
                }
                // Large polygons: a zig-zag strip (corners alternately from both ends), not a fan.
                if poly.count > Mesh.maxFanCorners {
                    var l = 0, r = poly.count - 1, left = true
                    while r - l >= 2 {
                        let t = left ? [poly[l].0, poly[l + 1].0, poly[r].0] : [poly[l].0, poly[r - 1].0, poly[r].0]
                        tris += t.map { UInt32($0) }
                        if left { l += 1 } else { r -= 1 }
                        left.toggle()
                    }
                } else {
                    for k in 1..<(poly.count - 1) {
                        tris.append(UInt32(poly[0].0))
                        tris.append(UInt32(poly[k].0))
                        tris.append(UInt32(poly[k + 1].0))
                    }
                }
            }
        }
        var uvs: [SIMD2<Float>]? = nil
        if !danglingTexture, uvConsistent, !texcoords.isEmpty, uvOf.count == positions.count,
            !uvOf.contains(where: { $0 < 0 })
        {
            uvs = uvOf.map { texcoords[Int($0)] }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris, uvs: uvs)
    }

    static func referenceSTL(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var corners: [SIMD3<Float>] = []
        if Mesh.looksLikeBinarySTL(b) {
            let n = (b.count - 84) / 50
            b.withUnsafeBytes { raw in
                for f in 0..<n {
                    for k in 0..<3 {
                        let o = 84 + 50 * f + 12 + 12 * k
                        let x = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
                        let y = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self)))
                        let z = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
                        corners.append(SIMD3(x, y, z))
                    }
                }
            }
        } else if b.starts(with: Array("solid".utf8)) {
            var line = 0
            var facetStart = 0, facetLine = 0, facets = 0
            for raw in b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                line += 1
                let words = raw.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
                // A facet holds exactly three vertices.
                if words.first.map({ $0.elementsEqual("facet".utf8) }) == true {
                    facetStart = corners.count
                    facetLine = line
                } else if words.first.map({ $0.elementsEqual("endfacet".utf8) }) == true {
                    guard corners.count - facetStart == 3 else {
                        throw InputError(
                            file: name,
                            "line \(facetLine > 0 ? facetLine : line): facet \(facets) has \(corners.count - facetStart) vertices (an STL facet is a triangle)"
                        )
                    }
                    facets += 1
                    facetStart = corners.count
                    facetLine = 0
                }
                guard words.first.map({ $0.elementsEqual("vertex".utf8) }) == true else { continue }
                guard words.count == 4,
                    let x = Float(String(decoding: words[1], as: UTF8.self)),
                    let y = Float(String(decoding: words[2], as: UTF8.self)),
                    let z = Float(String(decoding: words[3], as: UTF8.self))
                else { throw InputError(file: name, field: "vertex", "line \(line): expected three numbers") }
                corners.append(SIMD3(x, y, z))
            }
            guard corners.count % 3 == 0 else { throw InputError(file: name, "ASCII STL has an incomplete facet") }
        } else {
            throw InputError(
                file: name,
                "not an STL file (binary size does not match its facet count, and it does not begin with 'solid')")
        }
        for c in corners where !(c.x.isFinite && c.y.isFinite && c.z.isFinite) {
            throw InputError(file: name, field: "vertex", "non-finite coordinate")
        }
        var index: [SIMD3<UInt32>: UInt32] = [:]
        var positions: [SIMD3<Float>] = []
        var tris: [UInt32] = []
        for c in corners {
            let key = SIMD3(c.x.bitPattern, c.y.bitPattern, c.z.bitPattern)
            if let i = index[key] {
                tris.append(i)
            } else {
                let i = UInt32(positions.count)
                index[key] = i
                positions.append(c)
                tris.append(i)
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris)
    }

    // MARK: Comparing outcomes bit for bit

    enum Outcome: Equatable, CustomStringConvertible {
        case mesh(positions: [UInt32], triangles: [UInt32], uvs: [UInt32]?)
        case failure(InputError)

        init(_ body: () throws(InputError) -> Mesh) {
            do {
                let m = try body()
                self = .mesh(
                    positions: m.positions.flatMap { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern] },
                    triangles: m.triangles,
                    uvs: m.uvs.map { $0.flatMap { [$0.x.bitPattern, $0.y.bitPattern] } })
            } catch {
                self = .failure(error)
            }
        }

        var isMesh: Bool { if case .mesh = self { true } else { false } }
        var description: String {
            switch self {
            case .mesh(let p, let t, let u): "mesh(\(p.count / 3) vertices, \(t.count / 3) triangles, uvs: \(u != nil))"
            case .failure(let e): "error: \(e)"
            }
        }
    }

    static func obj(_ text: [UInt8]) -> (new: Outcome, old: Outcome) {
        (
            Outcome { () throws(InputError) in try Mesh.parseOBJ(text, name: "t.obj") },
            Outcome { () throws(InputError) in try referenceOBJ(text, name: "t.obj") }
        )
    }

    static func stl(_ text: [UInt8]) -> (new: Outcome, old: Outcome) {
        (
            Outcome { () throws(InputError) in try Mesh.parseSTL(text, name: "t.stl") },
            Outcome { () throws(InputError) in try referenceSTL(text, name: "t.stl") }
        )
    }

    // MARK: Random text

    /// A random float printed in one of the styles OBJ writers (and people) use, including forms
    /// the fast path hands back to `Float(String)`: '+', '.5', '5.', leading zeros, long digit
    /// strings, upper-case exponents, hex.
    static func number(_ g: inout SplitMix64) -> String {
        let magnitude = [1e-6, 1e-3, 0.1, 1, 10, 1000, 1e7, 1e20][Int.random(in: 0..<8, using: &g)]
        var x = Float(Double.random(in: -1...1, using: &g) * magnitude)
        if Int.random(in: 0..<20, using: &g) == 0 { x = Float(Int.random(in: -50...50, using: &g)) }
        if Int.random(in: 0..<50, using: &g) == 0 {
            x =
                [0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .leastNormalMagnitude][
                    Int.random(in: 0..<5, using: &g)]
        }
        let d = Double(x)
        var s: String
        switch Int.random(in: 0..<14, using: &g) {
        case 0: s = String(format: "%g", d)
        case 1, 2, 3: s = x.description
        case 4: s = String(format: "%.9g", d)
        case 5: s = String(format: "%e", d)
        case 6: s = String(format: "%.6f", d)
        case 7: s = String(format: "%.25f", d)  // more than 19 digits
        case 8: s = String(format: "%.17E", d)
        case 9: s = String(format: "%#.0f", d)  // "5."
        case 10: s = String(format: "%.8g", d).replacingOccurrences(of: "0.", with: ".")  // ".5"
        case 11: s = String(format: "%a", d)  // hex
        case 12: s = String(format: "%+.7g", d)  // leading '+'
        default: s = "00" + String(format: "%.5f", abs(d))  // leading zeros
        }
        return s
    }

    static func blank(_ g: inout SplitMix64) -> String {
        ["", "", "", " ", "  ", "\t", " \t "][Int.random(in: 0..<7, using: &g)]
    }

    static func sep(_ g: inout SplitMix64) -> String {
        [" ", " ", " ", "  ", "\t", " \t", "\r "][Int.random(in: 0..<7, using: &g)]
    }

    static func eol(_ g: inout SplitMix64) -> String {
        blank(&g) + (Int.random(in: 0..<4, using: &g) == 0 ? "\r\n" : "\n")
    }

    /// A random valid OBJ text: vertices, texture coordinates, faces of 3–6 corners in all index
    /// forms (absolute and relative), and the lines a reader must skip.
    static func randomOBJ(_ g: inout SplitMix64) -> String {
        var out = ""
        var nv = 0, nt = 0
        // Per-vertex texture coordinates in some files, so the UV rule keeps them.
        let perVertexUV = Bool.random(using: &g)
        // 0: v, 1: v/vt, 2: v//vn, 3: v/vt/vn, 4: mixed per corner. Per-vertex UVs need a texture
        // index at every corner.
        let form = perVertexUV ? [1, 3, 4][Int.random(in: 0..<3, using: &g)] : Int.random(in: 0..<5, using: &g)
        let lines = Int.random(in: 1..<120, using: &g)
        for _ in 0..<lines {
            let kind = Int.random(in: 0..<20, using: &g)
            var line = blank(&g)
            if kind < 7 || nv < 3 {
                line += "v" + sep(&g) + number(&g) + sep(&g) + number(&g) + sep(&g) + number(&g)
                if Int.random(in: 0..<6, using: &g) == 0 {
                    line += sep(&g) + number(&g) + sep(&g) + number(&g) + sep(&g) + number(&g)  // vertex colour
                }
                nv += 1
                if perVertexUV {
                    out += line + eol(&g)
                    line = blank(&g) + "vt" + sep(&g) + number(&g) + sep(&g) + number(&g)
                    nt += 1
                }
            } else if kind < 9 && !perVertexUV {
                line += "vt" + sep(&g) + number(&g) + sep(&g) + number(&g)
                if Bool.random(using: &g) { line += sep(&g) + number(&g) }
                nt += 1
            } else if kind < 15 {
                line += "f"
                for _ in 0..<Int.random(in: 3...6, using: &g) {
                    let v = Int.random(in: 0..<nv, using: &g)
                    let t = perVertexUV ? v : Int.random(in: 0..<max(nt, 1), using: &g)
                    func ref(_ i: Int, _ count: Int) -> String {
                        Int.random(in: 0..<4, using: &g) == 0 ? String(i - count) : String(i + 1)
                    }
                    let f =
                        form != 4
                        ? form
                        : perVertexUV ? [1, 3][Int.random(in: 0..<2, using: &g)] : Int.random(in: 0..<4, using: &g)
                    var corner = ref(v, nv)
                    switch f {
                    case 1 where nt > 0: corner += "/" + ref(t, nt)
                    case 2: corner += "//" + String(Int.random(in: 1...9, using: &g))
                    case 3 where nt > 0: corner += "/" + ref(t, nt) + "/" + String(Int.random(in: 1...9, using: &g))
                    default: break
                    }
                    line += sep(&g) + corner
                }
            } else {
                line +=
                    [
                        "vn 0 0 1", "# a comment", "#v 1 2 3", "o face", "g group one", "s off", "s 1",
                        "usemtl skin", "mtllib face.mtl", "", "vp 0.5", "l 1 2", "v1 2 3 4", "fo 1 2",
                    ][Int.random(in: 0..<14, using: &g)]
            }
            out += line + eol(&g)
        }
        if perVertexUV && Int.random(in: 0..<4, using: &g) != 0 {
            // Use every vertex, so the UV rule keeps the texture coordinates.
            for k in stride(from: 0, to: nv, by: 3) {
                out += "f" + [k, (k + 1) % nv, (k + 2) % nv].map { " \($0 + 1)/\($0 + 1)" }.joined() + eol(&g)
            }
        }
        if Bool.random(using: &g) { out.removeLast() }  // no final newline (or a lone '\r')
        return out
    }

    static func randomSTL(_ g: inout SplitMix64) -> String {
        var out = "solid" + (Bool.random(using: &g) ? " face" : "") + eol(&g)
        var used: [String] = []
        for _ in 0..<Int.random(in: 0..<40, using: &g) {
            out += blank(&g) + "facet normal 0 0 1" + eol(&g) + blank(&g) + "outer loop" + eol(&g)
            for _ in 0..<3 {
                let corner: String
                if !used.isEmpty && Int.random(in: 0..<3, using: &g) == 0 {
                    corner = used[Int.random(in: 0..<used.count, using: &g)]  // a shared vertex
                } else {
                    corner = number(&g) + sep(&g) + number(&g) + sep(&g) + number(&g)
                    used.append(corner)
                }
                out += blank(&g) + "vertex" + sep(&g) + corner + eol(&g)
            }
            out += blank(&g) + "endloop" + eol(&g) + blank(&g) + "endfacet" + eol(&g)
        }
        out += "endsolid" + eol(&g)
        return out
    }

    /// Replaces, inserts or deletes a few random bytes (digits, signs, separators, letters, '/').
    static func mutate(_ text: [UInt8], _ g: inout SplitMix64) -> [UInt8] {
        var b = text
        let alphabet = Array("0123456789-+./ \t\r\nevfnaix#E\0".utf8) + [0xFF, 0x0B]
        for _ in 0..<Int.random(in: 1...3, using: &g) where !b.isEmpty {
            let at = Int.random(in: 0..<b.count, using: &g)
            let c = alphabet[Int.random(in: 0..<alphabet.count, using: &g)]
            switch Int.random(in: 0..<3, using: &g) {
            case 0: b[at] = c
            case 1: b.insert(c, at: at)
            default: b.remove(at: at)
            }
        }
        return b
    }

    // MARK: OBJ

    @Test func objMatchesReferenceOnRandomFiles() {
        var g = SplitMix64(seed: 0x0B1E_C7)
        var meshes = 0, withUV = 0
        for _ in 0..<2000 {
            let text = Array(Self.randomOBJ(&g).utf8)
            let (new, old) = Self.obj(text)
            #expect(new == old, "\(String(decoding: text, as: UTF8.self))")
            if case .mesh(_, let t, let u) = old, !t.isEmpty {
                meshes += 1
                if u != nil { withUV += 1 }
            }
        }
        // The generator must mostly produce valid meshes, with and without UVs, for this to test much.
        #expect(meshes > 1600)
        #expect(withUV > 300)
    }

    @Test func objMatchesReferenceOnMutatedFiles() {
        var g = SplitMix64(seed: 0xBAD_0B1)
        var failures = 0, meshes = 0
        for _ in 0..<4000 {
            let text = Self.mutate(Array(Self.randomOBJ(&g).utf8), &g)
            let (new, old) = Self.obj(text)
            #expect(new == old, "\(String(decoding: text, as: UTF8.self))")
            if old.isMesh { meshes += 1 } else { failures += 1 }
        }
        #expect(failures > 500)
        #expect(meshes > 500)
    }

    @Test func objNumberForms() throws {
        // Every form Float(String) takes is read the same way; non-finite values are errors.
        for s in [
            "1", "-1", "+1", ".5", "-.5", "5.", "007", "1e5", "1E+5", "1e-05", "-0", "0x1.8p1",
            "3.40282347e38", "1e-50", "1.000000059604644775390625", "0.1000000000000000000000001",
            "123456789012345678901234567890", "1e-46", "1.4e-45", "\u{0}",
        ] {
            let text = Array("v \(s) 0 0\nv 0 \(s) 0\r\nv 0 0 \(s)".utf8)
            let (new, old) = Self.obj(text)
            #expect(new == old, "\(s)")
        }
        for s in ["1e50", "-1e39", "nan", "NaN", "inf", "-infinity", "1e", "--1", "1..2", "0x", "1,5", "abc", ""] {
            let text = Array("v 0 0 \(s)\n".utf8)
            #expect(
                Self.obj(text).new
                    == .failure(InputError(file: "t.obj", field: "v", "line 1: expected a finite number")), "\(s)")
        }
    }

    @Test func objErrors() {
        let cases: [(String, InputError)] = [
            ("v 1 2\n", InputError(file: "t.obj", field: "v", "line 1: expected a finite number")),
            ("# c\nv 1 2 nan\n", InputError(file: "t.obj", field: "v", "line 2: expected a finite number")),
            ("v 1 2 3\nvt 0.5\n", InputError(file: "t.obj", field: "vt", "line 2: expected a finite number")),
            ("vt 0.5 inf\n", InputError(file: "t.obj", field: "vt", "line 1: expected a finite number")),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", InputError(file: "t.obj", field: "f", "line 4: bad index 'x'")),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", InputError(file: "t.obj", field: "f", "line 4: bad index '0'")),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3a/1\n",
                InputError(file: "t.obj", field: "f", "line 4: bad index '3a/1'")
            ),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /3\n", InputError(file: "t.obj", field: "f", "line 4: bad index '/3'")),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n",
                InputError(file: "t.obj", field: "f", "line 4: bad index '99999999999999999999'")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
                InputError(file: "t.obj", field: "f", "line 4: index 4 out of range (3 defined)")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n",
                InputError(file: "t.obj", field: "f", "line 4: index -4 out of range (3 defined)")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9223372036854775808\n",
                InputError(file: "t.obj", field: "f", "line 4: index -9223372036854775808 out of range (3 defined)")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 +0004\n",
                InputError(file: "t.obj", field: "f", "line 4: index 4 out of range (3 defined)")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n",
                InputError(file: "t.obj", field: "f", "line 4: bad index '1/x'")
            ),
            (
                "v 0 0 0\nv 1 0 0\nf 1 2\n",
                InputError(file: "t.obj", field: "f", "line 3: a face needs at least 3 corners")
            ),
            ("f\n", InputError(file: "t.obj", field: "f", "line 1: a face needs at least 3 corners")),
            (
                "v 0 0 0\r\n\r\nf 1 2 3\r\n",
                InputError(file: "t.obj", field: "f", "line 3: index 2 out of range (1 defined)")
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 # trailing comment\n",
                InputError(file: "t.obj", field: "f", "line 4: bad index '#'")
            ),
        ]
        for (text, error) in cases {
            let (new, old) = Self.obj(Array(text.utf8))
            #expect(old == .failure(error), "oracle: \(text)")
            #expect(new == .failure(error), "\(text)")
        }
    }

    @Test func objLargePolygonIsAStripWithSmallValence() throws {
        let n = 1000
        var text = ""
        for i in 0..<n { text += "v \(Double(i)) \(i % 2 == 0 ? 0 : 1) 0\n" }
        text += "f " + (1...n).map(String.init).joined(separator: " ") + "\n"
        let (new, old) = Self.obj(Array(text.utf8))
        #expect(new == old)
        let m = try Mesh.parseOBJ(Array(text.utf8), name: "t.obj")
        #expect(m.triangleCount == n - 2)
        var valence = [Int](repeating: 0, count: n)
        for i in m.triangles { valence[Int(i)] += 1 }
        #expect(valence.max()! <= 4, "\(valence.max()!)")
        #expect(Set(m.triangles).count == n)
    }

    @Test func objLineContinuationsAndDanglingTextures() throws {
        // A backslash at the end of a line continues it; errors still give the physical line.
        let joined = try Mesh.parseOBJ(Array("v 0 0 \\\n0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\r\n 3\n".utf8), name: "t.obj")
        #expect(joined.positions.count == 3 && joined.triangles == [0, 1, 2])
        #expect(throws: InputError(file: "t.obj", field: "f", "line 7: index 4 out of range (3 defined)")) {
            try Mesh.parseOBJ(Array("v 0 0 0\nv 1 0 \\\n0\nv 0 1 0\nf 1 2 \\\n 3\nf 1 2 4\n".utf8), name: "t.obj")
        }
        // Texture indices that point nowhere: positions kept, UVs dropped, one warning.
        let warnings = WarningLog()
        MeshWarnings.setHandler { warnings.add($0) }
        defer { MeshWarnings.setHandler(nil) }
        let m = try Mesh.parseOBJ(
            Array("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/3\n".utf8), name: "dangling.obj")
        #expect(m.triangles == [0, 1, 2] && m.uvs == nil)
        #expect(
            warnings.lines.contains(
                "dangling.obj: line 5: texture coordinate index 2 out of range (1 defined); texture coordinates ignored"
            ))
    }

    @Test func objAcceptedOddities() throws {
        // Forms the old reader accepted, still accepted the same way.
        let text =
            "v 0 0 0 1 1 1\nv 1 0 0 # colour\n\tv\t0 1 0\r\nvt .5 +.25\nvn 0 0 1\n"
            + "f 1/1/zz 2/1/ 3/1//\nf -3//1 -2 -1/-1\nvx 1\nf +1 002 3"
        let (new, old) = Self.obj(Array(text.utf8))
        #expect(new == old)
        let m = try Mesh.parseOBJ(Array(text.utf8), name: "t.obj")
        #expect(m.positions == [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)])
        #expect(m.triangles == [0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(m.uvs == nil)  // vertex 1 has no texture coordinate in the second face
        let uv = try Mesh.parseOBJ(Array("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.5 0.25\nf 1/1 2/1 3/-1".utf8), name: "t.obj")
        #expect(uv.uvs == Array(repeating: SIMD2(0.5, 0.25), count: 3))
        #expect(try Mesh.parseOBJ([], name: "t.obj") == Mesh(uncheckedPositions: [], triangles: []))
    }

    // MARK: STL

    @Test func asciiSTLMatchesReference() {
        var g = SplitMix64(seed: 0x57_1A5C)
        var meshes = 0
        for _ in 0..<1500 {
            let text = Array(Self.randomSTL(&g).utf8)
            let (new, old) = Self.stl(text)
            #expect(new == old, "\(String(decoding: text, as: UTF8.self))")
            if case .mesh(let p, let t, _) = old, p.count / 3 < t.count { meshes += 1 }  // shared vertices merged
        }
        #expect(meshes > 1000)
        var failures = 0
        for _ in 0..<3000 {
            let text = Self.mutate(Array(Self.randomSTL(&g).utf8), &g)
            let (new, old) = Self.stl(text)
            #expect(new == old, "\(String(decoding: text, as: UTF8.self))")
            if !old.isMesh { failures += 1 }
        }
        #expect(failures > 300)
    }

    @Test func asciiSTLErrors() {
        let facet = "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
        let cases: [(String, InputError)] = [
            ("solid x\nvertex 0 0\n", InputError(file: "t.stl", field: "vertex", "line 2: expected three numbers")),
            ("solid x\nvertex 0 0 0 0\n", InputError(file: "t.stl", field: "vertex", "line 2: expected three numbers")),
            (
                "solid x\n  vertex 0 0 x\r\n",
                InputError(file: "t.stl", field: "vertex", "line 2: expected three numbers")
            ),
            (
                "solid x\n" + facet + "vertex 0 0 0\nendsolid\n",
                InputError(file: "t.stl", "ASCII STL has an incomplete facet")
            ),
            (
                "solid x\nvertex 0 0 nan\nvertex 0 0 0\nvertex 0 1 0\n",
                InputError(file: "t.stl", field: "vertex", "non-finite coordinate")
            ),
            (
                "solid x\nvertex 0 0 1e50\nvertex 0 0 0\nvertex 0 1 0\n",
                InputError(file: "t.stl", field: "vertex", "non-finite coordinate")
            ),
        ]
        for (text, error) in cases {
            let (new, old) = Self.stl(Array(text.utf8))
            #expect(old == .failure(error), "oracle: \(text)")
            #expect(new == .failure(error), "\(text)")
        }
        let ok = Self.stl(Array(("solid\n" + facet + facet + "endsolid").utf8))
        #expect(ok.new == ok.old)
        #expect(
            ok.new
                == .mesh(
                    positions: [0, 0, 0, 0x3F80_0000, 0, 0, 0, 0x3F80_0000, 0], triangles: [0, 1, 2, 0, 1, 2], uvs: nil)
        )
    }

    @Test func binarySTLMatchesReference() {
        var g = SplitMix64(seed: 0xB1_57)
        var m = sphere(radius: 0.1, rings: 5, segments: 7)
        m.positions = m.positions.map { $0 + SIMD3(Float.random(in: -1e-3...1e-3, using: &g), 0, 0) }
        let b = m.stlBytes()
        #expect(Mesh.looksLikeBinarySTL(b))
        let (new, old) = Self.stl(b)
        #expect(new == old)
        #expect(new.isMesh)
    }

    // MARK: Reading files

    @Test func fileBytesReadsWholeFiles() throws {
        let dir = makeTempDir()
        var g = SplitMix64(seed: 7)
        for size in [0, 1, 65_535, 65_536, 1 << 20, 3 * (1 << 20) + 17] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &g) }
            let path = dir + "/f\(size).bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try FileBytes.read(path) == bytes, "\(size) bytes")
        }
        #expect(throws: IOFailure.self) { try FileBytes.read(dir + "/missing.obj") }
        #expect(throws: IOFailure.self) { try FileBytes.read(dir) }  // a directory: read fails
    }
}

/// Collects warnings sent to ``MeshWarnings`` by one test (others may run at the same time:
/// tests look for their own lines).
final class WarningLog: Sendable {
    private let store = Mutex<[String]>([])
    func add(_ line: String) { store.withLock { $0.append(line) } }
    var lines: [String] { store.withLock { $0 } }
}
