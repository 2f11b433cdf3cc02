import ArgumentParser
import FaceScanKit

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract:
            "Print a mesh's counts, bounding box, boundary loops, non-manifold edges, degenerate triangles, watertightness and volume."
    )

    @Argument(
        help: "Mesh file (OBJ, STL, or any format assimp reads; - for OBJ/STL on standard input).",
        completion: Completions.meshFile)
    var mesh: String
    @Flag(help: "Print one JSON object instead of text.") var json = false
    @Option(
        help: "Unit of the file's coordinates: mm or m. (default: mm, with a warning when the size is not a face's)")
    var units: LengthUnit?
    @OptionGroup var verbosity: Verbosity

    func run() throws {
        let m = try MeshInput.read(mesh, command: "inspect", unit: units ?? .mm)
        MeshInput.checkSize(m, path: mesh, unit: units ?? .mm, declared: units != nil, verbosity: verbosity)
        let report = MeshInspection(m, unit: units ?? .mm)
        print(json ? report.json.serialized() : report.text)
    }
}
