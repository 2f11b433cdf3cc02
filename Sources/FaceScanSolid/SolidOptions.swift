import FaceScanCore

/// How ``Solidify/solid(_:options:unitInMillimetres:vertexCount:)`` closes a face surface and
/// places it for printing.
public struct SolidOptions: Sendable, Hashable, Codable {
    /// Millimetres. Shell: the wall thickness (the back is the level set this far behind the face,
    /// measured to the nearest point of the face). Relief (``base``): unused.
    public var thickness = 2.0
    /// false: a shell of constant thickness standing on its rim. true: a relief, the space between
    /// the face and the cut plane filled solid.
    public var base = false
    /// Millimetres: the cut plane lies this far behind the frontmost point, along the face's
    /// forward axis; everything behind it is cut away and the rim above it is carried down onto it.
    public var depth = SolidOptions.defaultDepth
    /// Printer build volume in millimetres (width x, depth y, height z): the part is scaled down
    /// uniformly, never up, to fit it less ``fitMargin`` on each side of the bed. nil: life size.
    public var fit: SIMD3<Double>? = nil
    /// Millimetres kept free on each side of the bed (x and y) when fitting: room for the slicer's
    /// skirt or brim (PrusaSlicer's skirt lies 6 mm from the part, Cura's brim is 8 mm wide).
    public var fitMargin = SolidOptions.defaultFitMargin
    /// true: the part is cut and laid on the bed along the face's own forward axis and symmetry
    /// plane, found from the surface. false: along the capture's axes (+z forward, +y up).
    public var align = true

    /// Accepted thickness, millimetres: thinner walls would fall below 32-bit float resolution on
    /// a face-sized part.
    public static let thicknessRange = 0.01...1000.0
    /// ``thicknessRange`` as messages state it.
    public static let thicknessRangeText = "from 0.01 to 1000 mm"
    /// Default ``depth``, the rule: a face is about 45 mm deep from its nose tip to where its
    /// cheeks turn toward the ears; the cut lies behind that, plus a shell's plinth (two
    /// thicknesses) and a margin for the eye sockets' outer corners and the jaw line, so the whole
    /// face, eyes, cheeks and forehead, is on the part. A scan that ends sooner is carried down to
    /// the cut by a vertical skirt; one that overhangs the cut (under the chin) moves it forward,
    /// and ``Solidify/Part`` says so.
    public static let defaultDepth = 60.0
    /// Default ``fitMargin``, millimetres.
    public static let defaultFitMargin = 10.0
    /// Accepted ``fitMargin``, millimetres.
    public static let fitMarginRange = 0.0...100.0
    /// ``fitMarginRange`` as messages state it.
    public static let fitMarginRangeText = "from 0 to 100 mm"
    /// Accepted depth, millimetres.
    public static let depthRange = 1.0...1000.0
    /// ``depthRange`` as messages state it.
    public static let depthRangeText = "from 1 to 1000 mm"

    /// A build volume written `WxDxH` in millimetres (`250x210x210`), nil unless three positive
    /// finite numbers.
    public static func parseBuildVolume(_ text: String) -> SIMD3<Double>? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 3, let w = parts[0], let d = parts[1], let h = parts[2],
            w > 0, d > 0, h > 0, w.isFinite, d.isFinite, h.isFinite
        else { return nil }
        return SIMD3(w, d, h)
    }

    /// Options for a solid part (see each property; lengths in millimetres); not checked here.
    public init(
        thickness: Double = 2.0, base: Bool = false, depth: Double = SolidOptions.defaultDepth,
        fit: SIMD3<Double>? = nil, fitMargin: Double = SolidOptions.defaultFitMargin, align: Bool = true
    ) {
        self.thickness = thickness
        self.base = base
        self.depth = depth
        self.fit = fit
        self.fitMargin = fitMargin
        self.align = align
    }
}

extension SolidOptions {
    /// The largest coordinate of a surface to solidify, in millimetres: the largest a 3MF file (the
    /// printers' format) holds. Beyond it the part's distance field and intersection search would
    /// work on numbers near the float limits.
    package static let largestSurfaceMillimetres = 1e9

    /// Refuses a surface whose coordinates reach beyond ``largestSurfaceMillimetres``.
    package static func checkSurface(_ mesh: Mesh, unitInMillimetres: Double) throws(UsageError) {
        let reach = Double(mesh.largestMagnitude) * unitInMillimetres
        guard reach > largestSurfaceMillimetres else { return }
        throw UsageError(
            "the coordinates reach \(mesh.largestMagnitude) (\(reach) mm), beyond 1e9 mm, the largest a printable part (3MF) holds; scale the mesh down first"
        )
    }
}
