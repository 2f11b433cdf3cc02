import FaceScanCore

/// The bed under a shell's wall: the part of the plane z = 0 between the front's rim and the
/// back's loops on the bed, triangulated facing −z.
///
/// Its pieces: the rim's inside with every outermost loop of the back as a hole, and each loop
/// nested once more (tissue reaching the bed inside the hollow) with the loops directly inside it
/// as holes. Outlines counter-clockwise, holes clockwise, bridged in (``Polygons2D``), each piece
/// cut by ear clipping. Cost: O(l²) for the nesting of l loops, plus the bridges and the clipping.
enum BedRing {
    /// The ring's triangles as vertex indices of the assembled solid (front first, then back),
    /// facing −z. Throws `SolidError/backCrossesRim(depth:)` (depth 0: the caller names the cut)
    /// when a piece cannot be clipped and a loop crosses the rim, else
    /// `SolidError/backNotClosed(depth:)` when the rim runs clockwise, a loop cannot be placed or
    /// bridged, or a piece cannot be clipped.
    static func triangles(front: Mesh, rim: [UInt32], back: Mesh, loops: [[UInt32]]) throws(SolidError) -> [UInt32] {
        let n = front.vertexCount
        var points = rim.map { SIMD2<Double>(Double(front.positions[Int($0)].x), Double(front.positions[Int($0)].y)) }
        var ids = rim
        var polygons: [[Int32]] = []
        for loop in loops {
            var polygon: [Int32] = []
            for v in loop {
                polygon.append(Int32(points.count))
                points.append(SIMD2(Double(back.positions[Int(v)].x), Double(back.positions[Int(v)].y)))
                ids.append(UInt32(n) + v)
            }
            polygons.append(polygon)
        }
        let rimOutline = (0..<Int32(rim.count)).map { $0 }
        guard Polygons2D.area(rimOutline, points) > 0 else { throw .backNotClosed(depth: 0) }
        var out: [UInt32] = []
        for piece in try pieces(rimOutline, loops: polygons, points: points) {
            var outline = piece.outline
            guard Polygons2D.bridge(&outline, holes: piece.holes, points: points),
                let triangles = EarClipping.triangulate(points, polygon: outline)
            else {
                if crosses(rimOutline, polygons, points: points) { throw .backCrossesRim(depth: 0) }
                throw .backNotClosed(depth: 0)
            }
            for t in triangles { out += [ids[Int(t.x)], ids[Int(t.z)], ids[Int(t.y)]] }
        }
        return out
    }

    /// Whether an edge of a loop touches an edge of the rim's outline (asked only when a piece
    /// could not be triangulated: O(rim × loop edges)).
    static func crosses(_ rim: [Int32], _ loops: [[Int32]], points: [SIMD2<Double>]) -> Bool {
        for loop in loops {
            for i in loop.indices {
                let p = points[Int(loop[i])], q = points[Int(loop[(i + 1) % loop.count])]
                for k in rim.indices
                where Polygons2D.segmentsTouch(p, q, points[Int(rim[k])], points[Int(rim[(k + 1) % rim.count])]) {
                    return true
                }
            }
        }
        return false
    }

    /// The ring's pieces: the rim's outline with the outermost loops as holes, and each loop at an
    /// odd nesting depth as an outline with the loops directly inside it as holes.
    static func pieces(_ rimOutline: [Int32], loops polygons: [[Int32]], points: [SIMD2<Double>]) throws(SolidError)
        -> [(outline: [Int32], holes: [[Int32]])]
    {
        // Which loops hold which: loop i inside loop j when a corner of i is.
        let count = polygons.count
        var container = [Int](repeating: -1, count: count)  // innermost loop around it, −1: the rim
        var depth = [Int](repeating: 0, count: count)
        for i in 0..<count {
            var smallest = Double.infinity
            for j in 0..<count where j != i && Polygons2D.contains(polygons[j], points[Int(polygons[i][0])], points) {
                depth[i] += 1
                let a = abs(Polygons2D.area(polygons[j], points))
                if a < smallest {
                    smallest = a
                    container[i] = j
                }
            }
        }
        var pieces: [(outline: [Int32], holes: [[Int32]])] = [(rimOutline, [])]
        var pieceOf = [Int](repeating: -1, count: count)
        for i in 0..<count where depth[i] % 2 == 1 {
            var outline = polygons[i]
            if Polygons2D.area(outline, points) < 0 { outline.reverse() }
            pieceOf[i] = pieces.count
            pieces.append((outline, []))
        }
        for i in 0..<count where depth[i] % 2 == 0 {
            var hole = polygons[i]
            if Polygons2D.area(hole, points) > 0 { hole.reverse() }
            let piece = container[i] < 0 ? 0 : pieceOf[container[i]]
            guard piece >= 0 else { throw .backNotClosed(depth: 0) }
            pieces[piece].holes.append(hole)
        }
        return pieces
    }
}
