import ArgumentParser
import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `facescan compare A B`: symmetric surface distance between two meshes, in micrometres.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Symmetric surface distance between two meshes (rms, max and mean, in micrometres).")

    @Argument(help: "First mesh (any format facescan reads; - for OBJ/STL on standard input).") var a: String
    @Argument(help: "Second mesh, in the same unit as the first.") var b: String
    @Flag(help: "Print one JSON object instead of a line of text.") var json = false
    @Option(parsing: .unconditional, help: "Surface samples taken on each mesh (1 to 10 000 000).") var samples =
        100_000
    @Option(help: "Length unit of both meshes: mm or m. (default: m, with a warning when a size is not a face's)")
    var units: LengthUnit?
    @Option(
        help: ArgumentHelp(
            "Also write a PNG of A with each point coloured by its distance to B (viridis, legend in µm).",
            valueName: "PNG"))
    var heatmap: String?
    @Option(
        name: .customLong("heatmap-max-um"), parsing: .unconditional,
        help:
            "Distance at the top of the heatmap's colour scale, µm (default: the largest, rounded up to 1, 2, 2.5 or 5 × 10^k)."
    )
    var heatmapMaxUm: Double?
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        guard (1...10_000_000).contains(samples) else {
            throw ValidationError("--samples must be from 1 to 10000000, got \(samples)")
        }
        guard a != "-" || b != "-" else {
            throw ValidationError("only one of the two meshes can come from standard input (-)")
        }
        if let h = heatmap, h != "-" && !h.hasSuffix(".png") {
            throw ValidationError("--heatmap must name a .png file (or - for standard output), got '\(h)'")
        }
        if let m = heatmapMaxUm, !(m > 0 && m.isFinite) {
            throw ValidationError("--heatmap-max-um must be a number > 0")
        }
    }

    /// Errors are printed and mapped to exit codes by `FaceScan.main()`.
    func run() throws {
        let unit = units ?? .m
        let meshA = try MeshInput.read(a, command: "compare", unit: unit)
        let meshB = try MeshInput.read(b, command: "compare", unit: unit)
        MeshInput.checkSize(meshA, path: a, unit: unit, declared: units != nil, verbosity: verbosity)
        MeshInput.checkSize(meshB, path: b, unit: unit, declared: units != nil, verbosity: verbosity)
        let e = SurfaceDistance.symmetric(
            meshA, meshB, samplesPerMesh: samples, unitToMicrometres: unit.millimetres * 1000)
        if let heatmap {
            let d = SurfaceDistance.perVertex(meshA, to: meshB, unitToMicrometres: unit.millimetres * 1000)
            try PNGEncoder.write(Heatmap.render(meshA, valuesUm: d, maxUm: heatmapMaxUm).image, to: heatmap)
        }
        if json {
            let rounded = { (x: Double) in JSONValue.double((x * 1000).rounded() / 1000) }
            let out = JSONValue.object([
                ("a", .string(a)), ("b", .string(b)),
                ("rmsUm", rounded(e.rms)), ("maxUm", rounded(e.max)), ("meanUm", rounded(e.mean)),
            ])
            print(out.serialized())
        } else {
            print("rms_um \(Self.fixed1(e.rms)) max_um \(Self.fixed1(e.max)) mean_um \(Self.fixed1(e.mean))")
        }
    }

    /// One decimal place, like meshdiff.py's `%.1f`.
    static func fixed1(_ x: Double) -> String {
        guard x.isFinite else { return x > 0 ? "inf" : "nan" }
        guard abs(x) < 1e15 else { return "\(x)" }  // beyond Int's digits: shortest form, e.g. 2.9e+20
        let tenths = (x * 10).rounded()
        let whole = (tenths / 10).rounded(.towardZero)
        let frac = Int(abs(tenths - whole * 10))
        return "\(tenths < 0 && whole == 0 ? "-" : "")\(Int(whole)).\(frac)"
    }
}
