extension SolidOptions {
    /// Checks the options: ``thickness`` in ``thicknessRange``, ``depth`` in ``depthRange``,
    /// ``fitMargin`` in ``fitMarginRange``, ``fit`` (when set) three positive finite sizes that
    /// leave room inside the margin. NaN is never in range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first option out of range, e.g.
    ///   `SolidOptions.thickness must be from 0.01 to 1000 mm, found -2.0`.
    public func validate() throws(FaceScanError) {
        do throws(UsageError) { try check() } catch { throw .badSetting(error) }
    }

    /// ``validate()`` with the narrow error: the one check of the options, by their API names
    /// (the CLI says its flags instead), `p` before each name, and of the mesh unit.
    func check(prefix p: String = "SolidOptions.", unitInMillimetres unit: Double = 1) throws(UsageError) {
        guard Self.thicknessRange.contains(thickness) else {
            throw UsageError(
                "\(p)thickness must be \(Self.thicknessRangeText), found \(thickness)", field: p + "thickness")
        }
        guard Self.depthRange.contains(depth) else {
            throw UsageError("\(p)depth must be \(Self.depthRangeText), found \(depth)", field: p + "depth")
        }
        guard Self.fitMarginRange.contains(fitMargin) else {
            throw UsageError(
                "\(p)fitMargin must be \(Self.fitMarginRangeText), found \(fitMargin)", field: p + "fitMargin")
        }
        if let fit {
            guard fit.min() > 0, fit.max().isFinite else {
                throw UsageError(
                    "\(p)fit must be three positive finite sizes in mm, found \(fit.x)x\(fit.y)x\(fit.z)",
                    field: p + "fit")
            }
            guard min(fit.x, fit.y) > 2 * fitMargin else {
                throw UsageError(
                    "\(p)fit \(fit.x)x\(fit.y)x\(fit.z) mm leaves no room inside \(p)fitMargin \(fitMargin) mm on each side",
                    field: p + "fit")
            }
        }
        guard unit.isFinite, unit > 0 else {
            throw UsageError("the mesh unit must be a positive length in millimetres, found \(unit)")
        }
    }
}
