import Foundation
import Testing

@testable import FaceScanAccumulate
@testable import FaceScanDecimate
@testable import FaceScanKit
@testable import FaceScanMeasure
@testable import FaceScanSmooth
@testable import FaceScanSolid

/// A spherical cap (radius `sphere`, seen from +z) over the disc x² + y² < 0.95², sampled on a
/// 24 × 24 grid over [−1, 1]², with two round holes of radius 0.25 at (±0.4, 0.1) — an "eyes"
/// mask: three boundary loops (rim and two holes), counter-clockwise seen from +z.
///
///     · · · · · · · ·
///     ·  ▢     ▢   ·      ▢ = hole
///     · · · · · · · ·
func capWithHoles(sphere: Double = 1.3) -> Mesh {
    let n = 24
    let h = 2.0 / Double(n)
    var index = [Int32](repeating: -1, count: (n + 1) * (n + 1))
    var positions: [SIMD3<Float>] = []
    var triangles: [UInt32] = []
    func keep(_ i: Int, _ j: Int) -> Bool {
        let cx = -1 + (Double(i) + 0.5) * h, cy = -1 + (Double(j) + 0.5) * h
        let corners = [(0, 0), (1, 0), (0, 1), (1, 1)].map { (-1 + Double(i + $0.0) * h, -1 + Double(j + $0.1) * h) }
        guard corners.allSatisfy({ $0.0 * $0.0 + $0.1 * $0.1 < 0.95 * 0.95 }) else { return false }
        for hx in [-0.4, 0.4] where (cx - hx) * (cx - hx) + (cy - 0.1) * (cy - 0.1) < 0.25 * 0.25 { return false }
        return true
    }
    func vertex(_ i: Int, _ j: Int) -> UInt32 {
        let k = j * (n + 1) + i
        if index[k] < 0 {
            let x = -1 + Double(i) * h, y = -1 + Double(j) * h
            index[k] = Int32(positions.count)
            positions.append(SIMD3(Float(x), Float(y), Float((sphere * sphere - x * x - y * y).squareRoot())))
        }
        return UInt32(index[k])
    }
    for j in 0..<n {
        for i in 0..<n where keep(i, j) {
            let a = vertex(i, j), b = vertex(i + 1, j), c = vertex(i + 1, j + 1), d = vertex(i, j + 1)
            triangles += [a, b, c, a, c, d]
        }
    }
    return Mesh(uncheckedPositions: positions, triangles: triangles)
}

/// The ICT fixture (metres), read once per test process (a test changes its own copy).
private let ictFixtureRead = Result { () throws -> Mesh in
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    return try Mesh.read(path: dir + "/Fixtures/ict-neutral.obj")
}

/// Loads the ICT fixture (metres).
func ictFixture() throws -> Mesh { try ictFixtureRead.get() }

/// What several solid tests start from, each made once per test process rather than once per
/// test (the solid step and the tests' own crossing search run unoptimised in a debug build):
/// the ICT face decimated to 5 000 vertices in millimetres, its crossing pairs once its holes
/// are patched, and its 2 mm shell.
enum ICTSolid {
    static let surface = Result { () throws -> Mesh in
        try Decimation.simplify(try ictFixture(), targetVertices: 5_000).scaled(by: 1000)
    }
    static let filledCrossings = Result { () throws -> [SIMD2<Int>] in
        intersectingPairs(Solidify.fillHoles(try ICTSolid.surface.get()))
    }
    static let shell = Result { () throws -> Solidify.Part in
        try Solidify.part(try ICTSolid.surface.get(), options: SolidOptions(thickness: 2), unitInMillimetres: 1)
    }
    /// The crossing pairs of the whole fixture (millimetres) with its holes patched, counted.
    static let wholeFaceFilledCrossings = Result { () throws -> Int in
        intersectingPairs(Solidify.fillHoles(try ictFixture().scaled(by: 1000))).count
    }
}

/// Triangle pairs (not sharing a vertex) that intersect, by the separating-axis theorem over the
/// two normals, the nine edge–edge cross products and the six in-plane edge normals (for coplanar
/// pairs); candidates from a sorted list of (grid cell, triangle) entries. Independent of the
/// library's own ``SelfIntersection``.
func intersectingPairs(_ mesh: Mesh) -> [SIMD2<Int>] {
    let p = mesh.positions.map { SIMD3<Double>($0) }
    let tc = mesh.triangleCount
    var edgeSum = 0.0
    for t in 0..<tc {
        let (a, b, c) = mesh.triangle(t)
        edgeSum += length(p[Int(b)] - p[Int(a)]) + length(p[Int(c)] - p[Int(b)])
    }
    let cell = 2 * edgeSum / Double(2 * tc)
    var entries: [SIMD4<Int32>] = []  // cell x, y, z, triangle
    for t in 0..<tc {
        let (a, b, c) = mesh.triangle(t)
        let lo = pointwiseMin(p[Int(a)], pointwiseMin(p[Int(b)], p[Int(c)])),
            hi = pointwiseMax(p[Int(a)], pointwiseMax(p[Int(b)], p[Int(c)]))
        let l = SIMD3<Int32>((lo / cell).rounded(.down)), u = SIMD3<Int32>((hi / cell).rounded(.down))
        for z in l.z...u.z { for y in l.y...u.y { for x in l.x...u.x { entries.append(SIMD4(x, y, z, Int32(t))) } } }
    }
    entries.sort { ($0.x, $0.y, $0.z, $0.w) < ($1.x, $1.y, $1.z, $1.w) }
    var found = Set<SIMD2<Int>>()
    var s = 0
    while s < entries.count {
        var e = s
        while e < entries.count && entries[e].x == entries[s].x && entries[e].y == entries[s].y
            && entries[e].z == entries[s].z
        { e += 1 }
        for i in s..<e {
            let t1 = Int(entries[i].w)
            let (a, b, c) = mesh.triangle(t1)
            for j in (i + 1)..<e {
                let t2 = Int(entries[j].w)
                let (d, f, g) = mesh.triangle(t2)
                if a == d || a == f || a == g || b == d || b == f || b == g || c == d || c == f || c == g { continue }
                if satIntersect(p[Int(a)], p[Int(b)], p[Int(c)], p[Int(d)], p[Int(f)], p[Int(g)]) {
                    found.insert(SIMD2(t1, t2))
                }
            }
        }
        s = e
    }
    return found.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
}

private func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

private func cr(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// Squared distance from `q` to the triangle `abc`: to its plane where `q` projects inside it,
/// else to the nearest of its three sides (the tests' own formulation, not Measure's
/// Voronoi-region closest point).
private func distanceSquared(
    _ q: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>
) -> Double {
    let n = cr(b - a, c - a)
    let nn = (n * n).sum()
    if nn > 0 {
        let d = ((q - a) * n).sum()
        let p = q - (d / nn) * n
        if (cr(b - a, p - a) * n).sum() >= 0 && (cr(c - b, p - b) * n).sum() >= 0
            && (cr(a - c, p - c) * n).sum() >= 0
        {
            return d * d / nn
        }
    }
    func side(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Double {
        let e = v - u
        let ee = (e * e).sum()
        let t = ee > 0 ? min(1, max(0, ((q - u) * e).sum() / ee)) : 0
        let r = q - (u + t * e)
        return (r * r).sum()
    }
    return min(side(a, b), side(b, c), side(c, a))
}

/// The triangles of a surface in a grid of cubes `radius` wide, each listed in every cube its
/// bounding box meets: a triangle nearer a point than `radius` meets one of the 27 cubes around
/// the point's, so ``isNear(_:)`` looks at those alone.
struct NearSurface {
    let points: [SIMD3<Double>]
    let triangles: [UInt32]
    let radius: Double
    var cells: [SIMD3<Int32>: [Int]] = [:]

    init(_ positions: [SIMD3<Float>], triangles: [UInt32], radius: Double) {
        points = positions.map { SIMD3<Double>($0) }
        self.triangles = triangles
        self.radius = radius
        for t in 0..<(triangles.count / 3) {
            let a = points[Int(triangles[3 * t])], b = points[Int(triangles[3 * t + 1])],
                c = points[Int(triangles[3 * t + 2])]
            let lo = cell(pointwiseMin(a, pointwiseMin(b, c))), hi = cell(pointwiseMax(a, pointwiseMax(b, c)))
            for z in lo.z...hi.z {
                for y in lo.y...hi.y { for x in lo.x...hi.x { cells[SIMD3(x, y, z), default: []].append(t) } }
            }
        }
    }

    func cell(_ p: SIMD3<Double>) -> SIMD3<Int32> { SIMD3<Int32>((p / radius).rounded(.down)) }

    /// Whether a triangle of the surface is nearer `q` than `radius`.
    func isNear(_ q: SIMD3<Double>) -> Bool {
        let home = cell(q)
        for z in -1...1 {
            for y in -1...1 {
                for x in -1...1 {
                    for t in cells[home &+ SIMD3(Int32(x), Int32(y), Int32(z))] ?? []
                    where distanceSquared(
                        q, points[Int(triangles[3 * t])], points[Int(triangles[3 * t + 1])],
                        points[Int(triangles[3 * t + 2])]) < radius * radius
                    {
                        return true
                    }
                }
            }
        }
        return false
    }
}

/// True unless some axis separates the triangles by more than a relative 1e-9 (touching within
/// rounding is not an intersection).
private func satIntersect(
    _ u0: SIMD3<Double>, _ u1: SIMD3<Double>, _ u2: SIMD3<Double>,
    _ v0: SIMD3<Double>, _ v1: SIMD3<Double>, _ v2: SIMD3<Double>
) -> Bool {
    let eu0 = u1 - u0, eu1 = u2 - u1, eu2 = u0 - u2, ev0 = v1 - v0, ev1 = v2 - v1, ev2 = v0 - v2
    let nu = cr(eu0, eu1), nv = cr(ev0, ev1)
    let size = max(length(eu0), length(ev0))
    func separates(_ axis: SIMD3<Double>) -> Bool {
        let l = length(axis)
        guard l > 1e-12 * size * size else { return false }
        let a0 = (u0 * axis).sum(), a1 = (u1 * axis).sum(), a2 = (u2 * axis).sum()
        let b0 = (v0 * axis).sum(), b1 = (v1 * axis).sum(), b2 = (v2 * axis).sum()
        let eps = 1e-9 * l * size
        return max(a0, a1, a2) < min(b0, b1, b2) - eps || max(b0, b1, b2) < min(a0, a1, a2) - eps
    }
    if separates(nu) || separates(nv) { return false }
    for a in [eu0, eu1, eu2] { for b in [ev0, ev1, ev2] where separates(cr(a, b)) { return false } }
    for e in [eu0, eu1, eu2] where separates(cr(nu, e)) { return false }
    for e in [ev0, ev1, ev2] where separates(cr(nv, e)) { return false }
    return true
}

/// Best-fit plane of a loop: centroid and Newell normal.
private func plane(_ pts: [SIMD3<Double>]) -> (SIMD3<Double>, SIMD3<Double>) {
    let c = pts.reduce(.zero, +) / Double(pts.count)
    var nrm = SIMD3<Double>.zero
    for i in pts.indices {
        let a = pts[i], b = pts[(i + 1) % pts.count]
        nrm += SIMD3((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y))
    }
    return (c, nrm / length(nrm))
}

@Suite struct SolidHoleFillingTests {
    @Test func capHasThreeLoops() {
        let m = capWithHoles()
        let c = MeshCheck(m)
        #expect(c.isClean, "\(c.summary)")
        #expect(c.boundaryLoops == 3)
    }

    @Test func fillsEveryHoleButTheRimWithAFairPatch() throws {
        let sphere = 1.3
        let m = capWithHoles(sphere: sphere)
        let filled = Solidify.fillHoles(m)
        let c = MeshCheck(filled)
        #expect(c.isClean, "\(c.summary)")
        #expect(c.boundaryLoops == 1)
        #expect(c.unreferencedVertices == 0)
        #expect(filled.vertexCount > m.vertexCount + 2)  // refined, not a flat fan
        #expect(Array(filled.positions.prefix(m.vertexCount)) == m.positions)
        #expect(Array(filled.triangles.prefix(m.triangles.count)) == m.triangles)
        // The rim is the longest loop and stays open.
        let loops = MeshTopology(filled).boundaryLoops()
        #expect(loops.loops.count == 1)
        let origLoops = MeshTopology(m).boundaryLoops()
        let rim = origLoops.loops[origLoops.rimIndex(m.positions)!]
        #expect(Set(loops.loops[0]) == Set(rim))
        // Each hole's centre vertex lies off the hole loop's plane, on the sphere (bulging outward).
        for hx in [-0.4, 0.4] {
            let hole = origLoops.loops.first { l in l != rim && abs(Double(m.positions[Int(l[0])].x) - hx) < 0.3 }!
            let (origin, normal) = plane(hole.map { SIMD3<Double>(m.positions[Int($0)]) })
            let centre = (m.vertexCount..<filled.vertexCount).min { a, b in
                let pa = filled.positions[a], pb = filled.positions[b]
                return abs(Double(pa.x) - hx) + abs(Double(pa.y) - 0.1) < abs(Double(pb.x) - hx)
                    + abs(Double(pb.y) - 0.1)
            }!
            let q = SIMD3<Double>(filled.positions[centre])
            let sagitta = 0.25 * 0.25 / (2 * sphere)  // of a hole of radius 0.25 on the sphere
            let offPlane = ((q - origin) * normal).sum()
            #expect(abs(offPlane) > 0.5 * sagitta, "patch centre \(q) is flat: \(offPlane) off the loop plane")
            #expect(offPlane * normal.z > 0, "patch bulges inward")
            #expect(abs(length(q) - sphere) < 0.3 * sagitta, "patch centre \(length(q)) off the sphere \(sphere)")
        }
        // New triangles face outward like the surface (+z on this cap).
        for t in (m.triangleCount..<filled.triangleCount) { #expect(filled.faceNormal(t).z > 0.5) }
    }

    @Test func closedOrEmptyMeshIsLeftAlone() {
        let tet = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)],
            triangles: [0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2])
        #expect(Solidify.fillHoles(tet) == tet)
        #expect(Solidify.fillHoles(Mesh(uncheckedPositions: [], triangles: [])).vertexCount == 0)
    }
}

@Suite struct SolidSolidifyTests {
    /// 1 unit = 50 mm: the cap is 100 mm wide, 2 mm = 0.04 units.
    let unit = 50.0

    func checkSolid(_ solid: Mesh, _ label: String) {
        let c = MeshCheck(solid)
        #expect(c.isWatertight, "\(label): \(c.summary)")
        #expect(c.isClean, "\(label): \(c.summary)")
        #expect(MeshInspection.signedVolume(solid) > 0, "\(label)")
        // Printing position: on the bed, centred.
        let (lo, hi) = solid.bounds
        #expect(lo.z == 0, "\(label): lowest point \(lo.z)")
        #expect(
            abs(lo.x + hi.x) < 1e-4 * (hi.x - lo.x) && abs(lo.y + hi.y) < 1e-4 * (hi.y - lo.y), "\(label): not centred")
    }

    /// A shell's wall judged by the tests' own measure (not Measure's BVH and closest point, which
    /// the shell's recipe itself uses): the back vertices (used by no front triangle, not on the
    /// bed) and how many of them are nearer the front (its first `tc` triangles) than `wall`, and
    /// the share of the back's area (its triangles after the front's, those on the bed excepted)
    /// nearer than `wall` — each back triangle cut into nine and measured at each small
    /// triangle's centroid (LevelSetShell judges its own backs at four other points a triangle).
    /// Every point of the back at least `wall` from the front also means every ray through the
    /// wall, from either side, is at least `wall` long. In mesh units.
    static func wall(_ solid: Mesh, frontTriangles tc: Int, under wall: Double) -> (
        backVertices: Int, thinVertices: Int, thinShare: Double
    ) {
        let near = NearSurface(solid.positions, triangles: Array(solid.triangles[0..<(3 * tc)]), radius: wall)
        var onFront = [Bool](repeating: false, count: solid.vertexCount)
        for i in solid.triangles[0..<(3 * tc)] { onFront[Int(i)] = true }
        var backVertices = 0, thinVertices = 0
        for v in 0..<solid.vertexCount where !onFront[v] && solid.positions[v].z > 0 {
            backVertices += 1
            if near.isNear(SIMD3<Double>(solid.positions[v])) { thinVertices += 1 }
        }
        // Centroids of the nine triangles of a triangle cut in three along each side, as
        // (u, v) weights of the edges b - a and c - a: six upright, three upside down.
        var weights: [SIMD2<Double>] = []
        for i in 0..<3 {
            for j in 0..<(3 - i) {
                weights.append(SIMD2(Double(i) + 1.0 / 3, Double(j) + 1.0 / 3) / 3)
                if i + j < 2 { weights.append(SIMD2(Double(i) + 2.0 / 3, Double(j) + 2.0 / 3) / 3) }
            }
        }
        var thin = 0.0, total = 0.0
        for t in tc..<solid.triangleCount {
            let (i, j, k) = solid.triangle(t)
            let a = SIMD3<Double>(solid.positions[Int(i)]), b = SIMD3<Double>(solid.positions[Int(j)]),
                c = SIMD3<Double>(solid.positions[Int(k)])
            guard a.z > 0 || b.z > 0 || c.z > 0 else { continue }
            let area = 0.5 * length(cr(b - a, c - a))
            total += area
            for w in weights where near.isNear(a + w.x * (b - a) + w.y * (c - a)) { thin += area / 9 }
        }
        return (backVertices, thinVertices, total > 0 ? thin / total : 1)
    }

    @Test(arguments: [false, true]) func capBecomesASolid(base: Bool) throws {
        let m = capWithHoles()
        let part = try Solidify.part(
            m, options: SolidOptions(thickness: 2, base: base, depth: 30), unitInMillimetres: unit)
        let solid = part.mesh
        checkSolid(solid, "cap base=\(base)")
        #expect(intersectingPairs(solid).isEmpty)
        #expect(part.scale == 1)
        // The cut 30 mm behind the top: the part is 30 mm tall.
        #expect(abs(Double(solid.bounds.max.z) * unit - part.depth) < 1e-3)
        #expect(part.depth <= 30 && part.depth > 10)
        if !base {
            // Shell: the wall at least 0.9 × the thickness over 99 % of the back (issue 22, item 3).
            let frontTriangles = try #require(part.frontTriangles)
            let w = Self.wall(solid, frontTriangles: frontTriangles, under: 0.9 * 2 / unit)
            #expect(w.backVertices > 0, "the shell has no back")
            #expect(w.thinShare <= 0.01, "\(w.thinShare * 100) % of the back closer than 1.8 mm")
            #expect(
                w.thinVertices <= w.backVertices / 100,
                "\(w.thinVertices) of \(w.backVertices) back vertices closer than 1.8 mm")
        }
    }

    @Test func fitScalesDownOnly() throws {
        let m = capWithHoles()
        let life = try Solidify.part(m, options: SolidOptions(depth: 30), unitInMillimetres: unit)
        let fitted = try Solidify.part(
            m, options: SolidOptions(depth: 30, fit: SIMD3(50, 50, 50)), unitInMillimetres: unit)
        let big = try Solidify.part(
            m, options: SolidOptions(depth: 30, fit: SIMD3(1000, 1000, 1000)), unitInMillimetres: unit)
        #expect(big.scale == 1)
        #expect(fitted.scale < 1)
        // The bed keeps the margin free on each side (x, y); the height is the volume's.
        let size = SIMD3<Double>(fitted.mesh.bounds.max - fitted.mesh.bounds.min) * unit
        let room = SIMD3<Double>(50 - 2 * SolidOptions.defaultFitMargin, 50 - 2 * SolidOptions.defaultFitMargin, 50)
        let fill = max(size.x / room.x, max(size.y / room.y, size.z / room.z))
        #expect(fill <= 1 + 1e-4 && fill > 0.98, "size \(size) in \(room)")
        let lifeSize = SIMD3<Double>(life.mesh.bounds.max - life.mesh.bounds.min) * unit
        #expect(abs(lifeSize.x * fitted.scale - size.x) < 0.5)
        #expect(SolidOptions.parseBuildVolume("250x210x210") == SIMD3(250, 210, 210))
        #expect(SolidOptions.parseBuildVolume("250x210") == nil && SolidOptions.parseBuildVolume("0x1x1") == nil)
    }

    /// With a vertex count the surface is decimated or refined as needed: exactly that count,
    /// closed, about the same volume; a count too small for any part is refused.
    @Test(arguments: [false, true]) func exactVertexCount(base: Bool) throws {
        let m = capWithHoles()
        let plain = try Solidify.solid(m, options: SolidOptions(base: base, depth: 30), unitInMillimetres: unit)
        for count in [
            plain.vertexCount / 2, plain.vertexCount - 1, plain.vertexCount, plain.vertexCount + 7,
            2 * plain.vertexCount,
        ] {
            let s = try Solidify.solid(
                m, options: SolidOptions(base: base, depth: 30), unitInMillimetres: unit, vertexCount: count)
            #expect(s.vertexCount == count)
            checkSolid(s, "\(count) vertices")
            // A relief's volume hardly moves; a shell's wall is its back's margin over the
            // thickness, which grows with the back's coarseness (1.04 to 1.7 thicknesses, the
            // first that keeps the wall): a fifth either way.
            let v = MeshInspection.signedVolume(s), v0 = MeshInspection.signedVolume(plain)
            #expect(abs(v - v0) < (base ? 0.1 : 0.2) * v0, "volume \(v) against \(v0) at \(count) vertices")
        }
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(
                m, options: SolidOptions(base: base, depth: 30), unitInMillimetres: unit,
                vertexCount: 5)
        }
    }

    @Test func refusesBadInput() {
        let tet = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)],
            triangles: [0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2])
        do {
            _ = try Solidify.solid(tet, options: SolidOptions(), unitInMillimetres: 1)
            Issue.record("a closed mesh was solidified")
        } catch {
            guard case .badSetting(let usage) = error else {
                Issue.record("expected .badSetting, got \(error)")
                return
            }
            #expect(usage.message == "the mesh has no boundary: it is already closed")
        }
        // Three triangles on one edge.
        let fin = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1)],
            triangles: [0, 1, 2, 1, 0, 3, 0, 1, 4])
        #expect(throws: FaceScanError.self) { try Solidify.solid(fin, options: SolidOptions(), unitInMillimetres: 1) }
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(
                Mesh(uncheckedPositions: [], triangles: []), options: SolidOptions(), unitInMillimetres: 1)
        }
        let m = capWithHoles()
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(m, options: SolidOptions(thickness: 0), unitInMillimetres: 1)
        }
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(m, options: SolidOptions(thickness: .nan), unitInMillimetres: 1)
        }
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(m, options: SolidOptions(depth: 0), unitInMillimetres: 1)
        }
        #expect(throws: FaceScanError.self) {
            try Solidify.solid(m, options: SolidOptions(fit: SIMD3(1, -1, 1)), unitInMillimetres: 1)
        }
        #expect(throws: FaceScanError.self) { try Solidify.solid(m, options: SolidOptions(), unitInMillimetres: 0) }
    }

    /// The ICT face at several targets, shell and relief: exact counts, closed, clean, on the bed.
    @Test(arguments: [false, true]) func ictFaceBecomesASolidAtEveryTarget(base: Bool) throws {
        let m = try ictFixture()
        for target in base ? [3_000, 40_000] : [3_000, 12_000] {
            var options = PipelineOptions()
            options.targetVertices = target
            let settings = ScanSettings(options: options, settings: CaptureSettings())
            let part = try Stages.solidPart(m, SolidOptions(thickness: 2, base: base), settings)
            let solid = part.mesh
            #expect(solid.vertexCount == target)
            checkSolid(solid, "ICT base=\(base) \(target)")
            #expect(abs(Double(solid.bounds.max.z) - part.depth) < 1e-3)
            #expect(part.depth <= SolidOptions.defaultDepth && part.depth > 10)
            // No crowd of vertices on the bed: padding to the count once split a relief's flat
            // cap, its long chords cut again and again into clusters CuraEngine reported as
            // overlapping faces (9 % to 39 % of the bed's vertices within 0.03 mm of another).
            let bed = Array(Set(solid.positions.filter { $0.z == 0 }.map { SIMD2<Float>($0.x, $0.y) }))
            var crowded = 0
            for (i, p) in bed.enumerated() {
                for (j, q) in bed.enumerated() where j != i && ((p - q) * (p - q)).sum() < 0.03 * 0.03 {
                    crowded += 1
                    break
                }
            }
            #expect(
                crowded * 20 < bed.count,
                "base=\(base) \(target): \(crowded) of \(bed.count) bed vertices within 0.03 mm of another")
        }
    }

    /// No crossing the face did not have (its lips overlap): counted before padding, which splits
    /// crossing triangles and so multiplies the pairs without changing the shape.
    @Test(arguments: [false, true]) func ictSolidAddsNoCrossing(base: Bool) throws {
        let m = try ICTSolid.surface.get()
        let own = try ICTSolid.filledCrossings.get().count
        // The shell is the one UntangleTests checks too: made once.
        let part =
            try base
            ? Solidify.part(m, options: SolidOptions(thickness: 2, base: base), unitInMillimetres: 1)
            : ICTSolid.shell.get()
        let crossings = intersectingPairs(part.mesh).count
        #expect(crossings <= own, "base=\(base): \(crossings - own) new crossing pairs")
        // The shell's wall: at least 0.9 × the thickness over 99 % of the back (issue 22, item 3).
        if !base {
            let frontTriangles = try #require(part.frontTriangles)
            let w = Self.wall(part.mesh, frontTriangles: frontTriangles, under: 0.9 * 2)
            #expect(w.backVertices > 0, "the shell has no back")
            #expect(w.thinShare <= 0.01, "\(w.thinShare * 100) % of the back closer than 1.8 mm")
            #expect(
                w.thinVertices <= w.backVertices / 100,
                "\(w.thinVertices) of \(w.backVertices) back vertices closer than 1.8 mm")
        }
    }
}

@Suite struct SelfIntersectionFlagTests {
    /// With flagged triangles, exactly the crossing pairs with a flagged triangle (as the full
    /// search finds them), whatever the flags; a limit cuts the list, never the verdict.
    @Test func flaggedSearchFindsThePairsWithAFlaggedTriangle() throws {
        // The ICT face (its lips cross) with its hole patches, plus a copy pushed through it.
        var m = Solidify.fillHoles(try Decimation.simplify(try ictFixture(), targetVertices: 3_000))
        let n = UInt32(m.vertexCount), tc = m.triangleCount
        m.positions += m.positions.map { $0 + SIMD3<Float>(0.001, -0.002, 0.004) }
        m.triangles += m.triangles.map { $0 + n }
        let all = SelfIntersection.pairs(m)
        #expect(all.count > 100)
        for flags in [
            [Bool](repeating: false, count: 2 * tc),
            (0..<(2 * tc)).map { $0 >= tc },
            (0..<(2 * tc)).map { $0 % 7 == 3 },
            (0..<(2 * tc)).map { ($0 &* 2_654_435_761) % 5 < 2 },
        ] {
            let found = SelfIntersection.pairs(m, only: flags)
            let expected = all.filter { flags[Int($0.x)] || flags[Int($0.y)] }
            #expect(Set(found) == Set(expected) && found.count == expected.count)
            if expected.count > 2 { #expect(SelfIntersection.pairs(m, only: flags, limit: 2).count == 2) }
        }
    }
}

@Suite struct InspectSelfIntersectionTests {
    /// Two triangles that pierce each other are both counted; a closed solid of the samples' kind none.
    @Test func countsCrossingTriangles() throws {
        let crossing = Mesh(
            uncheckedPositions: [
                SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(0, 2, 0),
                SIMD3(0.5, 0.5, -1), SIMD3(0.5, 0.5, 1), SIMD3(1.5, 1.5, 0),
            ],
            triangles: [0, 1, 2, 3, 4, 5])
        #expect(MeshInspection(crossing).selfIntersectingTriangles == 2)
        var apart = crossing
        for i in 3..<6 { apart.positions[i].z += 5 }
        #expect(MeshInspection(apart).selfIntersectingTriangles == 0)
        let part = try Solidify.solid(capWithHoles(), options: SolidOptions(depth: 30), unitInMillimetres: 50)
        #expect(MeshInspection(part).selfIntersectingTriangles == 0)
    }
}

@Suite struct UntangleTests {
    /// The smoothing ends when a round's rate could not clear the crossings left in the rounds
    /// left (a crumpled strip's 1 032 pairs, 84 cleared a round), not when a round lowered the
    /// count fast enough, nor after a round that did not lower it (a lip corner's crossings first
    /// rise), nor short of clearing the last pairs at one a round.
    @Test func untanglingStopsOnlyWhenItCannotFinish() {
        #expect(Untangle.hopeless(before: 1_032, after: 948, roundsLeft: 11))
        #expect(!Untangle.hopeless(before: 165, after: 100, roundsLeft: 11))
        #expect(!Untangle.hopeless(before: 40, after: 48, roundsLeft: 10))
        #expect(!Untangle.hopeless(before: 3, after: 2, roundsLeft: 2))
        #expect(Untangle.hopeless(before: 5, after: 4, roundsLeft: 1))
    }

    /// The ICT face crosses itself at the corners of its closed lips. Smoothed there, it crosses
    /// itself nowhere (by the tests' own search), its rim and every vertex far from the crossings
    /// stay where they were, and no vertex moves by as much as 2 mm (the decimated face's edges
    /// there are about 3 mm long).
    @Test func lipCornersNoLongerCross() throws {
        let m = Solidify.fillHoles(try ICTSolid.surface.get())
        let before = try ICTSolid.filledCrossings.get()
        #expect(before.count > 10, "the fixture's lips should cross (\(before.count) pairs)")
        let (u, left) = Untangle.untangled(m)
        #expect(left == 0)
        #expect(intersectingPairs(u).isEmpty)
        #expect(u.triangles == m.triangles)
        #expect(MeshCheck(u).degenerateTriangles == 0)
        // Vertices near a crossing: those of crossing triangles and two rings around them.
        let adjacency = Adjacency(triangles: m.triangles, vertexCount: m.vertexCount)
        var near = [Bool](repeating: false, count: m.vertexCount)
        for pair in before {
            for t in [pair.x, pair.y] {
                for c in 0..<3 { near[Int(m.triangles[3 * t + c])] = true }
            }
        }
        for _ in 0..<2 {
            let seed = near
            for v in 0..<m.vertexCount where seed[v] {
                for k in Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1]) {
                    near[Int(adjacency.neighbors[k])] = true
                }
            }
        }
        var moved = 0
        var farthest = 0.0
        for v in 0..<m.vertexCount where u.positions[v] != m.positions[v] {
            moved += 1
            let d = SIMD3<Double>(u.positions[v] - m.positions[v])
            farthest = max(farthest, (d * d).sum().squareRoot())
            let isBoundary = adjacency.boundaryOffsets[v + 1] > adjacency.boundaryOffsets[v]
            #expect(!isBoundary, "boundary vertex \(v) moved")
            #expect(near[v], "vertex \(v), more than two rings from any crossing, moved")
        }
        #expect(moved > 0)
        #expect(moved < m.vertexCount / 20, "\(moved) of \(m.vertexCount) vertices moved")
        #expect(farthest < 2, "a vertex moved \(farthest) mm")
        print("untangle: \(before.count) crossing pairs -> 0; \(moved) vertices moved, at most \(farthest) mm")
    }

    /// A surface that does not cross itself is returned unchanged.
    @Test func cleanSurfaceIsLeftAlone() {
        let cap = capWithHoles()
        let (u, left) = Untangle.untangled(cap)
        #expect(left == 0)
        #expect(u == cap)
    }

    /// With its lips no longer crossing, the ICT shell keeps its mouth and chin: the cut stays
    /// near the depth asked (before: 26 mm of 40, a nose).
    @Test func shellKeepsTheMouth() throws {
        let part = try ICTSolid.shell.get()
        print("untangle: ICT shell cut at \(part.depth) mm of \(SolidOptions.defaultDepth)")
        #expect(part.depth >= 32)
        // The mouth's corners (about 50 mm apart, 70 mm below the nose tip) lie within the part.
        let (lo, hi) = part.mesh.bounds
        #expect(hi.y - lo.y > 150, "the part is \(hi.y - lo.y) mm tall")
    }
}

/// The level-set back of a shell (`LevelSetShell`) and the ring that joins it to the rim.
@Suite struct LevelSetShellTests {
    /// A dome (mm, 56 × 56 mm, 0.8 mm grid) with a V-groove 8 mm deep and 3.2 mm wide across it:
    /// the face folds tighter than two 2 mm walls, where an offset back's two sheets would meet.
    static func groovedDome() -> Mesh {
        let n = 70
        let h = 0.8
        var positions: [SIMD3<Float>] = []
        var triangles: [UInt32] = []
        for j in 0...n {
            for i in 0...n {
                let x = -28 + Double(i) * h, y = -28 + Double(j) * h
                var z = 25 - (x * x + y * y) / 60
                z -= 8 * max(0, 1 - abs(x) / 1.6)
                positions.append(SIMD3(Float(x), Float(y), Float(z)))
            }
        }
        for j in 0..<n {
            for i in 0..<n {
                let a = UInt32(j * (n + 1) + i), b = a + 1, c = a + UInt32(n + 2), d = a + UInt32(n + 1)
                triangles += [a, b, c, a, c, d]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    @Test func grooveBecomesSolidAndWallsHold() throws {
        let part = try Solidify.part(
            Self.groovedDome(), options: SolidOptions(thickness: 2, depth: 30), unitInMillimetres: 1)
        let solid = part.mesh
        let c = MeshCheck(solid)
        #expect(c.isWatertight && c.isClean, "\(c.summary)")
        #expect(MeshInspection.signedVolume(solid) > 0)
        #expect(intersectingPairs(solid).isEmpty)
        let frontTriangles = try #require(part.frontTriangles)
        let w = SolidSolidifyTests.wall(solid, frontTriangles: frontTriangles, under: 0.9 * 2)
        #expect(w.backVertices > 100, "the shell has \(w.backVertices) back vertices")
        #expect(w.thinShare <= 0.01, "\(w.thinShare * 100) % of the back closer than 1.8 mm")
        #expect(w.thinVertices == 0, "\(w.thinVertices) back vertices nearer the front than 1.8 mm")
    }

    /// A square with two square holes: the bridged polygon's ear clipping covers the area between
    /// them exactly once, every triangle counter-clockwise.
    @Test func ringWithHolesIsCoveredOnce() throws {
        var points: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(10, 0), SIMD2(10, 10), SIMD2(0, 10)]
        var holes: [[Int32]] = []
        for (x, y) in [(2.0, 2.0), (6.0, 5.0)] {
            let base = Int32(points.count)
            // Clockwise.
            points += [SIMD2(x, y), SIMD2(x, y + 2), SIMD2(x + 2, y + 2), SIMD2(x + 2, y)]
            holes.append([base, base + 1, base + 2, base + 3])
        }
        var outline: [Int32] = [0, 1, 2, 3]
        #expect(Polygons2D.bridge(&outline, holes: holes, points: points))
        let triangles = try #require(EarClipping.triangulate(points, polygon: outline))
        var area = 0.0
        for t in triangles {
            let a = EarClipping.orient(points[Int(t.x)], points[Int(t.y)], points[Int(t.z)])
            #expect(a > 0)
            area += a / 2
        }
        #expect(abs(area - (100 - 8)) < 1e-9, "area \(area)")
        #expect(triangles.count == outline.count - 2)
        // A hole that crosses the outline has no valid triangulation.
        var crossing: [Int32] = [0, 1, 2, 3]
        let outside = Int32(points.count)
        points += [SIMD2(8, 8), SIMD2(8, 12), SIMD2(9, 12), SIMD2(9, 8)]
        let bridged = Polygons2D.bridge(
            &crossing, holes: [[outside, outside + 1, outside + 2, outside + 3]], points: points)
        #expect(!bridged || EarClipping.triangulate(points, polygon: crossing) == nil)
    }

    /// The ICT face at the fronts the low and high presets give (about 2 700 and 9 800 vertices;
    /// medium's, about 4 800, is `ictSolidAddsNoCrossing`'s 5 000): the wall holds at every preset.
    @Test(arguments: [2_700, 9_800]) func ictWallsAtThePresets(front: Int) throws {
        let m = try ictFixture().scaled(by: 1000)
        let surface = try Decimation.simplify(Solidify.fillHoles(m), targetVertices: front)
        let part = try Solidify.part(surface, options: SolidOptions(thickness: 2), unitInMillimetres: 1)
        let frontTriangles = try #require(part.frontTriangles)
        let share = SolidSolidifyTests.wall(part.mesh, frontTriangles: frontTriangles, under: 0.9 * 2).thinShare
        #expect(share <= 0.01, "\(front) vertices: \(share * 100) % of the back closer than 1.8 mm")
        let own = try ICTSolid.wholeFaceFilledCrossings.get()
        #expect(intersectingPairs(part.mesh).count <= own)
    }
}
