import ArgumentParser
import FaceScanKit

/// How the mesh commands read their input: a capture file is pointed to `process`, and a mesh
/// whose size is implausible for a face in the assumed unit gets a warning naming the flag.
enum MeshInput {
    /// A face is this many millimetres across, give or take a lot: outside, the unit is likely wrong.
    static let plausibleFaceMillimetres = 10.0...2000.0

    /// Reads the mesh at `path` (a file that states its unit, such as 3MF, converted into `unit`).
    static func read(_ path: String, command: String, unit: LengthUnit = .mm) throws -> Mesh {
        try Terminal.refuseTerminalInput(
            path, what: "an OBJ or STL mesh", example: "facescan \(command) - < face.stl, or … | facescan \(command) -")
        if CaptureSniff.looksLikeCapture(atPath: path) {
            throw UsageError(
                "\(path) is a facescan capture, not a mesh: make a mesh with facescan process \(path), then \(command) its STL or OBJ"
            )
        }
        return try MeshIO.read(path: path, unit: unit)
    }

    /// `--units` of a command that reads IN and writes a mesh (convert, simplify).
    static let unitsHelp = ArgumentHelp(
        "Unit of IN's coordinates when its format states none (OBJ, STL, PLY, …): mm or m; it decides the size written to a format that states its unit (GLB, DAE, X3D, FBX, 3MF). (default: mm, with a warning when that matters and the size is not a face's)"
    )

    /// Reads IN in `units` (mm when nil) for a command writing OUT in `format` (default: OUT's
    /// extension), warning when the assumed unit decides the size written and it is not a face's.
    static func read(
        _ input: String, command: String, units: LengthUnit?, output: String, format: FileFormat?, verbosity: Verbosity
    ) throws -> Mesh {
        let unit = units ?? .mm
        let mesh = try read(input, command: command, unit: unit)
        if unitDecidesOutput(input: input, output: output, format: format) {
            checkSize(mesh, path: input, unit: unit, declared: units != nil, verbosity: verbosity)
        }
        return mesh
    }

    /// A file's format from its extension (nil for `-`).
    static func formatOf(_ path: String) -> String? {
        guard path != "-", let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return String(path[path.index(after: dot)...]).lowercased()
    }

    /// Whether the assumed unit decides the output's size: a unit-less input (OBJ, STL, PLY, …)
    /// written to a format that states its unit (GLB, DAE, X3D, FBX, 3MF).
    static func unitDecidesOutput(input: String, output: String, format: FileFormat?) -> Bool {
        let inStates = formatOf(input).flatMap(FileFormat.named)?.statedUnitMillimetres != nil
        let outFormat = format ?? formatOf(output).flatMap(FileFormat.named) ?? .obj
        return !inStates && outFormat.statedUnitMillimetres != nil
    }

    /// A `--format` value, parsed once: a mesh format facescan writes, by its name, an alias or
    /// an assimp export id (`plyb`); anything else is refused with the formats it could be.
    static func parseFormat(_ text: String) throws -> FileFormat {
        guard let f = FileFormat.writableMesh(named: text) else { throw MeshIO.unknownMeshFormat(text) }
        return f
    }

    /// The largest side of the mesh's bounding box, in the file's unit (0 for no vertex).
    static func largestExtent(_ m: Mesh) -> Double {
        guard var lo = m.positions.first else { return 0 }
        var hi = lo
        for p in m.positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let d = hi - lo
        return Double(max(d.x, d.y, d.z))
    }

    /// Warns (unless quiet) when `unit` was assumed, not given, and the mesh's size in it is not
    /// a face's.
    static func checkSize(
        _ m: Mesh, path: String, unit: LengthUnit, declared: Bool, flag: String = "--units", verbosity: Verbosity
    ) {
        let mm = largestExtent(m) * unit.millimetres
        verbosity.note(
            "\(path): \(m.vertexCount) vertices, \(m.triangleCount) triangles, \(format(mm)) mm across as \(unit.rawValue)"
        )
        guard !declared, mm.isFinite, !plausibleFaceMillimetres.contains(mm) else { return }
        let other: LengthUnit = unit == .mm ? .m : .mm
        let size = unit == .mm ? "\(format(mm)) mm" : "\(format(mm / 1000)) m"
        verbosity.warn(
            "\(path) is \(size) across read as \(unit == .mm ? "millimetres" : "metres"): \(mm < plausibleFaceMillimetres.lowerBound ? "too small" : "too large") for a face; if its coordinates are in \(other == .m ? "metres" : "millimetres"), add \(flag) \(other.rawValue) (\(flag) \(unit.rawValue) silences this)"
        )
    }

    /// Three significant digits, without exponent for ordinary sizes.
    static func format(_ x: Double) -> String {
        guard x.isFinite, x != 0 else { return "\(x)" }
        // Beyond 15 digits (a mesh 1e32 across): the shortest form, e.g. 2.9e+32; no Int conversion.
        guard abs(x) < 1e15 else { return "\(x)" }
        var scale = 1.0
        var digits = 0
        while abs(x) * scale < 100 && digits < 9 { scale *= 10; digits += 1 }
        let r = (x * scale).rounded() / scale
        if digits == 0 { return "\(Int(r))" }
        let whole = Int(r.rounded(.towardZero))
        var frac = String(Int((abs(r - Double(whole)) * scale).rounded()))
        while frac.count < digits { frac = "0" + frac }
        while frac.hasSuffix("0") { frac.removeLast() }
        return "\(r < 0 && whole == 0 ? "-" : "")\(whole)\(frac.isEmpty ? "" : "." + frac)"
    }
}
