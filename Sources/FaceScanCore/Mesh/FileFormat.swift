/// Every file format facescan knows, one case each: its name (the raw value: the file extension,
/// and the name `--format` and `--formats` take), other names it answers to, the length unit it
/// states, who reads and who writes it, and whether `process` writes it. Strings become a format
/// once, at the edge (``named(_:)``: the command line's flags, a capture's `exportFormats`, a
/// path's extension); from there to the writer the format travels as this enum. ``MeshIO``,
/// ``Exporter``, the settings' format lists and the command line's `--formats`, help and
/// completions all read it: adding a format is adding a case (and its encoder, when facescan
/// writes it itself). The public ``MeshFormat`` (and FaceScanKit's `OutputFormat`) name subsets of it.
package enum FileFormat: String, Sendable, Hashable, CaseIterable {
    /// Binary STL (written), binary or ASCII STL (read).
    case stl
    /// Wavefront OBJ.
    case obj
    /// The PNG thumbnail.
    case png
    /// The averaged face coloured by each vertex's standard error, with a legend in µm.
    case uncertaintyPNG = "uncertainty.png"
    /// Object File Format, ASCII.
    case off
    /// Binary glTF 2.0, in metres.
    case glb
    /// glTF 2.0 (read only).
    case gltf
    /// 3D Manufacturing Format, in millimetres (lib3mf).
    case threeMF = "3mf"
    /// Binary FBX 7.4.
    case fbx
    /// Binary PLY (assimp).
    case ply
    /// COLLADA, in metres (assimp).
    case dae
    /// X3D, in metres (assimp).
    case x3d
    /// DirectX .x (assimp).
    case x
    /// 3D Studio (assimp).
    case threeDS = "3ds"
    /// AR Quick Look's format: a binary USD layer in a stored zip, in metres (written only).
    case usdz

    /// Who reads or writes a format: FaceScanKit itself, or a C library behind a package trait.
    package enum Provider: String, Sendable, Hashable {
        /// FaceScanKit's own reader or writer (no trait).
        case facescan
        /// libassimp (trait `Assimp`).
        case assimp
        /// lib3mf (trait `Lib3MF`).
        case lib3mf
        /// libpng (trait `PNG`); without it PNG is still written, by FaceScanKit with zlib.
        case png

        /// The package trait that brings the library, or nil for FaceScanKit's own code.
        package var trait: String? {
            switch self {
            case .facescan: nil
            case .assimp: "Assimp"
            case .lib3mf: "Lib3MF"
            case .png: "PNG"
            }
        }
    }

    /// The name: the file extension, lower case, and what `--format`/`--formats` take.
    package var name: String { rawValue }

    /// Other names it answers to (export ids: `collada`, `glb2`, `gltf2`).
    package var aliases: [String] {
        switch self {
        case .glb: ["glb2"]
        case .gltf: ["gltf2"]
        case .dae: ["collada"]
        default: []
        }
    }

    /// Millimetres per unit of the length unit the format states; nil for unit-less formats.
    package var statedUnitMillimetres: Double? {
        switch self {
        case .glb, .gltf, .dae, .x3d, .usdz: 1000
        case .threeMF: 1
        // FBX's unit when UnitScaleFactor is absent (centimetres); a file's own factor wins.
        case .fbx: 10
        case .stl, .obj, .png, .uncertaintyPNG, .off, .ply, .x, .threeDS: nil
        }
    }

    /// Who reads it (nil: not read).
    package var reader: Provider? {
        switch self {
        case .stl, .obj, .off: .facescan
        case .png: .png
        case .uncertaintyPNG, .usdz: nil
        case .threeMF: .lib3mf
        case .glb, .gltf, .fbx, .ply, .dae, .x3d, .x, .threeDS: .assimp
        }
    }

    /// Who writes it (nil: not written).
    package var writer: Provider? {
        switch self {
        case .stl, .obj, .off, .glb, .fbx, .usdz: .facescan
        case .png, .uncertaintyPNG: .png
        case .gltf: nil
        case .threeMF: .lib3mf
        case .ply, .dae, .x3d, .x, .threeDS: .assimp
        }
    }

    /// assimp's export id, for the formats assimp writes.
    package var assimpExportID: String? {
        switch self {
        case .ply: "plyb"
        case .dae: "collada"
        case .x3d: "x3d"
        case .x: "x"
        case .threeDS: "3ds"
        default: nil
        }
    }

    /// Whether `process` writes it (`--formats`, a capture's `exportFormats`).
    package var isProcessOutput: Bool { self != .off && self != .gltf }

    /// Whether it holds a mesh (not the PNG thumbnail).
    package var isMesh: Bool { self != .png && self != .uncertaintyPNG }

    /// Whether facescan writes it as a mesh file (``writableMeshNames``).
    package var isWritableMesh: Bool { isMesh && writer != nil }

    /// Every format. The order is the one lists are shown in.
    package static var all: [FileFormat] { allCases }

    /// The format a name or alias names (case and surrounding spaces ignored), or nil.
    package static func named(_ name: String) -> FileFormat? {
        let n = name.lowercased().trimmingCharacters(in: " ")
        return FileFormat(rawValue: n) ?? all.first { $0.aliases.contains(n) }
    }

    /// The mesh format a `--format` value names: a name, an alias or an assimp export id
    /// (`plyb`), of a format facescan writes as a mesh; nil for anything else.
    package static func writableMesh(named name: String) -> FileFormat? {
        let f = named(name) ?? all.first { $0.assimpExportID == name.lowercased() }
        return f.flatMap { $0.isWritableMesh ? $0 : nil }
    }

    /// The format a path's extension names (the last dot of the last component; `-` and names
    /// without an extension: nil).
    package init?(path: String) {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        self.init(rawValue: base[base.index(after: dot)...].lowercased())
    }

    /// The mesh formats facescan writes: OBJ and STL first, then the others by name.
    package static var writableMeshNames: [String] {
        let rest = all.filter { $0.isWritableMesh && ![.obj, .stl].contains($0) }.map(\.name)
        return ["obj", "stl"] + rest.sorted()
    }

    /// The formats `process` writes (`--formats`): STL, OBJ and PNG first, then the others by name.
    package static var processOutputs: [FileFormat] {
        let rest = all.filter { $0.isProcessOutput && ![.stl, .obj, .png].contains($0) }.sorted { $0.name < $1.name }
        return [.stl, .obj, .png] + rest
    }

    /// The names of ``processOutputs``.
    package static var processOutputNames: [String] { processOutputs.map(\.name) }

    /// The extensions of the mesh files facescan reads.
    package static var readableMeshNames: [String] { all.filter { $0.isMesh && $0.reader != nil }.map(\.name) }
}

extension MeshFormat {
    /// The row of the one format enum this public format names.
    package var fileFormat: FileFormat {
        switch self {
        case .stl: .stl
        case .obj: .obj
        case .ply: .ply
        case .off: .off
        case .glb: .glb
        case .threeMF: .threeMF
        case .usdz: .usdz
        }
    }

    /// The public mesh format of a file format, or nil for those ``MeshFormat`` does not cover.
    package init?(_ format: FileFormat) {
        self.init(rawValue: format.rawValue)
    }
}

extension String {
    /// The string without `c` at either end.
    fileprivate func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
