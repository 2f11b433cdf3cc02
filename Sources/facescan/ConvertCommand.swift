import ArgumentParser
import FaceScanKit

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a mesh between formats (OBJ and STL natively, others through assimp).",
        discussion: "The output format follows OUT's extension: \(MeshIO.writableExtensions.joined(separator: ", ")).")

    @Argument(help: "Input mesh (any format assimp reads; OBJ and STL read natively; - for OBJ/STL on standard input).") var input: String
    @Argument(help: "Output mesh; its extension picks the format (- for standard output: OBJ unless --format says otherwise).") var output: String
    @Option(help: "Output format (an extension or an assimp export id) instead of OUT's extension.") var format: String?

    func run() throws {
        let mesh = try MeshIO.read(path: input)
        try MeshIO.write(mesh, to: output, format: format)
    }
}
