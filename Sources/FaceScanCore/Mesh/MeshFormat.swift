/// A mesh file format FaceScanKit reads and writes (USDZ: writes only), in memory (``Mesh/init(bytes:format:unit:name:)-([UInt8],_,_,_)``,
/// ``Mesh/encoded(as:unit:)``) or as files (``Mesh/init(contentsOf:unit:)-(String,_)``, ``Mesh/write(to:format:unit:)-(String,_,_)``).
///
/// STL, OBJ and OFF are read and written by FaceScanKit itself, GLB and USDZ written; PLY (and
/// reading GLB) go through assimp, 3MF through lib3mf; USDZ is not read (``MeshFormat/isReadable``).
/// When the package is built without the `Assimp` or `Lib3MF` trait those formats throw
/// ``FaceScanError/unavailable(_:)``.
///
/// Units: STL, OBJ, PLY and OFF carry no unit (coordinates are in whatever unit you pass); GLB
/// and USDZ state metres and 3MF millimetres, so they are written and read at their true size.
public enum MeshFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Binary STL (written); binary or ASCII STL (read).
    case stl
    /// Wavefront OBJ with vertex normals and, when the mesh has them, texture coordinates.
    case obj
    /// Binary little-endian PLY (through assimp).
    case ply
    /// Object File Format, ASCII (read and written by FaceScanKit).
    case off
    /// Binary glTF 2.0, in metres.
    case glb
    /// 3D Manufacturing Format, in millimetres, with a rendered thumbnail (through lib3mf).
    case threeMF = "3mf"
    /// USDZ for AR Quick Look: a binary USD root layer and, when given, its texture in a stored
    /// zip, in metres, y up (written only).
    case usdz

    /// The usual file extension, without the dot (`stl`, `3mf`, …).
    public var fileExtension: String { rawValue }

    /// The format a file extension names (`"STL"`, `"3mf"`; no dot), or nil.
    public init?(fileExtension: String) {
        self.init(rawValue: fileExtension.lowercased())
    }

    /// The format named by a path's extension, or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(fileExtension: String(path[path.index(after: dot)...]))
    }

    /// True for the formats FaceScanKit parses itself (STL, OBJ and OFF): no C library involved.
    public var isNative: Bool { self == .stl || self == .obj || self == .off }

    /// False for USDZ, which FaceScanKit writes but does not read.
    public var isReadable: Bool { self != .usdz }
}
