extension SolidOptions {
    /// Checks the options: ``thickness`` in ``thicknessRange``, ``depth`` in ``depthRange``,
    /// ``fitMargin`` in ``fitMarginRange``, ``fit`` (when set) three positive finite sizes. NaN is
    /// never in range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first option out of range, e.g.
    ///   `SolidOptions.thickness must be from 0.01 to 1000 mm, found -2.0`.
    public func validate() throws(FaceScanError) {
        try lift { () throws(UsageError) in try check(SettingNames(name: { "SolidOptions." + $0 })) }
    }

    /// ``validate()`` with the narrow error, each option named by `names`.
    func check(_ names: SettingNames) throws(UsageError) {
        func bad(_ path: String, _ range: String, _ value: Any) -> UsageError {
            UsageError("\(names.name(path)) must be \(range), found \(value)", field: names.fieldName(path))
        }
        guard !names.checks("thickness") || Self.thicknessRange.contains(thickness) else {
            throw bad("thickness", Self.thicknessRangeText, thickness)
        }
        guard !names.checks("depth") || Self.depthRange.contains(depth) else {
            throw bad("depth", Self.depthRangeText, depth)
        }
        guard !names.checks("fitMargin") || Self.fitMarginRange.contains(fitMargin) else {
            throw bad("fitMargin", Self.fitMarginRangeText, fitMargin)
        }
        if names.checks("fit"), let fit, !(fit.min() > 0 && fit.max().isFinite) {
            throw bad("fit", "three positive finite sizes in mm", "\(fit.x)x\(fit.y)x\(fit.z)")
        }
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
