import FaceScanCore
import FaceScanExport
import FaceScanRender

/// The one entry point for mesh files: OBJ, STL and GLB go through facescan's own readers and
/// writers, 3MF through ``Lib3MFIO`` (lib3mf), everything else through ``AssimpIO`` (binary FBX
/// is written by facescan, ``Mesh/fbxBytes(centimetresPerUnit:)``, and read through assimp).
///
/// Units: a format that states its length unit is written so that a reader gets the true size,
/// whatever unit the mesh is in — GLB in metres (glTF's unit), COLLADA in metres under
/// `<unit meter="1">`, X3D in metres (its default unit), binary FBX in the mesh's own numbers
/// under `UnitScaleFactor` (centimetres per unit: 0.1 for mm, 100 for m), 3MF in millimetres
/// (`unit="millimeter"`).
/// Unit-less formats (STL, OBJ, PLY, DirectX .x, 3DS) carry the mesh's own unit. Reading does
/// the reverse: a file with a stated unit comes back in the unit asked for.
package enum MeshIO {
    /// File extensions written through assimp, with the export format id used for each (the
    /// ``FileFormat`` table's). Left out on purpose (assimp 5.2): `3mf` (the exporter writes an
    /// archive without the mesh; facescan writes 3MF through lib3mf), FBX (assimp cannot read its
    /// own binary FBX back, and Blender refuses ASCII FBX; facescan writes binary FBX itself), glTF
    /// (the exporter declares extensions it does not use; facescan writes GLB itself) and STEP
    /// (assimp cannot read it back).
    static let assimpExportIDs: [String: String] = Dictionary(
        uniqueKeysWithValues: FileFormat.all.compactMap { f in f.assimpExportID.map { (f.name, $0) } })

    /// File extensions ``write(_:to:format:unit:)`` understands (``FileFormat/writableMeshNames``).
    package static var writableExtensions: [String] { FileFormat.writableMeshNames }

    /// Millimetres per unit of the length unit a format states, by file extension or export id;
    /// nil for unit-less formats (their coordinates are in whatever unit the run uses).
    package static func statedUnitMillimetres(format: String) -> Double? {
        FileFormat.named(format)?.statedUnitMillimetres
    }

    /// The one message for a format name that is no mesh format facescan writes.
    package static func unknownMeshFormat(_ name: String) -> UsageError {
        UsageError("unknown mesh format '\(name)'; use one of \(writableExtensions.joined(separator: ", "))")
    }

    /// Reads a mesh: OBJ and STL natively (also `-` for standard input), 3MF through lib3mf, any
    /// other format through assimp. A file that states its unit (see ``statedUnitMillimetres(format:)``)
    /// comes back in `unit`; a unit-less file is taken to be in `unit` already. A file without a
    /// triangle is an error. Throws ``FaceScanError/io(_:)`` or ``FaceScanError/badInput(_:)``.
    package static func read(path: String, unit: LengthUnit = .mm) throws(FaceScanError) -> Mesh {
        if path != "-" && AtomicFile.isDirectoryFollowingLinks(path) {
            throw .io(IOFailure(path: path, "is a directory"))
        }
        if path == "-" || MeshFormat(path: path)?.isNative == true {
            let mesh = try Mesh.read(path: path)
            guard mesh.triangleCount > 0 else { throw .badInput(InputError(file: path, "the file holds no triangles")) }
            return mesh
        }
        let format = FileFormat(path: path)
        var mesh: Mesh
        if format == .threeMF {
            mesh = try Lib3MFIO.parse(lift { () throws(IOFailure) in try FileBytes.read(path) }, name: path)
        } else {
            mesh = try AssimpIO.read(path: path)
        }
        var stated = format?.statedUnitMillimetres
        if format == .fbx,
            let factor = fbxUnitScaleFactor(
                try lift { () throws(IOFailure) in try FileBytes.read(path, upTo: fbxHeaderLimit) })
        {
            stated = 10 * factor  // assimp leaves FBX coordinates in the file's unit
        }
        if let stated {
            mesh = converted(mesh, factor: stated / unit.millimetres, name: path)
        }
        guard mesh.positions.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
            throw .badInput(
                InputError(file: path, field: "vertex", "coordinates do not fit 32-bit floats in \(unit.rawValue)"))
        }
        return mesh
    }

    /// The bytes of `mesh` (coordinates in `unit`) in `format`. A format with a stated unit is
    /// written in it (see the type's notes); 3MF embeds `thumbnail` (PNG bytes) as its package
    /// thumbnail, or renders one (256 pixels, front view) when nil, and `texturePNG`, when given,
    /// as the texture of a mesh with UVs. Formats that are no mesh
    /// facescan writes (PNG, glTF) and formats that need more than one file are refused
    /// (``FaceScanError/badSetting(_:)``); ``FaceScanError/io(_:)`` when a writer fails.
    package static func bytes(
        _ mesh: Mesh, format: FileFormat, unit: LengthUnit = .mm, thumbnail: [UInt8]? = nil, name: String? = nil,
        printingPosition: Bool = false, texturePNG: [UInt8]? = nil
    ) throws(FaceScanError) -> [UInt8] {
        let files = try encode(
            mesh, format: format, unit: unit, thumbnail: thumbnail, name: name, printingPosition: printingPosition,
            texturePNG: texturePNG)
        guard files.count == 1 else {
            throw .badSetting(
                UsageError(
                    "format '\(format.name)' writes \(files.count) files; facescan writes single-file formats only"))
        }
        return files[0].bytes
    }

    /// Writes `mesh` (coordinates in `unit`) to `path` atomically in `format` (default: from the
    /// path's extension); `-` writes to standard output (OBJ unless `format` says otherwise).
    /// `printingPosition`: the mesh is a part standing on z = 0 (USDZ turns it y up).
    package static func write(
        _ mesh: Mesh, to path: String, format: FileFormat? = nil, unit: LengthUnit = .mm,
        printingPosition: Bool = false
    ) throws(FaceScanError) {
        let bytes = try fileBytes(mesh, for: path, format: format, unit: unit, printingPosition: printingPosition)
        try lift { () throws(IOFailure) in try AtomicFile.write(bytes, to: path) }
    }

    /// The bytes ``write(_:to:format:unit:printingPosition:)`` writes to `path`, for a caller that writes them itself.
    package static func fileBytes(
        _ mesh: Mesh, for path: String, format: FileFormat? = nil, unit: LengthUnit = .mm,
        printingPosition: Bool = false
    ) throws(FaceScanError) -> [UInt8] {
        let chosen: FileFormat
        if let format {
            chosen = format
        } else if path == "-" {
            chosen = .obj
        } else {
            guard let ext = fileExtension(path) else {
                throw .badSetting(
                    UsageError(
                        "\(path): cannot tell the mesh format from the name; use one of \(writableExtensions.joined(separator: ", "))"
                    ))
            }
            guard let named = FileFormat.writableMesh(named: ext) else { throw .badSetting(unknownMeshFormat(ext)) }
            chosen = named
        }
        return try bytes(mesh, format: chosen, unit: unit, name: path, printingPosition: printingPosition)
    }

    /// How much of an FBX file is searched for its `UnitScaleFactor` (it is in `GlobalSettings`,
    /// near the start).
    static let fbxHeaderLimit = 1 << 20

    /// The `UnitScaleFactor` (centimetres per unit) an FBX file's `GlobalSettings` states, ASCII
    /// (`P: "UnitScaleFactor", "double", "Number", "",0.1`) or binary (the property's strings,
    /// then `D` and a little-endian double); nil when absent or not a positive finite number.
    static func fbxUnitScaleFactor(_ bytes: [UInt8]) -> Double? {
        var value: Double?
        if bytes.starts(with: Array("Kaydara FBX Binary".utf8)) {
            // The key as a string property ('S', UInt32 length 15, bytes), three more strings,
            // then 'D' and the double.
            guard let key = bytes.firstRange(of: [UInt8(ascii: "S"), 15, 0, 0, 0] + Array("UnitScaleFactor".utf8))
            else { return nil }
            var i = key.upperBound
            for _ in 0..<3 {
                guard i + 5 <= bytes.count, bytes[i] == UInt8(ascii: "S") else { return nil }
                let n = Int(bytes[i + 1]) | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) << 16 | Int(bytes[i + 4]) << 24
                i += 5 + n
            }
            guard i + 9 <= bytes.count, bytes[i] == UInt8(ascii: "D") else { return nil }
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[i + 1 + k]) << (8 * UInt64(k)) }
            value = Double(bitPattern: bits)
        } else {
            // The fifth comma-separated field after the key, up to the end of the line.
            guard let key = find("\"UnitScaleFactor\"", in: bytes, from: 0, to: bytes.count) else { return nil }
            let end = bytes[key.upperBound...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let fields = String(decoding: bytes[key.upperBound..<end], as: UTF8.self).split(
                separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 5 else { return nil }
            value = Double(String(fields[4].filter { $0 != " " && $0 != "\t" && $0 != "\r" }))
        }
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }

    /// `mesh` with every coordinate multiplied by `factor` (in double precision); unchanged for 1.
    static func converted(_ mesh: Mesh, factor: Double, name: String) -> Mesh {
        guard factor != 1 else { return mesh }
        var out = mesh
        out.positions = mesh.positions.map { p in
            SIMD3(Float(Double(p.x) * factor), Float(Double(p.y) * factor), Float(Double(p.z) * factor))
        }
        return out
    }

    static func encode(
        _ mesh: Mesh, format: FileFormat, unit: LengthUnit, thumbnail: [UInt8]?, name: String? = nil,
        printingPosition: Bool = false, texturePNG: [UInt8]? = nil
    ) throws(FaceScanError) -> [AssimpIO.ExportedFile] {
        guard format.isWritableMesh else { throw .badSetting(unknownMeshFormat(format.name)) }
        // The factor from the mesh's unit to the unit the format states (1 for unit-less formats).
        let factor = format.statedUnitMillimetres.map { unit.millimetres / $0 } ?? 1
        try lift { () throws(UsageError) in
            try checkRange(mesh, format: format, factor: factor, unit: unit, name: name)
        }
        func one(_ bytes: [UInt8]) -> [AssimpIO.ExportedFile] { [AssimpIO.ExportedFile(name: "", bytes: bytes)] }
        switch format {
        case .obj: return one(mesh.objBytes())
        case .stl: return one(mesh.stlBytes())
        case .off: return one(mesh.offBytes())
        case .glb: return one(mesh.glbBytes(metresPerUnit: unit.millimetres / 1000))
        case .usdz:
            guard let bytes = mesh.usdzBytes(metresPerUnit: unit.millimetres / 1000, printingPosition: printingPosition)
            else {
                throw .badSetting(
                    UsageError(
                        "\(name.map { $0 == "-" ? "<stdout>: " : $0 + ": " } ?? "")cannot write usdz: the package would pass 4 GiB (zip32)"
                    ))
            }
            return one(bytes)
        case .fbx:
            return one(
                try lift { () throws(UsageError) in try mesh.fbxBytes(centimetresPerUnit: unit.millimetres / 10) })
        case .threeMF:
            let png = try Exporter.thumbnail(mesh, given: thumbnail, render: RenderOptions(size: 256))
            return one(
                try Lib3MFIO.bytes(
                    converted(mesh, factor: factor, name: format.name), thumbnail: png, texturePNG: texturePNG))
        case .ply, .dae, .x3d, .x, .threeDS, .png, .uncertaintyPNG, .gltf:
            guard let id = format.assimpExportID else { throw .badSetting(unknownMeshFormat(format.name)) }
            var exported = converted(mesh, factor: factor, name: format.name)
            if format == .threeDS {
                // 3DS is z-up (readers, assimp's included, turn it to y-up): store y-up as z-up.
                exported.positions = exported.positions.map { SIMD3($0.x, -$0.z, $0.y) }
            }
            var files = try AssimpIO.export(exported, formatID: id)
            if !files.isEmpty { fixTimestamps(&files[0].bytes, formatID: id) }
            return files
        }
    }

    /// The largest coordinate lib3mf accepts, in millimetres (`NMR_MESH_MAXCOORDINATE`).
    static let largest3MFMillimetres = 1e9

    /// The largest coordinate a DirectX .x file holds that assimp reads back (its reader parses
    /// the fixed-point numbers the exporter writes into 64-bit integers).
    static let largestXCoordinate = 1e19

    /// Refuses a mesh whose coordinates, converted by `factor` into the unit `format` states, would
    /// not be finite 32-bit floats (or, for 3MF, exceed lib3mf's limit): no writer writes `inf`.
    static func checkRange(_ mesh: Mesh, format: FileFormat, factor: Double, unit: LengthUnit, name: String?)
        throws(UsageError)
    {
        let largest = Double(mesh.largestMagnitude)
        let limit: Double, beyond: String
        switch format {
        case .threeMF: (limit, beyond) = (largest3MFMillimetres, "the format's limit of 1e9 mm")
        case .x: (limit, beyond) = (largestXCoordinate, "1e19, the largest a reader takes back")
        default: (limit, beyond) = (Double(Float.greatestFiniteMagnitude), "32-bit floats in the format's unit")
        }
        guard largest * factor > limit else { return }
        let file = name.map { ($0 == "-" ? "<stdout>" : $0) + ": " } ?? ""
        throw UsageError(
            "\(file)cannot write \(format.name): the coordinates reach \(mesh.largestMagnitude) \(unit.rawValue), beyond \(beyond); scale the mesh down first"
        )
    }

    /// The fixed time written in place of the export time, so that the same mesh gives the same
    /// bytes: the Unix epoch.
    static let fixedTimestamp = "1970-01-01T00:00:00"

    /// Replaces the wall-clock time assimp writes into a file header by ``fixedTimestamp``:
    /// COLLADA's `<created>` and `<modified>` (in `<asset>`). Only the header is searched; other
    /// formats, and files without these fields, are left as they are (binary FBX, written by
    /// facescan, holds a fixed time already).
    static func fixTimestamps(_ bytes: inout [UInt8], formatID: String) {
        let header = min(bytes.count, 8192)
        var edits: [(range: Range<Int>, value: String)] = []
        switch formatID {
        case "collada":
            guard let assetEnd = find("</asset>", in: bytes, from: 0, to: header) else { return }
            for tag in ["created", "modified"] {
                guard let open = find("<\(tag)>", in: bytes, from: 0, to: assetEnd.lowerBound),
                    let close = find("</\(tag)>", in: bytes, from: open.upperBound, to: assetEnd.lowerBound)
                else { continue }
                edits.append((open.upperBound..<close.lowerBound, fixedTimestamp))
            }
        default:
            return
        }
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.value.utf8))
        }
    }

    /// The first range of `text`'s UTF-8 bytes in `bytes[from..<to]`.
    static func find(_ text: String, in bytes: ArraySlice<UInt8>, from: Int, to: Int) -> Range<Int>? {
        bytes[from..<to].firstRange(of: Array(text.utf8))
    }

    static func find(_ text: String, in bytes: [UInt8], from: Int, to: Int) -> Range<Int>? {
        find(text, in: bytes[...], from: from, to: to)
    }

    static func fileExtension(_ path: String) -> String? {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        return base[base.index(after: dot)...].lowercased()
    }
}
