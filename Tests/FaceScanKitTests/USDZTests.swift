import CZlib
import Foundation
import Testing

@testable import FaceScanCore
@testable import FaceScanExport
@testable import FaceScanInterop

/// USDZ's parts without Pixar's USD (which USDZClientTests drives): the zip's layout and CRC-32
/// (against zlib's), USD's integer coding on the example of OpenUSD's integerCoding.cpp, the LZ4
/// literal framing, and the crate read back by a small reader of the sections facescan writes.
@Suite struct USDZTests {
    @Test func crcIsZlibs() {
        #expect(StoredZip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        var rng = SystemRandomNumberGenerator()
        for n in [0, 1, 7, 255, 4096, 100_003] {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let z = bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
            #expect(StoredZip.crc32(bytes) == z, "\(n) bytes")
        }
    }

    /// Every entry's data on a multiple of 64 whatever the name and size before it; headers as
    /// the zip format lays them out; the central directory where the end record says.
    @Test func entriesAreStoredAndAligned() throws {
        for nameLength in 1...70 {
            let entries = [
                StoredZip.Entry(
                    name: String(repeating: "a", count: nameLength) + ".usdc", bytes: Array(0..<UInt8(nameLength))),
                StoredZip.Entry(name: "texture.png", bytes: [UInt8](repeating: 7, count: 3 * nameLength)),
            ]
            let zip = try #require(StoredZip.archive(entries))
            let z = Bytes(zip)
            var at = 0
            for e in entries {
                #expect(z.u32(at) == 0x0403_4b50)
                #expect(z.u16(at + 8) == 0, "stored")
                #expect(z.u16(at + 10) == 0 && z.u16(at + 12) == 0x21, "fixed date 1980-01-01")
                #expect(z.u32(at + 14) == StoredZip.crc32(e.bytes))
                #expect(z.u32(at + 18) == UInt32(e.bytes.count) && z.u32(at + 22) == UInt32(e.bytes.count))
                let data = at + 30 + Int(z.u16(at + 26)) + Int(z.u16(at + 28))
                #expect(data % 64 == 0, "\(nameLength): data at \(data)")
                #expect(Array(zip[data..<(data + e.bytes.count)]) == e.bytes)
                at = data + e.bytes.count
            }
            let end = zip.count - 22
            #expect(z.u32(end) == 0x0605_4b50 && z.u16(end + 10) == 2)
            #expect(Int(z.u32(end + 16)) == at && Int(z.u32(end + 12)) == end - at)
            #expect(z.u32(at) == 0x0201_4b50)
        }
    }

    /// OpenUSD's own example: [123, 124, 125, 100125, 100125, 100126, 100126] → deltas
    /// [123, 1, 1, 100000, 0, 1, 0], common value 1, codes 01 00 00 11 | 01 00 01, then
    /// int8(123) int32(100000) int8(0) int8(0).
    @Test func integerCodingMatchesOpenUSDsExample() {
        let coded = UsdCrate.integerCoded([123, 124, 125, 100125, 100125, 100126, 100126])
        #expect(coded == [1, 0, 0, 0, 0xC1, 0x11, 123, 0xA0, 0x86, 0x01, 0x00, 0, 0])
        #expect(Crate.decodeInts(coded, count: 7) == [123, 124, 125, 100125, 100125, 100126, 100126])
        let mixed: [UInt32] = [0, 5, UInt32.max, 70_000, 3, 3, 3, 2, UInt32.max]
        #expect(Crate.decodeInts(UsdCrate.integerCoded(mixed), count: mixed.count) == mixed)
    }

    @Test func literalBlocksCountTheirLength() {
        for (n, head) in [
            (0, [0x00]), (14, [0xE0]), (15, [0xF0, 0]), (269, [0xF0, 254]), (270, [0xF0, 255, 0]),
            (600, [0xF0, 255, 255, 75]),
        ] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0) }
            let block = UsdCrate.fastCompressed(bytes)
            #expect(Array(block.prefix(1 + head.count)) == [0] + head.map(UInt8.init), "\(n)")
            #expect(Crate.literals(block) == bytes, "\(n)")
        }
    }

    /// The layer read back: the bootstrap, the six sections in order up to the table of
    /// contents, the specs' paths, and the points in metres turned y up for a part.
    @Test func crateReadsBack() throws {
        let mesh = try Mesh(
            positions: [[0, 0, 0], [100, 0, 0], [0, 50, 0], [0, 0, 25]],
            triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
        for printing in [false, true] {
            let layer = mesh.usdcBytes(metresPerUnit: 0.001, printingPosition: printing, textured: false)
            let c = try Crate(layer)
            #expect(Array(layer.prefix(8)) == Array("PXR-USDC".utf8) && Array(layer[8..<11]) == [0, 8, 0])
            #expect(c.sections.map(\.name) == ["TOKENS", "STRINGS", "FIELDS", "FIELDSETS", "PATHS", "SPECS"])
            #expect(c.sections.last.map { $0.start + $0.size } == c.tocOffset)
            for (a, b) in zip(c.sections, c.sections.dropFirst()) { #expect(a.start + a.size == b.start) }
            let points = try #require(c.vec3fArray(path: "/face/mesh.points", field: "default"))
            let expected = mesh.positions.map { p in
                let m = SIMD3<Float>(Float(Double(p.x) * 0.001), Float(Double(p.y) * 0.001), Float(Double(p.z) * 0.001))
                return printing ? SIMD3(m.x, m.z, -m.y) : m
            }
            #expect(points == expected, "printing \(printing)")
            #expect(c.paths.contains("/face/material/surface.inputs:diffuseColor"))
            #expect(c.paths.contains("/face/mesh.doubleSided") == !printing)
        }
        #expect(mesh.usdzBytes() == mesh.usdzBytes(), "same mesh, same bytes")
        // The library's format enum: the untextured clay in millimetres, y up; written, not read.
        let usdz = try mesh.encoded(as: .usdz)
        let again = try mesh.encoded(as: .usdz), metres = try mesh.encoded(as: .usdz, unit: .m)
        #expect(usdz == mesh.usdzBytes(metresPerUnit: 0.001) && usdz == again)
        #expect(metres == mesh.usdzBytes(metresPerUnit: 1) && metres != usdz)
        #expect(throws: FaceScanError.self) { try Mesh(bytes: usdz, format: .usdz) }
        // A texture without UVs is left out: one entry, the clay.
        #expect(mesh.usdzBytes(texturePNG: [1, 2, 3]) == mesh.usdzBytes())
    }

    /// USDZ's points stay finite at the largest float: metres from millimetres shrink them, and
    /// metres stay as they are.
    @Test func pointsAtTheLargestFloatStayFinite() throws {
        let big = Float.greatestFiniteMagnitude
        let mesh = try Mesh(
            positions: [[big, 0, 0], [0, big, 0], [0, 0, big], [-big, -big, -big]], triangles: [0, 1, 2, 0, 2, 3])
        for unit in [LengthUnit.mm, .m] {
            let layer = mesh.usdcBytes(metresPerUnit: unit.millimetres / 1000, printingPosition: false, textured: false)
            let points = try #require(try Crate(layer).vec3fArray(path: "/face/mesh.points", field: "default"))
            #expect(
                points.count == 4 && points.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "\(unit)")
        }
    }
}

/// Little-endian reads from bytes.
struct Bytes {
    let b: [UInt8]
    init(_ b: [UInt8]) { self.b = b }
    func u16(_ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    func u32(_ i: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(b[i + $1]) << (8 * UInt32($1)) } }
    func u64(_ i: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[i + $1]) << (8 * UInt64($1)) } }
}

/// A reader of the crate files facescan writes (literal-only LZ4, uncompressed arrays): enough to
/// check the layout and read values back.
struct Crate {
    struct Section { var name: String, start: Int, size: Int }
    var sections: [Section] = []
    var tocOffset = 0
    var tokens: [String] = []
    var paths: [String] = []
    var specs: [(path: String, fields: [(String, UInt64)])] = []
    let z: Bytes

    init(_ bytes: [UInt8]) throws {
        z = Bytes(bytes)
        tocOffset = Int(z.u64(16))
        for k in 0..<Int(z.u64(tocOffset)) {
            let at = tocOffset + 8 + 32 * k
            let name = String(decoding: bytes[at..<(at + 16)].prefix { $0 != 0 }, as: UTF8.self)
            sections.append(Section(name: name, start: Int(z.u64(at + 16)), size: Int(z.u64(at + 24))))
        }
        func start(_ n: String) throws -> Int { try #require(sections.first { $0.name == n }).start }
        var p = try start("TOKENS")
        let n = Int(z.u64(p)), compressed = Int(z.u64(p + 16))
        tokens = Array(
            Self.literals(Array(bytes[(p + 24)..<(p + 24 + compressed)])).split(
                separator: 0, omittingEmptySubsequences: false
            ).prefix(n).map { String(decoding: $0, as: UTF8.self) })
        func ints(_ at: inout Int, _ count: Int) -> [UInt32] {
            let size = Int(z.u64(at))
            let out = Self.decodeInts(Self.literals(Array(bytes[(at + 8)..<(at + 8 + size)])), count: count)
            at += 8 + size
            return out
        }
        p = try start("FIELDS")
        let nf = Int(z.u64(p))
        p += 8
        let fieldTokens = ints(&p, nf)
        let reps = Bytes(Self.literals(Array(bytes[(p + 8)..<(p + 8 + Int(z.u64(p)))])))
        p = try start("FIELDSETS")
        var q = p + 8
        let sets = ints(&q, Int(z.u64(p)))
        p = try start("PATHS")
        paths = [String](repeating: "", count: Int(z.u64(p)))
        let ne = Int(z.u64(p + 8))
        q = p + 16
        let pi = ints(&q, ne), et = ints(&q, ne).map { Int32(bitPattern: $0) },
            jumps = ints(&q, ne).map { Int32(bitPattern: $0) }
        var stack: [(index: Int, parent: String)] = [(0, "")]
        while let (start, parent) = stack.popLast() {
            var i = start, parent = parent
            while true {
                let path =
                    parent.isEmpty
                    ? "/"
                    : et[i] < 0
                        ? parent + "." + tokens[Int(-et[i])] : (parent == "/" ? "" : parent) + "/" + tokens[Int(et[i])]
                paths[Int(pi[i])] = path
                let j = jumps[i]
                if j > 0 { stack.append((i + Int(j), parent)) }
                if j > 0 || j == -1 { parent = path; i += 1 } else if j == 0 { i += 1 } else { break }
            }
        }
        p = try start("SPECS")
        q = p + 8
        let count = Int(z.u64(p))
        let sp = ints(&q, count), sf = ints(&q, count)
        for k in 0..<count {
            var fields: [(String, UInt64)] = []
            var i = Int(sf[k])
            while sets[i] != UInt32.max {
                let f = Int(sets[i])
                fields.append((tokens[Int(fieldTokens[f])], reps.u64(8 * f)))
                i += 1
            }
            specs.append((paths[Int(sp[k])], fields))
        }
    }

    /// A Vec3f[] field's elements.
    func vec3fArray(path: String, field: String) -> [SIMD3<Float>]? {
        guard let rep = specs.first(where: { $0.path == path })?.fields.first(where: { $0.0 == field })?.1,
            rep >> 63 == 1, (rep >> 48) & 0xFF == 24
        else { return nil }
        let at = Int(rep & (1 << 48 - 1)), n = Int(z.u64(at))
        return (0..<n).map { i in
            let f = { (k: Int) in Float(bitPattern: z.u32(at + 8 + 12 * i + 4 * k)) }
            return SIMD3(f(0), f(1), f(2))
        }
    }

    /// The bytes of a TfFastCompression block of one chunk holding literals only.
    static func literals(_ block: [UInt8]) -> [UInt8] {
        precondition(block.first == 0, "one chunk")
        var i = 2, n = Int(block[1] >> 4)
        if n == 15 {
            while true {
                let b = Int(block[i])
                i += 1
                n += b
                if b != 255 { break }
            }
        }
        return Array(block[i..<(i + n)])
    }

    /// USD's integer decoding.
    static func decodeInts(_ data: [UInt8], count: Int) -> [UInt32] {
        let z = Bytes(data)
        let common = Int32(bitPattern: z.u32(0))
        var v = 4 + (2 * count + 7) / 8, previous: Int32 = 0, out: [UInt32] = []
        for k in 0..<count {
            let code = (data[4 + k / 4] >> (2 * UInt8(k % 4))) & 3
            let d: Int32
            switch code {
            case 0: d = common
            case 1: d = Int32(Int8(bitPattern: data[v])); v += 1
            case 2: d = Int32(Int16(bitPattern: z.u16(v))); v += 2
            default: d = Int32(bitPattern: z.u32(v)); v += 4
            }
            previous = previous &+ d
            out.append(UInt32(bitPattern: previous))
        }
        return out
    }
}
