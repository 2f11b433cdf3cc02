import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Sliver repair and crease guard for refinement.
//
// Slivers: edge flips that raise the smallest angle of a thin triangle. A flip replaces the
// diagonal of the quadrilateral two triangles form by the other one (the Delaunay flip of
// C. L. Lawson, "Software for C¹ surface interpolation", Mathematical Software III, 1977, applied
// only where a triangle has an angle under ``EdgeRefinement/sliverDegrees``). On a surface a flip
// changes the shape, so it is taken only when the two diagonals nearly meet (their lines pass
// within a tenth of the shorter one's length: the quadrilateral is nearly flat), both new
// triangles face the way the old pair did, the crease between them is no sharper than the old
// one's (or than a gentle 30°) and no side of the quadrilateral ends with a crease sharper than
// the input's sharpest: it mends the flat "cap" slivers a decimator leaves (one angle near 180°),
// not folds.
//
// Creases: a curved split point must not make any dihedral angle sharper than the input's
// sharpest, so the refined surface has no crease the coarse one did not have.

extension EdgeRefinement {
    /// A triangle with a corner under this many degrees is a sliver: flips try to mend it.
    static let sliverDegrees = 5.0
    /// Largest crease (degrees) a flip may make between the two new triangles when the old pair
    /// was flatter than that.
    static let flipCreaseDegrees = 30.0
    /// Largest distance between the lines of a quadrilateral's two diagonals, as a share of the
    /// shorter diagonal, for a flip between them.
    static let flipFlatness = 0.1
    /// Vertices on an input crease sharper than the input's sharpest less this many degrees
    /// (and the points later split between them) have their splits checked against creases; a
    /// split point elsewhere, at most ``maximumBulge`` off its edge, turns no triangle that far.
    static let creaseWatchDegrees = 90.0
    /// Creases under this many degrees are never watched: on a smooth input (a sphere's 20°
    /// creases, say) a curved point sharpens its neighbours' creases only until they are split
    /// in turn, and the straight middle there would leave the facets.
    static let sharpCreaseDegrees = 60.0
}

extension EdgeRefinement.State {
    /// Flips edges of triangles with a corner under ``EdgeRefinement/sliverDegrees`` where the flip
    /// raises the smaller of the pair's smallest angles (a few passes, in triangle order, so the
    /// result is the same for the same input). Returns the mesh's smallest angle afterwards, in
    /// degrees (180 without measuring it when `measure` is false: one pass over the triangles
    /// less).
    @discardableResult
    mutating func repairSlivers(passes: Int = 4, measure: Bool = true) -> Double {
        let limit = cos(EdgeRefinement.sliverDegrees * .pi / 180)
        for _ in 0..<passes {
            var changed = false
            for t in 0..<(triangles.count / 3) where hasCorner(t, overCosine: limit) {
                // Its edges, longest first (a cap sliver is mended across its longest edge).
                let b = 3 * t
                let order = [b, b + 1, b + 2].sorted {
                    let l0 = lengthSquared($0), l1 = lengthSquared($1)
                    return l0 > l1 || (l0 == l1 && $0 < $1)
                }
                for h in order where flipIfBetter(h) {
                    changed = true
                    break
                }
            }
            if !changed { break }
        }
        guard measure else { return 180 }
        var largest = -1.0
        for t in 0..<(triangles.count / 3) { largest = max(largest, largestCornerCosine(t)) }
        return acos(max(-1, min(1, largest))) * 180 / .pi
    }

    @inline(__always) func point(_ v: UInt32) -> SIMD3<Double> { SIMD3<Double>(positions[Int(v)]) }

    func lengthSquared(_ h: Int) -> Double {
        let d = point(triangles[Self.next(h)]) - point(triangles[h])
        return (d * d).sum()
    }

    /// Whether triangle `t` has a corner whose cosine is over `c` (> 0), that is a corner under
    /// acos(c) (or no area): ``largestCornerCosine(_:)`` `> c` without its square roots, for the
    /// scan over every triangle.
    func hasCorner(_ t: Int, overCosine c: Double) -> Bool {
        let a = point(triangles[3 * t]), b = point(triangles[3 * t + 1]), d = point(triangles[3 * t + 2])
        let ab = b - a, bd = d - b, da = a - d
        let lab = (ab * ab).sum(), lbd = (bd * bd).sum(), lda = (da * da).sum()
        guard lab > 0 && lbd > 0 && lda > 0 else { return true }
        let c2 = c * c
        let atA = -(ab * da).sum(), atB = -(ab * bd).sum(), atD = -(bd * da).sum()
        return (atA > 0 && atA * atA > c2 * lab * lda) || (atB > 0 && atB * atB > c2 * lab * lbd)
            || (atD > 0 && atD * atD > c2 * lbd * lda)
    }

    /// Cosine of triangle `t`'s smallest corner angle (1 for a triangle without area).
    func largestCornerCosine(_ t: Int) -> Double {
        Self.largestCornerCosine(point(triangles[3 * t]), point(triangles[3 * t + 1]), point(triangles[3 * t + 2]))
    }

    static func largestCornerCosine(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Double {
        let ab = b - a, bc = c - b, ca = a - c
        let lab = (ab * ab).sum(), lbc = (bc * bc).sum(), lca = (ca * ca).sum()
        guard lab > 0 && lbc > 0 && lca > 0 else { return 1 }
        let ca0 = -(ab * ca).sum() / (lab * lca).squareRoot()
        let cb = -(ab * bc).sum() / (lab * lbc).squareRoot()
        let cc = -(bc * ca).sum() / (lbc * lca).squareRoot()
        return max(ca0, cb, cc)
    }

    static func unit(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let l = (v * v).sum().squareRoot()
        return l > 0 ? v / l : v
    }

    /// Whether an edge joins `a` to `b`, found by turning around `a` from slot `s` (a → …).
    func hasEdge(from s: Int, _ a: UInt32, to b: UInt32) -> Bool {
        // Counter-clockwise: the slot before s in its triangle ends at a; its twin leaves a.
        var cur = s
        repeat {
            if triangles[Self.next(cur)] == b { return true }
            let t = twin[Self.prev(cur)]
            guard t >= 0 else {
                // A boundary: turn the other way from s.
                var back = s
                while true {
                    let u = twin[back]
                    guard u >= 0 else { return false }
                    back = Self.next(Int(u))
                    if triangles[Self.next(back)] == b { return true }
                }
            }
            cur = Int(t)
        } while cur != s
        return false
    }

    /// Flips the edge of slot `h` when that raises the pair's smallest angle and keeps the pair's
    /// orientation and smoothness (see the file's header). Triangles (x, y, z) and (y, x, w)
    /// become (x, w, z) and (w, y, z) in the same slots.
    mutating func flipIfBetter(_ h: Int) -> Bool {
        let g = Int(twin[h])
        guard g >= 0 else { return false }
        let hn = Self.next(h), hp = Self.prev(h), gn = Self.next(g), gp = Self.prev(g)
        let x = triangles[h], y = triangles[hn], z = triangles[hp], w = triangles[gp]
        guard z != w else { return false }
        let px = point(x), py = point(y), pz = point(z), pw = point(w)
        let before = max(Self.largestCornerCosine(px, py, pz), Self.largestCornerCosine(py, px, pw))
        let after = max(Self.largestCornerCosine(px, pw, pz), Self.largestCornerCosine(pw, py, pz))
        guard after < before else { return false }
        // Nearly flat: the diagonals' lines pass close to each other.
        let u = py - px, v = pw - pz, c = cross3(u, v)
        let shorter = min((u * u).sum(), (v * v).sum()).squareRoot()
        let cc = (c * c).sum()
        if cc > 0 {
            let gap = abs(((pz - px) * c).sum()) / cc.squareRoot()
            guard gap <= EdgeRefinement.flipFlatness * shorter else { return false }
        }
        let n1 = Self.unit(cross3(py - px, pz - px)), n2 = Self.unit(cross3(px - py, pw - py))
        let m1 = Self.unit(cross3(pw - px, pz - px)), m2 = Self.unit(cross3(py - pw, pz - pw))
        let mean = n1 + n2
        guard (m1 * mean).sum() > 0, (m2 * mean).sum() > 0, (m1 * n1).sum() > 0, (m2 * n2).sum() > 0 else {
            return false
        }
        let gentle = max(cos(EdgeRefinement.flipCreaseDegrees * .pi / 180), creaseCosine)
        guard (m1 * m2).sum() >= min((n1 * n2).sum(), gentle) else { return false }
        // Nor may it leave a side of the quadrilateral with a crease sharper than the input's
        // sharpest (a side on that fold would otherwise end sharper than anything the input has).
        func keepsSide(_ slot: Int, _ a: UInt32, _ b: UInt32, _ new: UInt32) -> Bool {
            let o = twin[slot]
            guard o >= 0 else { return true }
            return creaseCosine(a, b, new, triangles[Self.prev(Int(o))], at: .zero, .max) >= creaseCosine
        }
        guard keepsSide(hp, z, x, w), keepsSide(hn, y, z, w), keepsSide(gn, x, w, z), keepsSide(gp, w, y, z)
        else { return false }
        // z–w must not be an edge already (the flip would repeat it).
        guard !hasEdge(from: hp, z, to: w) else { return false }
        // Rewrite both triangles in their own slots; the four outer edges keep their twins.
        let b1 = h - h % 3, b2 = g - g % 3
        let xw = twin[gn], yz = twin[hn], zx = twin[hp], wy = twin[gp]
        triangles[b1] = x
        triangles[b1 + 1] = w
        triangles[b1 + 2] = z
        triangles[b2] = y
        triangles[b2 + 1] = z
        triangles[b2 + 2] = w
        func attach(_ slot: Int, _ other: Int32) {
            twin[slot] = other
            if other >= 0 { twin[Int(other)] = Int32(slot) }
        }
        attach(b1, xw)
        attach(b1 + 2, zx)
        attach(b2, yz)
        attach(b2 + 2, wy)
        twin[b1 + 1] = Int32(b2 + 1)
        twin[b2 + 1] = Int32(b1 + 1)
        return true
    }
}

extension EdgeRefinement.State {
    /// Cosine of the dihedral angle between triangles (a, b, c) and (b, a, d) (1: flat); the
    /// vertex `m` (not yet in `positions`) stands at `p`.
    @inline(__always)
    func creaseCosine(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, at p: SIMD3<Double>, _ m: UInt32) -> Double {
        @inline(__always) func at(_ v: UInt32) -> SIMD3<Double> { v == m ? p : point(v) }
        let pa = at(a), pb = at(b)
        let n1 = cross3(pb - pa, at(c) - pa), n2 = cross3(pa - pb, at(d) - pb)
        let l = ((n1 * n1).sum() * (n2 * n2).sum()).squareRoot()
        return l > 0 ? (n1 * n2).sum() / l : 1
    }

    /// Cosine of the dihedral angle across the inner edge of slot `h` (its twin's triangle on the
    /// other side).
    func creaseCosine(across h: Int) -> Double {
        let g = Int(twin[h])
        return creaseCosine(
            triangles[h], triangles[Self.next(h)], triangles[Self.prev(h)], triangles[Self.prev(g)], at: .zero, .max)
    }

    /// Cosine of the mesh's sharpest crease (dihedral angle; 1 when flat or without an inner edge).
    func sharpestCreaseCosine() -> Double {
        var sharpest = 1.0
        for h in 0..<triangles.count where twin[h] > Int32(h) { sharpest = min(sharpest, creaseCosine(across: h)) }
        return sharpest
    }

    /// Sets ``creaseCosine`` to the input's sharpest crease, and ``watched`` to the vertices of
    /// the input's creases within ``EdgeRefinement/creaseWatchDegrees`` of it and over
    /// ``EdgeRefinement/sharpCreaseDegrees`` (left empty when there is none).
    mutating func limitCreases() {
        let count = triangles.count
        var cosines = [Double](repeating: 1, count: count)
        var sharpest = 1.0
        for h in 0..<count where twin[h] > Int32(h) {
            let c = creaseCosine(across: h)
            cosines[h] = c
            sharpest = min(sharpest, c)
        }
        creaseCosine = sharpest
        let watchAngle = max(
            acos(max(-1, min(1, sharpest))) - EdgeRefinement.creaseWatchDegrees * .pi / 180,
            EdgeRefinement.sharpCreaseDegrees * .pi / 180)
        let watchCosine = cos(watchAngle)
        guard sharpest < watchCosine else { return }  // no sharp crease: nothing watched
        watched = [Bool](repeating: false, count: positions.count)
        watched.reserveCapacity(positions.capacity)
        for h in 0..<count where cosines[h] < watchCosine {
            watched[Int(triangles[h])] = true
            watched[Int(triangles[Self.next(h)])] = true
        }
    }

    /// The straight middle of edge a–b.
    func middle(_ a: UInt32, _ b: UInt32) -> SIMD3<Float> { SIMD3<Float>((point(a) + point(b)) / 2) }

    /// Whether splitting the edge of slot `h` at `p` keeps every dihedral angle it changes (across
    /// the two halves, the new inner edges and the four outer edges) within ``creaseCosine``.
    /// Only splits touching a watched vertex are checked.
    func keepsCreases(_ h: Int, _ p: SIMD3<Float>) -> Bool {
        let limit = creaseCosine
        let hn = Self.next(h), hp = Self.prev(h)
        let x = triangles[h], y = triangles[hn], z = triangles[hp]
        let g = Int(twin[h])
        let w = g >= 0 ? triangles[Self.prev(g)] : z
        guard watched[Int(x)] || watched[Int(y)] || watched[Int(z)] || watched[Int(w)] else { return true }
        let q = SIMD3<Double>(p), m = UInt32.max  // the new vertex
        func across(_ s: Int) -> UInt32? { twin[s] >= 0 ? triangles[Self.prev(Int(twin[s]))] : nil }
        // This side: (x, m, z) and (m, y, z).
        guard creaseCosine(m, z, x, y, at: q, m) >= limit else { return false }
        if let o = across(hp), creaseCosine(z, x, m, o, at: q, m) < limit { return false }
        if let o = across(hn), creaseCosine(y, z, m, o, at: q, m) < limit { return false }
        guard g >= 0 else { return true }
        // The other side (y, x, w): (y, m, w) and (m, x, w), and the two halves of the edge.
        let gn = Self.next(g), gp = Self.prev(g)
        guard creaseCosine(m, w, y, x, at: q, m) >= limit, creaseCosine(x, m, z, w, at: q, m) >= limit,
            creaseCosine(m, y, z, w, at: q, m) >= limit
        else { return false }
        if let o = across(gp), creaseCosine(w, y, m, o, at: q, m) < limit { return false }
        if let o = across(gn), creaseCosine(x, w, m, o, at: q, m) < limit { return false }
        return true
    }
}
