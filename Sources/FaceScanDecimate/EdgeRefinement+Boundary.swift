#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Curved points on the boundary that follow the boundary's own line.
//
// The PN point of an edge is the middle of the cubic Hermite curve whose tangent at each end is
// the edge projected on that end's tangent plane (the two agree: the PN offset is a quarter of
// the difference of those tangents, halved). Inside the mesh that is all a smooth surface needs:
// every curve through a vertex leaves it in its tangent plane. On the boundary the curve is
// also the surface's outline (the face's rim, the openings of the eyes and mouth), and with
// each edge's own direction as its tangents the outline turns at every input vertex: a
// polygon with rounded sides, seen as kinks along the rim. Here a boundary vertex's tangent is
// the mean direction of its two boundary edges (as Catmull–Rom's), projected on its tangent
// plane, so the outline passes through the vertex without a kink; where the boundary turns
// sharply there (over ``EdgeRefinement/boundaryCornerDegrees``: the corners of the eyes and of
// the mouth) the corner is kept and the edge's own direction is used, as before.

extension EdgeRefinement {
    /// A boundary vertex whose two boundary edges turn by more than this many degrees is a
    /// corner: the outline keeps it.
    static let boundaryCornerDegrees = 60.0
}

extension EdgeRefinement.State {
    /// Sets ``boundaryPrevious`` and ``boundaryNext`` from the boundary's half-edges (a vertex on
    /// two boundary loops keeps the last pair it was given).
    mutating func setBoundaryLoops() {
        boundaryPrevious = [Int32](repeating: -1, count: positions.count)
        boundaryNext = [Int32](repeating: -1, count: positions.count)
        boundaryPrevious.reserveCapacity(positions.capacity)
        boundaryNext.reserveCapacity(positions.capacity)
        for h in 0..<triangles.count where twin[h] < 0 {
            let a = triangles[h], b = triangles[Self.next(h)]
            boundaryNext[Int(a)] = Int32(b)
            boundaryPrevious[Int(b)] = Int32(a)
        }
    }

    /// The offset from the straight middle of the boundary edge a → b to the middle of the cubic
    /// Hermite curve along it (see the file's header; `normals`: a's and b's). The caller bounds
    /// it as it bounds a PN point's.
    func outlineBulge(
        _ a: UInt32, _ b: UInt32, normals: (SIMD3<Double>, SIMD3<Double>)
    ) -> SIMD3<Double> {
        let pa = point(a), pb = point(b)
        let d = pb - pa
        let length = (d * d).sum().squareRoot()
        guard length > 0 else { return .zero }
        let corner = cos(EdgeRefinement.boundaryCornerDegrees * .pi / 180)
        // The tangent at `v` (normal n): the edge projected on the tangent plane, turned to the
        // mean of the two boundary edges' directions when `other` (the vertex across v from the
        // edge) makes no corner there. `other` runs into v when `into`, else out of it.
        func tangent(_ v: SIMD3<Double>, _ n: SIMD3<Double>, _ other: Int32, into: Bool) -> SIMD3<Double> {
            let projected = d - (d * n).sum() * n
            guard other >= 0 else { return projected }
            let e = into ? v - point(UInt32(other)) : point(UInt32(other)) - v
            let le = (e * e).sum().squareRoot()
            guard le > 0, (e * d).sum() > corner * le * length else { return projected }
            var t = e / le + d / length
            t -= (t * n).sum() * n
            let lt = (t * t).sum().squareRoot()
            guard lt > 0 else { return projected }
            return t * ((projected * projected).sum().squareRoot() / lt)
        }
        let ta = tangent(pa, normals.0, boundaryPrevious[Int(a)], into: true)
        let tb = tangent(pb, normals.1, boundaryNext[Int(b)], into: false)
        return (ta - tb) / 8 * EdgeRefinement.bulgeScale
    }
}
