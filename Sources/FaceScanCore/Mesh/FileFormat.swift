/// Every file format facescan knows, one row each: its name (the file extension, and the name
/// `--format` and `--formats` take), other names it answers to, the length unit it states, who reads
/// and who writes it, and whether `process` writes it. ``MeshIO``, ``Exporter``, the settings'
/// format lists and the command line's `--formats`, help and completions all read this table:
/// adding a format is adding a row (and its encoder, when facescan writes it itself).
package struct FileFormat: Sendable, Hashable {
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
    package var name: String
    /// Other names it answers to (export ids: `collada`, `glb2`, `gltf2`).
    package var aliases: [String] = []
    /// Millimetres per unit of the length unit the format states; nil for unit-less formats.
    package var statedUnitMillimetres: Double? = nil
    /// Who reads it (nil: not read).
    package var reader: Provider?
    /// Who writes it (nil: not written).
    package var writer: Provider?
    /// assimp's export id, for the formats assimp writes.
    package var assimpExportID: String? = nil
    /// Whether `process` writes it (`--formats`, a capture's `exportFormats`).
    package var isProcessOutput = false
    /// Whether it holds a mesh (not the PNG thumbnail).
    package var isMesh = true

    /// The table. The order is the one lists are shown in.
    package static let all: [FileFormat] = [
        FileFormat(name: "stl", reader: .facescan, writer: .facescan, isProcessOutput: true),
        FileFormat(name: "obj", reader: .facescan, writer: .facescan, isProcessOutput: true),
        FileFormat(name: "png", reader: .png, writer: .png, isProcessOutput: true, isMesh: false),
        // The averaged face coloured by each vertex's standard error, with a legend in µm.
        FileFormat(name: "uncertainty.png", reader: nil, writer: .png, isProcessOutput: true, isMesh: false),
        FileFormat(name: "off", reader: .facescan, writer: .facescan),
        FileFormat(
            name: "glb", aliases: ["glb2"], statedUnitMillimetres: 1000, reader: .assimp, writer: .facescan,
            isProcessOutput: true),
        FileFormat(name: "gltf", aliases: ["gltf2"], statedUnitMillimetres: 1000, reader: .assimp, writer: nil),
        FileFormat(
            name: "3mf", statedUnitMillimetres: 1, reader: .lib3mf, writer: .lib3mf, isProcessOutput: true),
        // FBX's unit when UnitScaleFactor is absent (centimetres); a file's own factor wins.
        FileFormat(
            name: "fbx", statedUnitMillimetres: 10, reader: .assimp, writer: .facescan,
            isProcessOutput: true),
        FileFormat(name: "ply", reader: .assimp, writer: .assimp, assimpExportID: "plyb", isProcessOutput: true),
        FileFormat(
            name: "dae", aliases: ["collada"], statedUnitMillimetres: 1000, reader: .assimp, writer: .assimp,
            assimpExportID: "collada", isProcessOutput: true),
        FileFormat(
            name: "x3d", statedUnitMillimetres: 1000, reader: .assimp, writer: .assimp, assimpExportID: "x3d",
            isProcessOutput: true),
        FileFormat(name: "x", reader: .assimp, writer: .assimp, assimpExportID: "x", isProcessOutput: true),
        FileFormat(name: "3ds", reader: .assimp, writer: .assimp, assimpExportID: "3ds", isProcessOutput: true),
        // AR Quick Look's format: a binary USD layer in a stored zip, in metres (written only).
        FileFormat(name: "usdz", statedUnitMillimetres: 1000, reader: nil, writer: .facescan, isProcessOutput: true),
    ]

    /// The row a name or alias names (case and surrounding spaces ignored), or nil.
    package static func named(_ name: String) -> FileFormat? {
        let n = name.lowercased().trimmingCharacters(in: " ")
        return all.first { $0.name == n || $0.aliases.contains(n) }
    }

    /// The mesh formats facescan writes: OBJ and STL first, then the others by name.
    package static var writableMeshNames: [String] {
        let rest = all.filter { $0.isMesh && $0.writer != nil && !["obj", "stl"].contains($0.name) }.map(\.name)
        return ["obj", "stl"] + rest.sorted()
    }

    /// The formats `process` writes (`--formats`): STL, OBJ and PNG first, then the others by name.
    package static var processOutputNames: [String] {
        let rest = all.filter { $0.isProcessOutput && !["stl", "obj", "png"].contains($0.name) }.map(\.name)
        return ["stl", "obj", "png"] + rest.sorted()
    }

    /// The extensions of the mesh files facescan reads.
    package static var readableMeshNames: [String] { all.filter { $0.isMesh && $0.reader != nil }.map(\.name) }
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
