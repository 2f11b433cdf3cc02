#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FaceScanKit

/// `facescan simplify IN OUT --target-vertices N [--json]`: decimate (or refine) one mesh file to an
/// exact vertex count. All the work is ``Decimation/simplify(_:targetVertices:)``.
struct SimplifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Decimate or refine a mesh (OBJ or STL) to an exact number of vertices.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case obj, stl
    }

    @Argument(help: "Input mesh (OBJ and STL natively, other formats through assimp), or - for OBJ/STL on standard input.")
    var input: String

    @Argument(help: "Output mesh (format from the extension: obj, stl, ply, glb, …), or - for standard output (OBJ unless --format stl).")
    var output: String

    @Option(name: .customLong("target-vertices"), help: "Exact number of vertices of the result.")
    var targetVertices: Int

    @Option(help: "Output format; by default taken from OUT's extension (obj for standard output).")
    var format: Format?

    @Flag(help: "Print {\"mesh\": …, \"timingsMs\": …} as JSON (on standard error when OUT is -).")
    var json = false

    /// Format for standard output.
    private func outputFormat() -> MeshFormat { format == .stl ? .stl : .obj }

    /// Errors are printed and mapped to exit codes by `FaceScan.main()`.
    func run() throws {
        var clock = Stopwatch()
        let total = Stopwatch()
        let mesh = try MeshIO.read(path: input)
        let readMs = clock.lap()
        let result = try Decimation.simplify(mesh, targetVertices: targetVertices)
        let decimateMs = clock.lap()
        if output == "-" {
            try Self.writeAll(outputFormat() == .stl ? result.stlBytes() : result.objBytes(), to: 1)
        } else {
            try MeshIO.write(result, to: output, format: format?.rawValue)
        }
        let exportMs = clock.lap()

        guard json else { return }
        var report = Report(input: input)
        report.mesh.inputVertices = mesh.vertexCount
        report.mesh.inputTriangles = mesh.triangleCount
        report.mesh.outputVertices = result.vertexCount
        report.mesh.outputTriangles = result.triangleCount
        report.timingsMs.ingest = readMs
        report.timingsMs.decimate = decimateMs
        report.timingsMs.export = exportMs
        report.timingsMs.total = total.elapsed
        let text = JSONValue.object([("mesh", report.meshJSON), ("timingsMs", report.timingsJSON)]).serialized() + "\n"
        try Self.writeAll(Array(text.utf8), to: output == "-" ? 2 : 1)
    }

    /// Writes all of `bytes` to file descriptor `fd` (1 standard output, 2 standard error).
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(IOFailure) {
        var failure: String? = nil
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                off += n
            }
        }
        if let failure { throw IOFailure(path: fd == 1 ? "-" : "(standard error)", "write failed: \(failure)") }
    }
}
