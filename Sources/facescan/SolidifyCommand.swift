import ArgumentParser
import FaceScanKit
import FacescanTools

/// `facescan solidify IN OUT`: close a face surface into a part in printing position. All the work
/// is ``Solidify``'s; the options are `process`'s (``SolidFlags``).
struct SolidifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "solidify",
        abstract: "Close a face surface into a watertight solid for printing.",
        discussion: """
            The face must look toward +z. Fills every boundary loop but the outer rim (eyes, mouth, \
            nostrils) with a fair patch and cuts the surface by a plane --depth mm behind its frontmost \
            point, the rim above the cut carried straight down onto it; where the rim would overhang the \
            cut or the part cross itself, the cut moves forward (--verbose prints the depth used). Then \
            either adds a back surface --thickness mm behind the face, a shell standing on a plinth \
            (default), or with --base fills the space between the face and the cut plane (a relief). The \
            part comes out in printing position: centred on x and y, the cut plane at z = 0, the face \
            looking up (+z); --fit scales it down uniformly to fit the build volume. OUT's extension picks \
            the format: \(MeshIO.writableExtensions.joined(separator: ", ")).
            """)

    @Argument(
        help: "Input surface (OBJ, STL, or any format assimp reads; - for OBJ/STL on standard input).",
        completion: Completions.meshFile)
    var input: String
    @Argument(
        help:
            "Output solid; its extension picks the format (- for standard output: OBJ unless --format says otherwise).",
        completion: Completions.anyFile)
    var output: String
    @Option(
        help: "Output format (an extension or an assimp export id) instead of OUT's extension.",
        completion: Completions.meshFormat, transform: MeshInput.parseFormat)
    var format: FileFormat?
    @OptionGroup var solid: SolidFlags
    @Option(
        help:
            "Unit of IN's coordinates: mm or m (OUT keeps it). (default: mm, with a warning when the size is not a face's)"
    ) var units: LengthUnit?
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        try Terminal.refuseBinaryOutput(output, format: format)
    }

    func run() throws {
        let unit = units ?? .mm
        let mesh = try MeshInput.read(input, command: "solidify", unit: unit)
        MeshInput.checkSize(mesh, path: input, unit: unit, declared: units != nil, verbosity: verbosity)
        let options = solid.options
        // A shell's wall, not a relief's (which has none), must fit in the part.
        let across = MeshInput.largestExtent(mesh) * unit.millimetres
        if !options.base, options.thickness > across {
            let hint = units == nil ? "; if its coordinates are in metres, add --units m" : ""
            throw UsageError(
                "\(input): --thickness \(MeshInput.format(options.thickness)) mm is larger than the part (\(MeshInput.format(across)) mm across as \(unit.rawValue))\(hint)"
            )
        }
        let part: Solidify.Part
        do throws(SolidError) {
            part = try Solidify.makePart(mesh, options: options, unitInMillimetres: unit.millimetres)
        } catch {
            throw UsageError(SolidFlags.inFlags(error.message)).naming(input: input)
        }
        try OutputSet.write(
            MeshIO.fileBytes(part.mesh, for: output, format: format, unit: unit, printingPosition: true), to: output)
        // The report's depthMm and scale (process --json), in words.
        if !part.cutAsAsked { verbosity.warn("\(input): \(Solidify.movedCutWarning(part))") }
        let t = part.turn
        verbosity.note(
            "solid: depth \(MeshInput.format(part.depth)) mm, scale \(MeshInput.format(part.scale)), turned yaw \(MeshInput.format(t.yaw))°, pitch \(MeshInput.format(t.pitch))°, roll \(MeshInput.format(t.roll))°"
        )
    }
}
