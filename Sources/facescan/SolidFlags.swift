import ArgumentParser
import FaceScanKit

/// The options of a solid part, shared by `process` and `batch` (in ``PipelineFlags``) and
/// `solidify`: one help text and one check for each. Unset options keep ``SolidOptions``'s defaults.
struct SolidFlags: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Solid: wall thickness of the shell in mm (unused with --base). (default: \(SolidFlags.defaultThickness))"
    )
    var thickness: Double?

    @Flag(help: "Solid: fill the space behind the face down to the cut plane (a relief) instead of a shell.")
    var base = false

    @Option(
        parsing: .unconditional,
        help:
            "Solid: cut plane this many mm behind the frontmost point; the part stands on it. (default: \(SolidFlags.defaultDepth))"
    )
    var depth: Double?

    @Option(
        parsing: .unconditional,
        help: "Solid: scale down uniformly to fit a build volume WxDxH in mm, e.g. 250x210x210. (default: life size)")
    var fit: String?

    @Option(
        name: .customLong("fit-margin"), parsing: .unconditional,
        help:
            "Solid: mm kept free on each side of the bed with --fit, room for the slicer's skirt or brim. (default: \(SolidFlags.defaultFitMargin))"
    )
    var fitMargin: Double?

    private static let defaultFitMargin = MeshInput.format(SolidOptions.defaultFitMargin)
    private static let defaultThickness = MeshInput.format(SolidOptions().thickness)
    private static let defaultDepth = MeshInput.format(SolidOptions.defaultDepth)

    /// Whether any of these options was given (for `process`, each implies `--solid`).
    var isSet: Bool { thickness != nil || base || depth != nil || fit != nil || fitMargin != nil }

    /// The flags by the library's rules (`SolidOptions.check`, the one statement of each range),
    /// each given flag named as such; what only the command line has (the `--fit` text) here.
    func validate() throws {
        // `--fit` against the margin is the library's to judge where the part is made.
        let given = ["thickness": thickness != nil, "depth": depth != nil, "fitMargin": fitMargin != nil]
        do {
            try options.check(SettingNames(name: { Self.flags[$0] ?? $0 }, checks: { given[$0] ?? false }))
        } catch {
            throw ValidationError(error.message)
        }
        if let f = fit, SolidOptions.parseBuildVolume(f) == nil {
            throw ValidationError("--fit must be three positive sizes in mm, WxDxH (e.g. 250x210x210), found '\(f)'")
        }
    }

    /// The library's options for these flags.
    var options: SolidOptions {
        let defaults = SolidOptions()
        return SolidOptions(
            thickness: thickness ?? defaults.thickness, base: base, depth: depth ?? defaults.depth,
            fit: fit.flatMap(SolidOptions.parseBuildVolume), fitMargin: fitMargin ?? defaults.fitMargin)
    }

    /// The flag of each option, by its path in `SolidOptions`.
    static let flags = ["thickness": "--thickness", "depth": "--depth", "fitMargin": "--fit-margin"]

    /// A library message with the options' API names (`SolidOptions.thickness`) said as this
    /// command's flags (`--thickness`).
    static func inFlags(_ message: String) -> String {
        var m = message
        for (api, flag) in [
            ("SolidOptions.fitMargin", "--fit-margin"), ("SolidOptions.thickness", "--thickness"),
            ("SolidOptions.depth", "--depth"), ("SolidOptions.base", "--base"), ("SolidOptions.fit", "--fit"),
        ] {
            m = m.replacing(api, with: flag)
        }
        return m
    }
}
