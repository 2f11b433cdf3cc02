import Foundation
import Testing

@testable import FaceScanExport
@testable import FaceScanInterop
@testable import FaceScanKit

/// Binary FBX written by facescan (`Mesh.fbxBytes`): its records walk as the format says (end
/// offsets, typed properties, arrays), the mesh's numbers and triangles are in it, it reads back
/// through assimp at the true size in either unit, and the same mesh gives the same bytes.
/// (Blender imports it: `ClientImportTests`.)
@Suite struct FBXTests {
    /// A box of 150 × 210 × 95 mm off the origin: a swapped or mirrored axis shows in its bounds.
    static func box() -> Mesh {
        var p: [SIMD3<Float>] = []
        for i in 0..<8 {
            p.append(
                SIMD3(Float(i & 1), Float((i >> 1) & 1), Float((i >> 2) & 1)) * SIMD3(150, 210, 95)
                    + SIMD3(-75, -100, 10))
        }
        let t: [UInt32] = [
            0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5,
        ]
        return Mesh(uncheckedPositions: p, triangles: t)
    }

    static func bounds(_ m: Mesh) -> (SIMD3<Float>, SIMD3<Float>) {
        m.positions.reduce((m.positions[0], m.positions[0])) { (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1)) }
    }

    /// A node record as read back: name, property type codes, scalar and array values, children.
    struct Node {
        var name = ""
        var types: [UInt8] = []
        var strings: [[UInt8]] = []
        var ints: [Int64] = []
        var doubles: [Double] = []
        var children: [Node] = []
        func child(_ n: String) -> Node? { children.first { $0.name == n } }
    }

    /// Reads the records of an FBX 7.4 binary file, checking every end offset and property
    /// length against the bytes actually read (a record that ends elsewhere is an error).
    struct Reader {
        let b: [UInt8]
        var i = 27
        /// FBX 7.5 and later: 64-bit end offsets, counts and lengths.
        let wide: Bool
        init(_ b: [UInt8]) {
            self.b = b
            wide = (Int(b[23]) | Int(b[24]) << 8) >= 7500
        }

        mutating func field() -> Int { wide ? Int(u64()) : u32() }

        mutating func u32() -> Int {
            defer { i += 4 }
            return Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
        }
        mutating func u64() -> UInt64 {
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
            i += 8
            return v
        }

        /// One record, or nil for a null record.
        mutating func node() throws -> Node? {
            let end = field(), count = field(), length = field()
            let nameLength = Int(b[i])
            i += 1
            if end == 0 {
                try #require(count == 0 && length == 0 && nameLength == 0)
                return nil
            }
            var n = Node(name: String(decoding: b[i..<(i + nameLength)], as: UTF8.self))
            i += nameLength
            let propsStart = i
            for _ in 0..<count {
                let type = b[i]
                i += 1
                n.types.append(type)
                switch UnicodeScalar(type) {
                case "I": n.ints.append(Int64(Int32(truncatingIfNeeded: u32())))
                case "L": n.ints.append(Int64(bitPattern: u64()))
                case "D": n.doubles.append(Double(bitPattern: u64()))
                case "S", "R":
                    let len = u32()
                    n.strings.append(Array(b[i..<(i + len)]))
                    i += len
                case "d", "i":
                    let len = u32(), encoding = u32(), bytes = u32()
                    try #require(encoding == 0 && bytes == len * (type == UInt8(ascii: "d") ? 8 : 4))
                    for _ in 0..<len {
                        if type == UInt8(ascii: "d") {
                            n.doubles.append(Double(bitPattern: u64()))
                        } else {
                            n.ints.append(Int64(Int32(truncatingIfNeeded: u32())))
                        }
                    }
                default:
                    Issue.record("unexpected property type \(type) in \(n.name)")
                    return nil
                }
            }
            try #require(i - propsStart == length, "\(n.name): property length")
            while i < end {
                guard let child = try node() else { break }
                n.children.append(child)
            }
            try #require(i == end, "\(n.name): ends at \(i), record says \(end)")
            return n
        }

        /// The top-level records, up to the null record.
        mutating func all() throws -> [Node] {
            var out: [Node] = []
            while let n = try node() { out.append(n) }
            return out
        }
    }

    @Test func recordsHoldTheMeshAndTheUnit() throws {
        let mesh = Self.box()
        let bytes = try mesh.fbxBytes(centimetresPerUnit: 0.1)
        #expect(bytes.starts(with: Array("Kaydara FBX Binary  ".utf8) + [0, 0x1a, 0, 0xe8, 0x1c, 0, 0]))  // 7400
        var reader = Reader(bytes)
        let top = try reader.all()
        #expect(
            top.map(\.name) == [
                "FBXHeaderExtension", "FileId", "CreationTime", "Creator", "GlobalSettings", "Documents", "References",
                "Definitions", "Objects", "Connections",
            ])
        // The footer: its id right after the root's null record, the fixed magic at the end.
        #expect(Array(bytes[reader.i..<(reader.i + 16)]) == FBXWriter.footerID)
        #expect(bytes.suffix(16).elementsEqual(FBXWriter.footerMagic))
        #expect((bytes.count - 16 - 120 - 4) % 16 == 0, "the footer's version is 16-byte aligned")

        let settings = try #require(top.first { $0.name == "GlobalSettings" }?.child("Properties70"))
        func prop(_ name: String) -> Node? { settings.children.first { $0.strings.first == Array(name.utf8) } }
        #expect(prop("UnitScaleFactor")?.doubles == [0.1])
        #expect(prop("UpAxis")?.ints == [1] && prop("FrontAxis")?.ints == [2] && prop("CoordAxis")?.ints == [0])
        #expect(MeshIO.fbxUnitScaleFactor(bytes) == 0.1)
        #expect(MeshIO.fbxUnitScaleFactor(try mesh.fbxBytes(centimetresPerUnit: 100)) == 100)

        let objects = try #require(top.first { $0.name == "Objects" })
        let geometry = try #require(objects.child("Geometry"))
        #expect(geometry.strings == [Array("Mesh".utf8) + [0, 1] + Array("Geometry".utf8), Array("Mesh".utf8)])
        let vertices = try #require(geometry.child("Vertices")?.doubles)
        #expect(vertices == mesh.positions.flatMap { [Double($0.x), Double($0.y), Double($0.z)] })
        let polygons = try #require(geometry.child("PolygonVertexIndex")?.ints)
        #expect(polygons.count == mesh.triangles.count)
        // The last index of each polygon is negated bitwise; every polygon is a triangle.
        for (k, v) in polygons.enumerated() {
            #expect((v < 0) == (k % 3 == 2))
            #expect((v < 0 ? ~v : v) == Int64(mesh.triangles[k]), "index \(k)")
        }
        let normals = try #require(geometry.child("LayerElementNormal")?.child("Normals")?.doubles)
        #expect(normals.count == 3 * mesh.vertexCount)
        for k in 0..<mesh.vertexCount {
            let n = normals[(3 * k)..<(3 * k + 3)]
            #expect(abs(n.reduce(0) { $0 + $1 * $1 } - 1) < 1e-6, "normal \(k) is not unit length")
        }
        let model = try #require(objects.child("Model"))
        let connections = try #require(top.first { $0.name == "Connections" }).children
        #expect(connections.map(\.ints) == [[model.ints[0], 0], [geometry.ints[0], model.ints[0]]])
    }

    /// FBX 7.5 (what facescan writes past 4 GiB): 64-bit record fields and null records; the same
    /// records, and assimp reads it.
    @Test func version7500HasWideRecords() throws {
        let mesh = Self.box()
        let bytes = try mesh.fbxBytes(centimetresPerUnit: 0.1, version: 7500)
        #expect(bytes[23] == 0x4c && bytes[24] == 0x1d)  // 7500
        var reader = Reader(bytes)
        let top = try reader.all()
        #expect(top.count == 10 && top.last?.name == "Connections")
        #expect(Array(bytes[reader.i..<(reader.i + 16)]) == FBXWriter.footerID)
        let header = try #require(top.first?.children.first { $0.name == "FBXVersion" })
        #expect(header.ints == [7500])
        let geometry = try #require(top.first { $0.name == "Objects" }?.child("Geometry"))
        #expect(geometry.child("PolygonVertexIndex")?.ints.count == mesh.triangles.count)
        let dir = FileManager.default.temporaryDirectory.path + "/facescan-fbx7500-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFile.write(bytes, to: dir + "/box.fbx")
        let back = try MeshIO.read(path: dir + "/box.fbx")
        #expect(back.triangleCount == 12)
        #expect(abs(Self.bounds(back).1.y - 110) < 1e-3)
    }

    /// No clock in the file: the header's creation time (checked) and the footer are fixed, so
    /// writes of equal meshes are the same bytes.
    @Test func sameMeshSameBytes() throws {
        let first = try Self.box().fbxBytes()
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(first.firstRange(of: Array("1970-01-01 10:00:00:000".utf8)) != nil)
        #expect(first.firstRange(of: Array(String(year).utf8)) == nil, "the year \(year) is in the file")
        #expect(first.firstRange(of: FBXWriter.fileID) != nil)
        #expect(try Self.box().fbxBytes() == first)
        #expect(try MeshIO.bytes(Self.box(), format: .fbx) == first)
    }

    /// Through assimp, the project's reader: the same triangles at the same size, whatever the
    /// unit the file was written in and the unit asked for.
    @Test(arguments: [LengthUnit.mm, .m])
    func readsBackThroughAssimp(written: LengthUnit) throws {
        var mesh = Self.box()
        if written == .m { mesh = MeshIO.converted(mesh, factor: 0.001, name: "box") }
        let dir = FileManager.default.temporaryDirectory.path + "/facescan-fbx-\(getpid())-\(written.rawValue)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try MeshIO.write(mesh, to: dir + "/box.fbx", unit: written)
        let back = try MeshIO.read(path: dir + "/box.fbx", unit: .mm)
        #expect(back.triangleCount == 12)
        #expect(MeshCheck(back).isWatertight)
        let (lo, hi) = Self.bounds(back), (elo, ehi) = Self.bounds(Self.box())
        let d0 = lo - elo, d1 = hi - ehi
        let e = [d0.x, d0.y, d0.z, d1.x, d1.y, d1.z].map { abs($0) }.max() ?? 0
        #expect(e < 1e-3, "\(written): read back \(lo)…\(hi), wrote \(elo)…\(ehi) mm")
        let inMetres = try MeshIO.read(path: dir + "/box.fbx", unit: .m)
        #expect(abs(Self.bounds(inMetres).1.y - 0.11) < 1e-6)
    }
}
