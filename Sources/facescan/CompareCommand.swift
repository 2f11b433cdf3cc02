import ArgumentParser
import FaceScanKit
import FacescanTools

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

    @Argument(
        help: "First mesh (any format facescan reads; - for OBJ/STL on standard input).",
        completion: Completions.meshFile)
    var a: String
    @Argument(help: "Second mesh (--units-b when its unit is not the first's).", completion: Completions.meshFile)
    var b: String
    @Flag(help: "Print one JSON object instead of a line of text.") var json = false
    @Option(parsing: .unconditional, help: "Surface samples taken on each mesh (1 to 10 000 000).") var samples =
        100_000
    @Option(
        help:
            "Length unit of both meshes: mm or m. (default: m; the two meshes' sizes more than 100× apart are refused)")
    var units: LengthUnit?
    @Option(name: .customLong("units-a"), help: "Length unit of the first mesh alone: mm or m. (default: --units)")
    var unitsA: LengthUnit?
    @Option(name: .customLong("units-b"), help: "Length unit of the second mesh alone: mm or m. (default: --units)")
    var unitsB: LengthUnit?
    @Option(
        help: ArgumentHelp(
            "Also write a PNG of A with each point coloured by its distance to B (viridis, legend in µm).",
            valueName: "PNG"), completion: Completions.pngFile)
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
        if let h = heatmap { try Terminal.refuseBinaryOutput(h, format: .png) }
        if let m = heatmapMaxUm, !(m > 0 && m.isFinite) {
            throw ValidationError("--heatmap-max-um must be a number > 0")
        }
    }

    /// Two meshes whose sizes differ by more than this factor are not one surface in one unit.
    static let largestSizeRatio = 100.0

    /// Errors are printed and mapped to exit codes by `FaceScan.main()`.
    func run() throws {
        // Distances are measured in A's unit: B is read in its own and scaled into A's.
        let unit = unitsA ?? units ?? .m
        let unitOfB = unitsB ?? units ?? .m
        let meshA = try MeshInput.read(a, command: "compare", unit: unit)
        let rawB = try MeshInput.read(b, command: "compare", unit: unitOfB)
        let meshB = unitOfB == unit ? rawB : try rawB.scaled(by: Float(unitOfB.millimetres / unit.millimetres))
        // Sizes that agree but are not a face's are likely both in the other unit: --units fixes both.
        let agree = try checkSizesAgree(meshA, meshB, unit: unit, unitOfB: unitOfB)
        MeshInput.checkSize(
            meshA, path: a, unit: unit, declared: unitsA ?? units != nil, flag: agree ? "--units" : "--units-a",
            verbosity: verbosity)
        MeshInput.checkSize(
            rawB, path: b, unit: unitOfB,
            declared: unitsB ?? units != nil, flag: agree ? "--units" : "--units-b", verbosity: verbosity)
        let e = SurfaceDistance.symmetric(
            meshA, meshB, samplesPerMesh: samples, unitToMicrometres: unit.millimetres * 1000)
        if let heatmap {
            let d = SurfaceDistance.perVertex(meshA, to: meshB, unitToMicrometres: unit.millimetres * 1000)
            let caption = [
                "A (coloured): \(a)", "B: \(b)",
                "RMS \(Self.fixed1(e.rms)) µm, max \(Self.fixed1(e.max)) µm, mean \(Self.fixed1(e.mean)) µm",
            ]
            let image = try Heatmap.render(
                meshA.atWorkingMagnitude, valuesUm: d, maxUm: heatmapMaxUm, caption: caption
            ).image
            try OutputSet.write(PNGEncoder.encode(image, name: heatmap), to: heatmap)
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

    /// Refuses (exit 2) two meshes whose sizes, in the units assumed, differ by more than
    /// ``largestSizeRatio``: a face in metres against one in millimetres gives a distance of
    /// metres, not an error of micrometres. Stating each file's unit (`--units-a` and
    /// `--units-b`) turns the refusal into a warning.
    /// Returns whether the sizes agree (false only after the warning, with both units stated).
    func checkSizesAgree(_ meshA: Mesh, _ meshB: Mesh, unit: LengthUnit, unitOfB: LengthUnit) throws -> Bool {
        let sizeA = MeshInput.largestExtent(meshA) * unit.millimetres
        let sizeB = MeshInput.largestExtent(meshB) * unit.millimetres
        guard sizeA > 0, sizeB > 0, sizeA.isFinite, sizeB.isFinite else { return true }
        let ratio = max(sizeA, sizeB) / min(sizeA, sizeB)
        guard ratio > Self.largestSizeRatio else { return true }
        let sizes =
            "\(a) is \(MeshInput.format(sizeA)) mm across read as \(unit.rawValue), \(b) \(MeshInput.format(sizeB)) mm read as \(unitOfB.rawValue)"
        let text =
            "\(sizes): \(MeshInput.format(ratio))× apart, not one surface in one unit"
        if unitsA != nil && unitsB != nil {
            verbosity.warn(text)
            return false
        }
        // The one file whose other unit brings the sizes nearest together.
        func flipped(_ u: LengthUnit) -> LengthUnit { u == .mm ? .m : .mm }
        let otherB = flipped(unitOfB), otherA = flipped(unit)
        let ratioIfB = abs(log10(sizeB / unitOfB.millimetres * otherB.millimetres / sizeA))
        let ratioIfA = abs(log10(sizeA / unit.millimetres * otherA.millimetres / sizeB))
        func words(_ u: LengthUnit) -> String { u == .m ? "metres" : "millimetres" }
        var hint = ""
        if min(ratioIfA, ratioIfB) < log10(ratio) {
            hint =
                ratioIfB <= ratioIfA
                ? "; if \(b) is in \(words(otherB)), add --units-b \(otherB.rawValue)"
                : "; if \(a) is in \(words(otherA)), add --units-a \(otherA.rawValue)"
        }
        throw UsageError("\(text)\(hint) (give each file's unit with --units-a and --units-b)")
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
