import FaceScanCore

extension SolidOptions {
    /// Checks the options: ``thickness`` in ``thicknessRange``, ``depth`` in ``depthRange``,
    /// ``fitMargin`` in ``fitMarginRange``, ``fit`` (when set) three positive finite sizes that
    /// leave room inside the margin. NaN is never in range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first option out of range, e.g.
    ///   `SolidOptions.thickness must be from 0.01 to 1000 mm, found -2.0`.
    public func validate() throws(FaceScanError) {
        try lift { () throws(UsageError) in try check(SettingNames(name: { "SolidOptions." + $0 })) }
    }

    /// ``validate()`` with the narrow error, each option named by `names` (the API property, a
    /// capture's settings key or the command line's flag): the one statement of the rules.
    package func check(_ names: SettingNames) throws(UsageError) {
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
        guard names.checks("fit"), let fit else { return }
        guard fit.min() > 0, fit.max().isFinite else {
            throw bad("fit", "three positive finite sizes in mm", "\(fit.x)x\(fit.y)x\(fit.z)")
        }
        guard min(fit.x, fit.y) > 2 * fitMargin else {
            throw UsageError(
                "\(names.name("fit")) \(fit.x)x\(fit.y)x\(fit.z) mm leaves no room inside \(names.name("fitMargin")) \(fitMargin) mm on each side",
                field: names.fieldName("fit"))
        }
    }

    /// The solid step's own check: the options by their API names (`p` before each) and the mesh unit.
    package func check(prefix p: String = "SolidOptions.", unitInMillimetres unit: Double = 1) throws(UsageError) {
        try check(SettingNames(name: { p + $0 }))
        guard unit.isFinite, unit > 0 else {
            throw UsageError("the mesh unit must be a positive length in millimetres, found \(unit)")
        }
    }
}
