import FaceScanCore
import FaceScanDecimate

/// The vertex budget of a part asked with an exact vertex count: the front's share, the
/// decimation to try first and after a front over its share, and the padding to the count.
extension Solidify {
    /// The share of `target` the cut front may take: all of it for a relief,
    /// `Constants/frontShare` for a shell (its back takes the rest).
    static func frontShare(_ target: Int, base: Bool) -> Int {
        base ? target : Int(Double(target) * Constants.frontShare)
    }

    /// The first decimation to try, guessed from the share of the vertices in front of the cut
    /// (the skirt adds about a tenth); refined at most to twice the target (a cut keeping a
    /// sliver of the surface is padded).
    static func firstWant(_ closed: Mesh, frame: FaceFrame.Rotation, options: SolidOptions, unit: Double, target: Int)
        -> Int
    {
        var frontmost = -Double.infinity
        for p in closed.positions { frontmost = max(frontmost, frame.apply(SIMD3<Double>(p)).z) }
        let plane = frontmost - options.depth / unit
        var kept = 0
        for p in closed.positions where frame.apply(SIMD3<Double>(p)).z >= plane { kept += 1 }
        let share = frontShare(target, base: options.base)
        let want = Int(Double(closed.vertexCount) * Double(share) / (1.1 * Double(max(kept, 1))))
        return min(want, max(closed.vertexCount, 2 * target))
    }

    /// The decimation to try after one of `want` vertices gave a front of `vertices`, over `share`.
    static func nextWant(_ want: Int, vertices: Int, share: Int) -> Int {
        min(want - 1, Int(Double(want) * Double(share) / Double(vertices) * 0.98))
    }

    /// `closed` decimated to `want` vertices (itself at its own count).
    static func decimated(_ closed: Mesh, to want: Int) throws(SolidError) -> Mesh {
        guard want != closed.vertexCount else { return closed }
        do throws(UsageError) {
            return try Decimation.simplify(closed, exactly: want)
        } catch {
            throw SolidError.from(error)
        }
    }

    /// The count the fewest front found would need for the whole part.
    static func needs(fewestFront: Int, base: Bool) -> Int {
        base ? fewestFront : Int((Double(fewestFront) / Constants.frontShare).rounded(.up))
    }

    /// `solid` with exactly `target` vertices: its longest edges off the bed split at their
    /// middles (the shape does not change; no angle falls below half the smallest before). The
    /// bed's edges are left as they are: splitting the long chords of a relief's flat cap put
    /// new vertices within hundredths of a millimetre of each other, which slicers (CuraEngine)
    /// report as overlapping faces.
    static func padded(_ solid: Mesh, to target: Int) throws(SolidError) -> Mesh {
        guard target >= solid.vertexCount else {
            throw .vertexCountUnreachable(target: target, fewest: solid.vertexCount)
        }
        let padded = EdgeRefinement.refine(solid, to: target, curved: false, sparingPlane: 0)
        try SolidError.checkCancelled()
        guard padded.vertexCount == target else { throw .notClosed("could not split it to \(target) vertices") }
        return padded
    }
}
