import FaceScanCore

extension Mesh {
    /// Binary FBX 7.4 (FBX 7.5, with 64-bit record offsets, when the file would pass 4 GiB),
    /// written by facescan itself: Blender's importer refuses ASCII FBX, and assimp cannot read
    /// its own binary FBX export.
    ///
    /// The coordinates are the mesh's own numbers (in double precision) and `GlobalSettings`
    /// states their unit as `UnitScaleFactor`, centimetres per unit (`centimetresPerUnit`: 0.1
    /// for millimetres, 100 for metres), with Y up, Z front and X right, so that readers which
    /// apply it (Blender, FBX SDK; facescan's reader through `MeshIO`) get the true size and
    /// axes. One `Geometry` ("Mesh": `Vertices`, `PolygonVertexIndex` with the last index of
    /// each triangle bitwise negated, unit vertex normals `ByVertice`; a vertex without area
    /// gets +z), one `Model` connected to the scene root and the geometry connected to the
    /// model. Arrays are stored uncompressed. The header's creation time, the `FileId` and the
    /// footer are fixed values: same mesh, same bytes.
    ///
    /// Throws ``UsageError`` when a vertex index does not fit FBX's 32-bit signed indices.
    public func fbxBytes(centimetresPerUnit: Double = 0.1) throws(UsageError) -> [UInt8] {
        try fbxBytes(centimetresPerUnit: centimetresPerUnit, version: nil)
    }

    /// ``fbxBytes(centimetresPerUnit:)`` in FBX `version` (7400 or 7500); nil chooses by size.
    func fbxBytes(centimetresPerUnit: Double, version: Int?) throws(UsageError) -> [UInt8] {
        guard vertexCount <= Int(Int32.max) else {
            throw UsageError("FBX holds at most \(Int32.max) vertices; the mesh has \(vertexCount)")
        }
        // 8-byte doubles for positions and normals, 4-byte indices, and the small nodes.
        let estimate = 48 * vertexCount + 4 * triangles.count + (1 << 16)
        var w = FBXWriter(version: version ?? (estimate > Int(UInt32.max) ? 7500 : 7400))
        w.reserve(estimate)
        w.header()
        writeFBXNodes(&w, centimetresPerUnit: centimetresPerUnit)
        w.footer()
        return w.bytes
    }

    /// The object ids of the file: the document, the model and the geometry.
    private static let fbxDocumentID: Int64 = 1_000_000
    private static let fbxModelID: Int64 = 1_000_001
    private static let fbxGeometryID: Int64 = 1_000_002

    /// The top-level records, in file order.
    private func writeFBXNodes(_ w: inout FBXWriter, centimetresPerUnit: Double) {
        Self.writeFBXHeaderNodes(&w)
        Self.writeFBXGlobalSettings(&w, centimetresPerUnit: centimetresPerUnit)
        Self.writeFBXDocument(&w)
        w.node("Objects") { w in
            writeFBXGeometry(&w)
            w.node("Model", [.int64(Self.fbxModelID), .name("Mesh", class: "Model"), .string("Mesh")]) { w in
                w.node("Version", [.int32(232)])
                w.node("Culling", [.string("CullingOff")])
            }
        }
        w.node("Connections") { w in
            w.node("C", [.string("OO"), .int64(Self.fbxModelID), .int64(0)])
            w.node("C", [.string("OO"), .int64(Self.fbxGeometryID), .int64(Self.fbxModelID)])
        }
    }

    /// `FBXHeaderExtension` (versions, the fixed creation time, the creator), `FileId`,
    /// `CreationTime` and `Creator`.
    private static func writeFBXHeaderNodes(_ w: inout FBXWriter) {
        let t = FBXWriter.fixedTime
        w.node("FBXHeaderExtension") { w in
            w.node("FBXHeaderVersion", [.int32(1003)])
            w.node("FBXVersion", [.int32(Int32(w.version))])
            w.node("EncryptionType", [.int32(0)])
            w.node("CreationTimeStamp") { w in
                w.node("Version", [.int32(1000)])
                for (name, value) in [
                    ("Year", t.year), ("Month", t.month), ("Day", t.day), ("Hour", t.hour), ("Minute", 0),
                    ("Second", 0), ("Millisecond", 0),
                ] {
                    w.node(name, [.int32(value)])
                }
            }
            w.node("Creator", [.string("facescan")])
        }
        w.node("FileId", [.raw(FBXWriter.fileID)])
        w.node("CreationTime", [.string(t.text)])
        w.node("Creator", [.string("facescan")])
    }

    /// `GlobalSettings`: the axes and the unit.
    private static func writeFBXGlobalSettings(_ w: inout FBXWriter, centimetresPerUnit: Double) {
        w.node("GlobalSettings") { w in
            w.node("Version", [.int32(1000)])
            w.node("Properties70") { w in
                // Y up, Z front (+1), X right (+1): a right-handed y-up system, as OBJ and glTF.
                for (name, value) in [
                    ("UpAxis", 1), ("UpAxisSign", 1), ("FrontAxis", 2), ("FrontAxisSign", 1), ("CoordAxis", 0),
                    ("CoordAxisSign", 1), ("OriginalUpAxis", 1), ("OriginalUpAxisSign", 1),
                ] as [(String, Int32)] {
                    w.property(name, "int", "Integer", [.int32(value)])
                }
                w.property("UnitScaleFactor", "double", "Number", [.double(centimetresPerUnit)])
                w.property("OriginalUnitScaleFactor", "double", "Number", [.double(centimetresPerUnit)])
            }
        }
    }

    /// `Documents` (one scene), `References` (none) and `Definitions` (the object types used).
    private static func writeFBXDocument(_ w: inout FBXWriter) {
        w.node("Documents") { w in
            w.node("Count", [.int32(1)])
            w.node("Document", [.int64(fbxDocumentID), .string("Scene"), .string("Scene")]) { w in
                w.node("RootNode", [.int64(0)])
            }
        }
        w.node("References", [])
        w.node("Definitions") { w in
            w.node("Version", [.int32(100)])
            w.node("Count", [.int32(3)])
            for type in ["GlobalSettings", "Model", "Geometry"] {
                w.node("ObjectType", [.string(type)]) { w in w.node("Count", [.int32(1)]) }
            }
        }
    }

    /// The `Geometry` record: vertices, triangles (each one's last index negated) and a layer of
    /// unit vertex normals.
    private func writeFBXGeometry(_ w: inout FBXWriter) {
        w.node("Geometry", [.int64(Self.fbxGeometryID), .name("Mesh", class: "Geometry"), .string("Mesh")]) { w in
            w.node("GeometryVersion", [.int32(124)])
            w.doubleArrayNode("Vertices", count: 3 * vertexCount) { out in
                for p in positions {
                    out(Double(p.x)); out(Double(p.y)); out(Double(p.z))
                }
            }
            w.int32ArrayNode("PolygonVertexIndex", count: triangles.count) { out in
                for (i, t) in triangles.enumerated() {
                    // Every third index closes a triangle: stored as its bitwise negation.
                    let v = Int32(truncatingIfNeeded: t)
                    out(i % 3 == 2 ? ~v : v)
                }
            }
            let normals = vertexNormals()
            w.node("LayerElementNormal", [.int32(0)]) { w in
                w.node("Version", [.int32(101)])
                w.node("Name", [.string("")])
                w.node("MappingInformationType", [.string("ByVertice")])
                w.node("ReferenceInformationType", [.string("Direct")])
                w.doubleArrayNode("Normals", count: 3 * normals.count) { out in
                    for q in normals {
                        let u = q == .zero ? SIMD3<Float>(0, 0, 1) : q
                        out(Double(u.x)); out(Double(u.y)); out(Double(u.z))
                    }
                }
            }
            w.node("Layer", [.int32(0)]) { w in
                w.node("Version", [.int32(100)])
                w.node("LayerElement") { w in
                    w.node("Type", [.string("LayerElementNormal")])
                    w.node("TypedIndex", [.int32(0)])
                }
            }
        }
    }
}

/// A property of an FBX node record, as stored in the binary format.
enum FBXProperty {
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    /// `S`: a string, UTF-8.
    case string(String)
    /// `S`: an object's name and class, stored as `name \0 \x01 class`.
    case name(String, class: String)
    /// `R`: raw bytes.
    case raw([UInt8])
}

/// Writes FBX binary node records into one byte array. A record's end offset and property
/// length are written as zero and filled in once its properties and children are written;
/// offsets are absolute (from the start of the file), 32-bit before FBX 7.5, 64-bit from 7.5.
struct FBXWriter {
    private(set) var bytes: [UInt8] = []
    let version: Int
    private var wide: Bool { version >= 7500 }
    /// A record's header: end offset, property count, property bytes.
    private var fieldSize: Int { wide ? 8 : 4 }

    /// The fixed creation time of every file. FBX SDK checks the `FileId` and the footer's id
    /// against the creation time; these are the values known to go with this time (they are the
    /// ones Blender's exporter writes).
    static let fixedTime = (
        text: "1970-01-01 10:00:00:000", year: Int32(1970), month: Int32(1), day: Int32(1), hour: Int32(10)
    )
    static let fileID: [UInt8] = [
        0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2, 0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1,
    ]
    static let footerID: [UInt8] = [
        0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66, 0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e,
    ]
    static let footerMagic: [UInt8] = [
        0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b,
    ]

    init(version: Int) { self.version = version }

    mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }

    /// "Kaydara FBX Binary", two spaces, NUL, 0x1A, NUL, then the version.
    mutating func header() {
        bytes += Array("Kaydara FBX Binary  ".utf8) + [0, 0x1a, 0]
        u32(UInt32(version))
    }

    /// The root's closing null record, then the footer: its id, 4 zero bytes, zero padding to
    /// the next multiple of 16 (16 when already aligned), the version, 120 zero bytes, the magic.
    mutating func footer() {
        bytes += [UInt8](repeating: 0, count: 1 + 3 * fieldSize)
        bytes += Self.footerID + [0, 0, 0, 0]
        let pad = (16 - bytes.count % 16) % 16
        bytes += [UInt8](repeating: 0, count: pad == 0 ? 16 : pad)
        u32(UInt32(version))
        bytes += [UInt8](repeating: 0, count: 120)
        bytes += Self.footerMagic
    }

    /// A record named `name` with `properties`, then the records `children` writes (followed by
    /// a null record). A record with neither properties nor children is closed by a null record.
    mutating func node(_ name: String, _ properties: [FBXProperty] = [], children: ((inout FBXWriter) -> Void)? = nil) {
        let start = begin(name)
        let propsStart = bytes.count
        for p in properties { property(p) }
        finishProperties(start, count: properties.count, from: propsStart)
        if let children {
            children(&self)
            bytes += [UInt8](repeating: 0, count: 1 + 3 * fieldSize)
        } else if properties.isEmpty {
            bytes += [UInt8](repeating: 0, count: 1 + 3 * fieldSize)
        }
        end(start)
    }

    /// `P: name, type, label, "", values…` in a `Properties70` record.
    mutating func property(_ name: String, _ type: String, _ label: String, _ values: [FBXProperty]) {
        node("P", [.string(name), .string(type), .string(label), .string("")] + values)
    }

    /// A record holding one `d` array of `count` doubles, which `fill` appends in order.
    mutating func doubleArrayNode(_ name: String, count: Int, _ fill: ((Double) -> Void) -> Void) {
        array(name, type: "d", count: count, stride: 8) { (out: inout ByteWriter) in
            fill { v in out.float64LE(v) }
        }
    }

    /// A record holding one `i` array of `count` 32-bit integers, which `fill` appends in order.
    mutating func int32ArrayNode(_ name: String, count: Int, _ fill: ((Int32) -> Void) -> Void) {
        array(name, type: "i", count: count, stride: 4) { (out: inout ByteWriter) in
            fill { v in out.littleEndian(UInt32(bitPattern: v)) }
        }
    }

    // MARK: - Records

    private mutating func begin(_ name: String) -> Int {
        let start = bytes.count
        bytes += [UInt8](repeating: 0, count: 3 * fieldSize)
        let n = Array(name.utf8)
        bytes.append(UInt8(n.count))
        bytes += n
        return start
    }

    private mutating func finishProperties(_ start: Int, count: Int, from propsStart: Int) {
        patch(at: start + fieldSize, count)
        patch(at: start + 2 * fieldSize, bytes.count - propsStart)
    }

    private mutating func end(_ start: Int) { patch(at: start, bytes.count) }

    private mutating func patch(at offset: Int, _ value: Int) {
        for k in 0..<fieldSize { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    /// Type code, element count, encoding 0 (raw), byte length, the elements.
    private mutating func array(
        _ name: String, type: Character, count: Int, stride: Int, _ fill: (inout ByteWriter) -> Void
    ) {
        let start = begin(name)
        let propsStart = bytes.count
        // FBX states an array's count and byte length in 32 bits.
        precondition(count * stride <= Int(UInt32.max), "FBX: an array of \(count * stride) bytes, over 4 GiB")
        bytes.append(type.asciiValue!)
        u32(UInt32(count))
        u32(0)
        u32(UInt32(count * stride))
        if count > 0 { ByteWriter.append(to: &bytes, count: count * stride, fill) }
        finishProperties(start, count: 1, from: propsStart)
        end(start)
    }

    private mutating func property(_ p: FBXProperty) {
        switch p {
        case .int32(let v):
            bytes.append(UInt8(ascii: "I"))
            u32(UInt32(bitPattern: v))
        case .int64(let v):
            bytes.append(UInt8(ascii: "L"))
            u64(UInt64(bitPattern: v))
        case .double(let v):
            bytes.append(UInt8(ascii: "D"))
            u64(v.bitPattern)
        case .string(let s):
            blob("S", Array(s.utf8))
        case .name(let name, let cls):
            blob("S", Array(name.utf8) + [0, 1] + Array(cls.utf8))
        case .raw(let b):
            blob("R", b)
        }
    }

    private mutating func blob(_ type: Unicode.Scalar, _ b: [UInt8]) {
        bytes.append(UInt8(ascii: type))
        u32(UInt32(truncatingIfNeeded: b.count))
        bytes += b
    }

    private mutating func u32(_ v: UInt32) {
        for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
    }

    private mutating func u64(_ v: UInt64) {
        for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }
}
