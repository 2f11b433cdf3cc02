import ArgumentParser
import FaceScanKit

#if canImport(Glibc)
import Glibc
#endif

extension Quality: ExpressibleByArgument {}
extension LengthUnit: ExpressibleByArgument {}
extension SmoothingWeights: ExpressibleByArgument {}

struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process a capture into a mesh: STL, OBJ and a PNG thumbnail.",
        discussion: """
            Reads a capture in format v1 (JSON document or NDJSON stream; '-' reads standard input), \
            keeps the frames that pass the quality gate, averages and smooths them, brings the mesh to \
            the target vertex count and writes DIR/NAME.FORMAT for every format. Flags override the \
            capture's settings. With --json, one JSON report is printed on standard output (also when \
            no frame passed the gate, exit 3).
            """)

    @Argument(help: "Capture file (JSON or NDJSON), or - for standard input.")
    var input: String

    @Option(name: .customLong("output-dir"), help: "Directory for the outputs (created if its parent exists).")
    var outputDir = "out"

    @Option(help: "Base name of the outputs (default: the input's file name without extension).")
    var name: String?

    @Option(help: "Comma-separated output formats: stl, obj, png, and ply, glb, dae, fbx, x3d, x, 3ds (through assimp).")
    var formats: String?

    @Option(help: "Output size preset: low (5000), medium (10000) or high (20000 vertices).")
    var quality: Quality?

    @Option(name: .customLong("target-vertices"), help: "Exact output vertex count (overrides --quality).")
    var targetVertices: Int?

    @Option(help: "Smoothing passes (Taubin λ|μ; 0 disables).")
    var smoothing: Int?

    @Option(help: "Smoothing weights: uniform or cotangent.")
    var weights: SmoothingWeights = .cotangent

    @Option(help: "Output length unit: mm or m (input is metres).")
    var units: LengthUnit?

    @Option(help: "Uniform scale factor applied after the unit conversion.")
    var scale: Double?

    @Option(name: .customLong("max-frames"), help: "Stop after this many accepted frames.")
    var maxFrames: Int?

    @Option(name: .customLong("thumbnail-size"), help: "Thumbnail width and height in pixels.")
    var thumbnailSize = 512

    @Flag(help: "Close the face into a watertight, printable solid (see --thickness, --base).")
    var solid = false

    @Option(help: "Solid: wall thickness, or with --base the distance of the base behind the face, in mm.")
    var thickness: Double?

    @Flag(help: "Solid: extrude the rim back to a flat base instead of a shell.")
    var base = false

    @Flag(help: "Print one JSON report on standard output.")
    var json = false

    @Flag(help: "Print nothing on standard error but errors.")
    var quiet = false

    func validate() throws {
        if let t = targetVertices, t < 4 { throw ValidationError("--target-vertices must be at least 4") }
        if let s = smoothing, !(0...1000).contains(s) { throw ValidationError("--smoothing must be from 0 to 1000") }
        if let s = scale, !(s > 0 && s <= 1e6) { throw ValidationError("--scale must be a positive number, at most 1e6") }
        if let m = maxFrames, m < 1 { throw ValidationError("--max-frames must be at least 1") }
        if let t = thickness, !(t > 0 && t <= 1000) { throw ValidationError("--thickness must be from 0 to 1000 mm") }
        if !(16...8192).contains(thumbnailSize) { throw ValidationError("--thumbnail-size must be from 16 to 8192") }
    }

    func run() throws {
        var options = PipelineOptions()
        options.outputDirectory = outputDir
        options.name = name
        options.formats = formats.map { $0.split(separator: ",").map(String.init) }
        options.quality = quality
        options.targetVertices = targetVertices
        options.smoothingIterations = smoothing
        options.smoothingWeights = weights
        options.units = units
        options.scale = scale
        options.maxFrames = maxFrames
        options.thumbnailSize = thumbnailSize
        if solid || thickness != nil || base {
            options.solid = SolidOptions(thickness: thickness ?? 2.0, base: base)
        }

        let showProgress = !quiet && Console.stderrIsTerminal
        let report: Report
        do {
            report = try Pipeline.process(input: input, options: options, progress: showProgress ? { p in
                if p.framesRead % 10 == 0 { Console.raw("\rreading: \(p.framesRead) frames, \(p.accepted) accepted") }
            } : nil)
        } catch let failure as NoAcceptedFrames {
            if showProgress { Console.raw("\r\u{1B}[K") }
            if json { print(failure.report.json.serialized()) }
            throw failure
        } catch {
            if showProgress { Console.raw("\r\u{1B}[K") }
            throw error
        }
        if showProgress { Console.raw("\r\u{1B}[K") }
        if json { print(report.json.serialized()) }
        if !quiet { Console.error(Summary.text(report)) }
    }
}

/// The human summary printed on standard error.
enum Summary {
    static func text(_ r: Report) -> String {
        let rej = r.frames.rejected
        var lines = [
            "\(r.input): \(r.frames.read) frames read, \(r.frames.accepted) accepted; rejected: distance \(rej.distance), tracking \(rej.tracking), lighting \(rej.lighting), expression \(rej.expression)",
            "mesh: \(r.mesh.inputVertices) vertices, \(r.mesh.inputTriangles) triangles -> \(r.mesh.outputVertices) vertices, \(r.mesh.outputTriangles) triangles",
        ]
        for o in r.outputs { lines.append("wrote \(o.path) (\(o.bytes) bytes)") }
        let t = r.timingsMs
        lines.append("time: ingest \(ms(t.ingest)), smooth \(ms(t.smooth)), decimate \(ms(t.decimate)), render \(ms(t.render)), export \(ms(t.export)), total \(ms(t.total))")
        return lines.joined(separator: "\n")
    }

    static func ms(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return "\(r) ms"
    }
}
