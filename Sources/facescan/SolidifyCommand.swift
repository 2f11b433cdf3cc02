import ArgumentParser
import FaceScanKit

struct SolidifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "solidify",
        abstract: "Close a face surface into a watertight solid for printing.",
        discussion: """
            Fills every boundary loop but the outer rim (eyes, mouth, nostrils) with a fair patch, then \
            either adds a back surface --thickness mm behind the face (default) or, with --base, extrudes \
            the rim straight back (−z) to a flat base --thickness mm behind the deepest point. The face \
            must look toward +z. OUT's extension picks the format: \(MeshIO.writableExtensions.joined(separator: ", ")).
            """)

    @Argument(help: "Input surface (OBJ, STL, or any format assimp reads; - for OBJ/STL on standard input).") var input:
        String
    @Argument(
        help:
            "Output solid; its extension picks the format (- for standard output: OBJ unless --format says otherwise).")
    var output: String
    @Option(help: "Output format (an extension or an assimp export id) instead of OUT's extension.") var format: String?
    @Option(
        parsing: .unconditional, help: "Wall thickness in millimetres, or with --base the base's depth behind the face."
    ) var thickness: Double = 2
    @Flag(help: "Extrude the rim back to a flat base instead of adding a back surface.") var base = false
    @Option(
        help:
            "Unit of IN's coordinates: mm or m (OUT keeps it). (default: mm, with a warning when the size is not a face's)"
    ) var units: LengthUnit?
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        guard SolidOptions.thicknessRange.contains(thickness) else {
            throw ValidationError("--thickness must be \(SolidOptions.thicknessRangeText)")
        }
    }

    func run() throws {
        let unit = units ?? .mm
        let mesh = try MeshInput.read(input, command: "solidify", unit: unit)
        MeshInput.checkSize(mesh, path: input, unit: unit, declared: units != nil, verbosity: verbosity)
        let across = MeshInput.largestExtent(mesh) * unit.millimetres
        if thickness > across {
            let hint = units == nil ? "; if its coordinates are in metres, add --units m" : ""
            throw UsageError(
                "\(input): --thickness \(MeshInput.format(thickness)) mm is larger than the part (\(MeshInput.format(across)) mm across as \(unit.rawValue))\(hint)"
            )
        }
        let solid: Mesh
        do {
            solid = try Solidify.makePart(
                mesh, options: SolidOptions(thickness: thickness, base: base),
                unitInMillimetres: unit.millimetres
            ).mesh
        } catch {
            throw error.naming(input: input)
        }
        try MeshIO.write(solid, to: output, format: format, unit: unit)
    }
}
