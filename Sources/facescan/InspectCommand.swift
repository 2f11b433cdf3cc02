import ArgumentParser
import FaceScanKit


struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a mesh's counts, bounding box, boundary loops, non-manifold edges, degenerate triangles, watertightness and volume.")

    @Argument(help: "Mesh file (OBJ, STL, or any format assimp reads; - for OBJ/STL on standard input).") var mesh: String
    @Flag(help: "Print one JSON object instead of text.") var json = false
    @Option(help: "Unit of the file's coordinates: mm or m.") var units: LengthUnit = .mm

    func run() throws {
        let m = try MeshIO.read(path: mesh)
        let report = MeshInspection(m, unit: units)
        print(json ? report.json.serialized() : report.text)
    }
}
