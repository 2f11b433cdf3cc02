import FaceScanCore

/// The cut: the surface untangled, turned into the face's frame, cut by a plane behind its
/// frontmost point with the rim carried down onto it by a skirt (``PlaneTrim``), and placed for
/// printing (centred on x and y, the cut at z = 0). One depth per call: moving the cut forward
/// when it cannot stand is ``Solidify``'s retry policy.
extension Solidify {
    /// How the part is closed behind its front.
    enum Back: Sendable {
        /// A shell: a level-set back at the wall's thickness (`LevelSetShell`).
        case shell
        /// A relief: the rim's outline in the bed plane, triangulated (ear clipping).
        case cap([SIMD3<Int32>])
    }

    /// A cut front in printing position: the cut depth in millimetres, the skirted front, its rim,
    /// and how it is closed.
    struct Front {
        var depth: Double
        var mesh: Mesh
        var rim: [UInt32]
        var back: Back
    }

    /// `surface` untangled and turned into `frame` (done once per surface, for every cut of it).
    static func turned(_ surface: Mesh, frame: FaceFrame.Rotation) -> Mesh {
        var turned = Untangle.untangled(surface).mesh
        if frame != .identity {
            for i in turned.positions.indices {
                turned.positions[i] = SIMD3<Float>(frame.apply(SIMD3<Double>(turned.positions[i])))
            }
        }
        return turned
    }

    /// `turned` cut `depth` millimetres behind its frontmost point, skirted and placed. Throws
    /// `SolidError/rimOverhangs(depth:)` when the skirt would cut into the face (or, base, the
    /// outline crosses itself), `SolidError/nothingInFront(depth:)`, `SolidError/rimClockwise`.
    static func cut(_ turned: Mesh, depth: Double, options: SolidOptions, unit: Double) throws(SolidError) -> Front {
        try SolidError.checkCancelled()
        let lift = plinth(options)
        let plane = Float(Double(turned.bounds.max.z) - depth / unit)
        guard let trimmed = PlaneTrim.trimAndSkirt(turned, plane: plane, plinth: Float(lift / unit)) else {
            throw .nothingInFront(depth: depth)
        }
        var front = trimmed.mesh
        let (lo, hi) = front.bounds
        let shift = SIMD3<Float>((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, plane)
        for i in front.positions.indices {
            front.positions[i] -= shift
            front.positions[i].z = max(0, front.positions[i].z)
        }
        let loops = MeshTopology(front).boundaryLoops()
        guard loops.loops.count == 1, let r = loops.rimIndex(front.positions) else { throw .rimOverhangs(depth: depth) }
        // A cut that passed within Float's resolution of a vertex leaves a needle without area.
        guard MeshCheck(front).degenerateTriangles == 0 else { throw .rimOverhangs(depth: depth) }
        let rim = loops.loops[r]
        var skirt = [Bool](repeating: false, count: front.triangleCount)
        for t in trimmed.skirtStart..<front.triangleCount { skirt[t] = true }
        guard SelfIntersection.pairs(front, only: skirt, limit: 1).isEmpty else { throw .rimOverhangs(depth: depth) }
        guard options.base else { return Front(depth: depth, mesh: front, rim: rim, back: .shell) }
        guard BoundaryLoops.xyArea(rim, front.positions) > 0 else { throw .rimClockwise }
        guard let outline = outline(front, rim: rim) else { throw .rimOverhangs(depth: depth) }
        return Front(depth: depth, mesh: front, rim: rim, back: .cap(outline))
    }

    /// The ear-clipping triangulation of the rim seen from +z, nil when it crosses itself.
    static func outline(_ front: Mesh, rim: [UInt32]) -> [SIMD3<Int32>]? {
        EarClipping.triangulate(
            rim.map { SIMD2<Double>(Double(front.positions[Int($0)].x), Double(front.positions[Int($0)].y)) })
    }

    /// Front + the rim's outline (in the bed plane z = 0) capped, facing −z.
    static func cap(_ front: Mesh, rim: [UInt32], outline: [SIMD3<Int32>]) -> Mesh {
        var solid = front
        // Counter-clockwise seen from +z, reversed to face −z (uses rim edge b → a).
        for t in outline {
            solid.triangles += [rim[Int(t.x)], rim[Int(t.z)], rim[Int(t.y)]]
        }
        return solid
    }

    /// The uniform scale (at most 1) that fits `front`'s part into the build volume less the margin.
    static func fitScale(_ front: Mesh, options: SolidOptions, unit: Double) -> Double {
        guard let fit = options.fit else { return 1 }
        let (lo, hi) = front.bounds
        let size = SIMD3<Double>(hi - lo) * unit
        let room = SIMD3<Double>(fit.x - 2 * options.fitMargin, fit.y - 2 * options.fitMargin, fit.z)
        return min(1, min(room.x / size.x, min(room.y / size.y, room.z / size.z)))
    }
}
