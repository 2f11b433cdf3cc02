extension SolidOptions {
    /// Checks the options: ``thickness`` in ``thicknessRange``, ``depth`` in ``depthRange``,
    /// ``fit`` (when set) three positive finite sizes. NaN is never in range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first option out of range, e.g.
    ///   `SolidOptions.thickness must be from 0.01 to 1000 mm, found -2.0`.
    public func validate() throws(FaceScanError) {
        do throws(UsageError) { try check(prefix: "SolidOptions.") } catch { throw .badSetting(error) }
    }

    /// ``validate()`` with the narrow error; `prefix` names the options in messages.
    func check(prefix: String) throws(UsageError) {
        guard Self.thicknessRange.contains(thickness) else {
            throw UsageError(
                "\(prefix)thickness must be \(Self.thicknessRangeText), found \(thickness)", field: prefix + "thickness"
            )
        }
        guard Self.depthRange.contains(depth) else {
            throw UsageError("\(prefix)depth must be \(Self.depthRangeText), found \(depth)", field: prefix + "depth")
        }
        if let fit, !(fit.min() > 0 && fit.max().isFinite) {
            throw UsageError(
                "\(prefix)fit must be three positive finite sizes in mm, found \(fit.x)x\(fit.y)x\(fit.z)",
                field: prefix + "fit")
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
