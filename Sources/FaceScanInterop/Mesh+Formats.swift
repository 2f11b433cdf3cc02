import FaceScanCore
import FaceScanExport
import FaceScanRender

/// Meshes in and out of every ``MeshFormat``: bytes in memory first, files as a separate step.
///
/// ```swift
/// let stl = try mesh.encoded(as: .stl)                 // [UInt8]
/// let back = try Mesh(bytes: stl, format: .stl)
/// try mesh.write(to: "face.3mf")                        // format from the extension
/// let other = try Mesh(contentsOf: "scan.obj")
/// ```
extension Mesh {
    /// Parses `bytes` in `format`. Formats that state a unit (GLB metres, 3MF millimetres) come
    /// back in `unit`; unit-less formats are taken to be in `unit` already. `name` stands for the
    /// file in error messages (default `mesh.FORMAT`).
    ///
    /// Throws ``FaceScanError/badInput(_:)`` (naming the line, field or byte) for bytes that break
    /// the format or hold no triangle, ``FaceScanError/unavailable(_:)`` when the format's library
    /// is not in this build, ``FaceScanError/badSetting(_:)`` for USDZ (written, not read).
    public init(bytes: [UInt8], format: MeshFormat, unit: LengthUnit = .mm, name: String? = nil) throws(FaceScanError) {
        let name = name ?? "mesh.\(format.fileExtension)"
        var mesh: Mesh
        switch format {
        case .stl, .obj, .off:
            guard bytes.count <= FileBytes.maxMeshFileBytes else { throw .badInput(FileBytes.tooLarge(name)) }
            do { mesh = try Mesh.parse(bytes, format: format, name: name) } catch { throw .badInput(error) }
        case .ply, .glb:
            mesh = try AssimpIO.parse(bytes, formatHint: format.fileExtension, name: name)
        case .threeMF:
            mesh = try Lib3MFIO.parse(bytes, name: name)
        case .usdz:
            throw .badSetting(UsageError("\(name): facescan writes USDZ but does not read it"))
        }
        guard mesh.triangleCount > 0 else { throw .badInput(InputError(file: name, "the file holds no triangles")) }
        if let stated = format.fileFormat.statedUnitMillimetres {
            mesh = MeshIO.converted(mesh, factor: stated / unit.millimetres, name: name)
        }
        guard mesh.positions.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
            throw .badInput(
                InputError(file: name, field: "vertex", "coordinates do not fit 32-bit floats in \(unit.rawValue)"))
        }
        self = mesh
    }

    /// Parses bytes from any sequence (`Data`, an `ArraySlice`, …); see ``init(bytes:format:unit:name:)``.
    public init(bytes: some Sequence<UInt8>, format: MeshFormat, unit: LengthUnit = .mm, name: String? = nil)
        throws(FaceScanError)
    {
        try self.init(bytes: Array(bytes), format: format, unit: unit, name: name)
    }

    /// The mesh, whose coordinates are in `unit`, encoded in `format`. Unit-less formats keep the
    /// numbers as they are; GLB and USDZ are written in metres and 3MF in millimetres (with a
    /// rendered 256-pixel thumbnail), so that they read back at the true size. USDZ is the
    /// untextured clay in facescan's face frame (y up); for a texture or a part in printing
    /// position see ``usdzBytes(metresPerUnit:printingPosition:texturePNG:)``. Same mesh, same bytes.
    ///
    /// Throws ``FaceScanError/unavailable(_:)`` when the format's library is not in this build,
    /// ``FaceScanError/badSetting(_:)`` when the coordinates do not fit the format.
    public func encoded(as format: MeshFormat, unit: LengthUnit = .mm) throws(FaceScanError) -> [UInt8] {
        switch format {
        case .stl: return stlBytes()
        case .obj: return objBytes()
        case .off: return offBytes()
        case .glb: return glbBytes(metresPerUnit: unit.millimetres / 1000)
        case .ply, .threeMF, .usdz:
            return try MeshIO.bytes(self, format: format.fileFormat, unit: unit)
        }
    }

    /// A PNG thumbnail of the mesh: the clay rendering `facescan process` writes (front view,
    /// `options.size` pixels square, 512 by default). PNG through libpng, or without the `PNG`
    /// trait through FaceScanKit's own encoder (system zlib). Same mesh, same bytes.
    public func thumbnail(_ options: RenderOptions = RenderOptions()) throws(FaceScanError) -> [UInt8] {
        try PNGEncoder.encode(Rasterizer.render(atWorkingMagnitude, options: options), name: "thumbnail")
    }

    /// Reads a mesh file: STL and OBJ by FaceScanKit (also `-` for standard input), 3MF through
    /// lib3mf, any other format assimp reads (PLY, OFF, GLB, DAE, FBX, …) through assimp. Units as
    /// in ``init(bytes:format:unit:name:)-([UInt8],_,_,_)``.
    ///
    /// Throws ``FaceScanError/io(_:)`` when the file cannot be read, ``FaceScanError/badInput(_:)``
    /// when its content breaks the format.
    public init(contentsOf path: String, unit: LengthUnit = .mm) throws(FaceScanError) {
        self = try MeshIO.read(path: path, unit: unit)
    }

    /// Writes the mesh to `path` atomically (a reader never sees half a file) in `format`, by
    /// default the one the path's extension names. Encoding as in ``encoded(as:unit:)``.
    public func write(to path: String, format: MeshFormat? = nil, unit: LengthUnit = .mm) throws(FaceScanError) {
        guard let format = format ?? MeshFormat(path: path) else {
            throw .badSetting(
                UsageError(
                    "\(path): cannot tell the mesh format from the name; use one of \(MeshFormat.allCases.map(\.fileExtension).joined(separator: ", "))"
                ))
        }
        let bytes = try encoded(as: format, unit: unit)
        try lift { () throws(IOFailure) in try AtomicFile.write(bytes, to: path) }
    }
}
