import ArgumentParser
import FaceScanKit
import FacescanTools

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a mesh between formats (OBJ and STL natively, others through assimp).",
        discussion: "The output format follows OUT's extension: \(MeshIO.writableExtensions.joined(separator: ", ")).")

    @Argument(
        help: "Input mesh (any format assimp reads; OBJ and STL read natively; - for OBJ/STL on standard input).",
        completion: Completions.meshFile)
    var input: String
    @Argument(
        help:
            "Output mesh; its extension picks the format (- for standard output: OBJ unless --format says otherwise).",
        completion: Completions.anyFile
    ) var output: String
    @Option(
        help: "Output format (an extension or an assimp export id) instead of OUT's extension.",
        completion: Completions.meshFormat, transform: MeshInput.parseFormat)
    var format: FileFormat?

    @Option(help: MeshInput.unitsHelp) var units: LengthUnit?
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        try Terminal.refuseBinaryOutput(output, format: format)
    }

    func run() throws {
        let unit = units ?? .mm
        let mesh = try MeshInput.read(
            input, command: "convert", units: units, output: output, format: format, verbosity: verbosity)
        try OutputSet.write(MeshIO.fileBytes(mesh, for: output, format: format, unit: unit), to: output)
        verbosity.note("\(input): \(mesh.vertexCount) vertices, \(mesh.triangleCount) triangles written to \(output)")
    }
}
