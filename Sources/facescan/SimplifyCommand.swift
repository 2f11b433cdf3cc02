import ArgumentParser
import FaceScanKit
import FacescanTools

/// `facescan simplify IN OUT --target-vertices N [--json]`: decimate (or refine) one mesh file to an
/// exact vertex count. All the work is ``Decimation/simplify(_:targetVertices:)``.
struct SimplifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Decimate or refine a mesh (OBJ or STL) to an exact number of vertices.")

    @Argument(
        help: "Input mesh (OBJ and STL natively, other formats through assimp), or - for OBJ/STL on standard input.",
        completion: Completions.meshFile)
    var input: String

    @Argument(
        help:
            "Output mesh (format from the extension: obj, stl, ply, glb, …), or - for standard output (OBJ unless --format says otherwise).",
        completion: Completions.anyFile)
    var output: String

    @Option(
        name: [.customShort("n"), .customLong("target-vertices")], parsing: .unconditional,
        help: "Exact number of vertices of the result.")
    var targetVertices: Int

    @Option(
        help:
            "Output format (an extension or an assimp export id); by default OUT's extension (obj for standard output).",
        completion: Completions.meshFormat, transform: MeshInput.parseFormat)
    var format: FileFormat?

    @Flag(help: "Print {\"mesh\": …, \"timingsMs\": …} as JSON (on standard error when OUT is -).")
    var json = false

    @Option(help: MeshInput.unitsHelp) var units: LengthUnit?

    @OptionGroup var verbosity: Verbosity

    /// Errors are printed and mapped to exit codes by `FaceScan.main()`.
    func validate() throws {
        try Terminal.refuseBinaryOutput(output, format: format)
    }

    func run() throws {
        var clock = Stopwatch()
        let total = Stopwatch()
        let unit = units ?? .mm
        let mesh = try MeshInput.read(
            input, command: "simplify", units: units, output: output, format: format, verbosity: verbosity)
        let readMs = clock.lap()
        let result: Mesh
        do {
            result = try Decimation.simplify(mesh, exactly: targetVertices)
        } catch {
            throw error.naming(input: input)
        }
        let decimateMs = clock.lap()
        try OutputSet.write(MeshIO.fileBytes(result, for: output, format: format, unit: unit), to: output)
        let exportMs = clock.lap()
        verbosity.note(
            "\(input): \(mesh.vertexCount) vertices, \(mesh.triangleCount) triangles -> \(result.vertexCount) vertices, \(result.triangleCount) triangles in \(Summary.ms(total.elapsed))"
        )

        guard json else { return }
        var report = Report(input: input)
        report.mesh.inputVertices = mesh.vertexCount
        report.mesh.inputTriangles = mesh.triangleCount
        report.mesh.outputVertices = result.vertexCount
        report.mesh.outputTriangles = result.triangleCount
        report.timingsMs.ingest = readMs
        report.timingsMs.decimate = decimateMs
        if targetVertices > mesh.vertexCount { report.timingsMs.refine = decimateMs }
        report.timingsMs.export = exportMs
        report.timingsMs.total = total.elapsed
        let text = JSONValue.object([("mesh", report.meshJSON), ("timingsMs", report.timingsJSON)]).serialized() + "\n"
        if let e = AtomicFile.writeAll(Array(text.utf8), to: output == "-" ? 2 : 1) {
            throw IOFailure(path: output == "-" ? "(standard error)" : "-", "write failed: \(e)")
        }
    }
}
