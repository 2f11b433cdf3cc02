import Foundation
import Testing

@testable import FaceScanCore
@testable import FaceScanMeasure
@testable import FaceScanSolid

/// The solid step's cost follows its input (issue 59): the work is counted, not timed — the
/// vertices marching tetrahedra make, the grid points of each distance field, the backs tried.
/// Timings: `facescan-bench small-solids` and docs/PERFORMANCE.md (*Solid step: cost follows the input*).
@Suite struct SolidCostTests {
    /// A hemisphere of `radius` (mm) standing on the bed, pole up: `rings` rings of `segments`
    /// vertices from the pole down to the rim at z = 0, counter-clockwise seen from outside.
    static func hemisphere(radius: Double, rings: Int, segments: Int) -> Mesh {
        var positions: [SIMD3<Float>] = [SIMD3(0, 0, Float(radius))]
        for r in 1...rings {
            let theta = Double(r) / Double(rings) * Double.pi / 2
            for s in 0..<segments {
                let phi = Double(s) / Double(segments) * 2 * Double.pi
                let x = radius * sin(theta) * cos(phi), y = radius * sin(theta) * sin(phi)
                positions.append(SIMD3(Float(x), Float(y), r == rings ? 0 : Float(radius * cos(theta))))
            }
        }
        var triangles: [UInt32] = []
        func v(_ r: Int, _ s: Int) -> UInt32 { UInt32(1 + (r - 1) * segments + (s % segments)) }
        for s in 0..<segments { triangles += [0, v(1, s), v(1, s + 1)] }
        for r in 1..<rings {
            for s in 0..<segments {
                let a = v(r, s), b = v(r, s + 1), c = v(r + 1, s), d = v(r + 1, s + 1)
                triangles += [a, c, d, a, d, b]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    /// A bumpy `nx` × `ny` grid `size` mm across (z: a bowl and three waves, fixed by `seed`).
    static func bumpyGrid(_ nx: Int, _ ny: Int, size: Double, seed: UInt64) -> Mesh {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        let amplitude = size * (0.02 + 0.38 * random()), bowl = size * 0.5 * random()
        let waves = (0..<3).map { _ in
            ((2 * random() - 1) * amplitude, 0.5 + 3.5 * random(), 0.5 + 3.5 * random(), 6.3 * random())
        }
        var positions: [SIMD3<Float>] = []
        for j in 0..<ny {
            for i in 0..<nx {
                let u = Double(i) / Double(nx - 1) - 0.5, v = Double(j) / Double(ny - 1) - 0.5
                var z = bowl * (0.5 - u * u - v * v)
                for (a, fx, fy, phase) in waves { z += a * sin(fx * u * 6.28 + fy * v * 6.28 + phase) }
                positions.append(SIMD3(Float(u * size), Float(v * size), Float(z)))
            }
        }
        var triangles: [UInt32] = []
        for j in 0..<(ny - 1) {
            for i in 0..<(nx - 1) {
                let a = UInt32(j * nx + i), b = a + 1, c = a + UInt32(nx), d = c + 1
                triangles += [a, b, d, a, d, c]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    /// The extraction never makes more vertices than its cap: it counts the grid edges the level
    /// set cuts (exactly the vertices it would make) and samples coarser until they fit.
    @Test func extractionNeverExceedsItsCap() throws {
        let front = Self.hemisphere(radius: 30, rings: 24, segments: 64)
        let bvh = TriangleBVH(front)
        let grid = try LevelSetShell.DistanceGrid(front, thickness: 2, level: 3.4, bvh: bvh)
        let free = try LevelSetShell.backSurface(grid, level: 2.08, opening: 1.5, stride: 1)
        #expect(free.work.stride == 1)
        #expect(free.work.vertices > 2_000, "the uncapped back has \(free.work.vertices) vertices")
        // The count is exact: a cap of exactly the uncapped count keeps the sampling, one less does not.
        let exact = try LevelSetShell.backSurface(grid, level: 2.08, opening: 1.5, stride: 1, cap: free.work.vertices)
        #expect(exact.work.stride == 1 && exact.work.vertices == free.work.vertices)
        let under = try LevelSetShell.backSurface(
            grid, level: 2.08, opening: 1.5, stride: 1, cap: free.work.vertices - 1)
        #expect(under.work.stride > 1 && under.work.vertices < free.work.vertices)
        for divisor in [2, 3, 5, 9] {
            let cap = free.work.vertices / divisor
            let capped = try LevelSetShell.backSurface(grid, level: 2.08, opening: 1.5, stride: 1, cap: cap)
            #expect(capped.work.vertices <= cap, "cap \(cap): \(capped.work.vertices) vertices extracted")
            #expect(capped.work.stride > 1)
            #expect(capped.mesh.vertexCount > 0 && capped.mesh.vertexCount <= capped.work.vertices)
            // Cells visited are those of the coarser sampling, not of the grid.
            #expect(capped.work.cellsVisited * capped.work.stride * capped.work.stride <= free.work.cellsVisited + 1)
        }
        // Started at a stride of 2 (the grid measured outside points only at every second one),
        // a capped extraction samples only multiples of it.
        let coarse = try LevelSetShell.backSurface(
            grid, level: 2.08, opening: 1.5, stride: 2, cap: free.work.vertices / 9)
        #expect(coarse.work.stride > 2 && coarse.work.stride % 2 == 0, "stride \(coarse.work.stride)")
        #expect(coarse.work.vertices <= free.work.vertices / 9)
    }

    /// The issue's fuzz input (`solid` target, hex 0e8c0000…071f): 16 lattice points, 4 triangles,
    /// a 1 mm shell. Its cut front keeps a duplicate triangle, so no back can close it: it is
    /// refused before any distance field or back is made (it extracted 21 backs of 19 000–31 000
    /// vertices, 2.2 s). Replayed with the fuzz target's decoding.
    @Test func fuzzSurfaceWithDuplicateFrontIsRefusedWithoutWork() {
        let hex =
            "0e8c000000130a00191400191f0013000a190a0a1f070207064469630405090409080d060a050a090206070b070207064469630405090409080d060a050700071f"
        var bytes: [UInt8] = []
        var at = hex.startIndex
        while at < hex.endIndex {
            let next = hex.index(at, offsetBy: 2)
            bytes.append(UInt8(hex[at..<next], radix: 16)!)
            at = next
        }
        // Tests/Fuzz/FuzzSolid.swift's layout: count, extent, flags, 3 lattice bytes a vertex, 3 index bytes a triangle.
        let n = 2 + Int(bytes[0]) % 199
        let extent = Float(64.910_32)  // 10^(140 / 255 · 3.301) mm, bytes[1] = 0x8c
        #expect(bytes[1] == 0x8c && bytes[2] == 0)
        var positions: [SIMD3<Float>] = []
        var k = 3
        while positions.count < n && k + 3 <= bytes.count {
            positions.append(
                SIMD3(Float(bytes[k] % 32), Float(bytes[k + 1] % 32), Float(bytes[k + 2] % 32)) * (extent / 31))
            k += 3
        }
        var triangles: [UInt32] = []
        while k + 3 <= bytes.count {
            let (a, b, c) = (bytes[k], bytes[k + 1], bytes[k + 2])
            let (i, j, l) = (
                UInt32(Int(a & 0x7f) % positions.count), UInt32(Int(b) % positions.count),
                UInt32(Int(c) % positions.count)
            )
            triangles += a & 0x80 == 0 ? [i, j, l] : [i, l, j]
            k += 3
        }
        #expect(positions.count == 16 && triangles.count == 12)
        let mesh = Mesh(uncheckedPositions: positions, triangles: triangles)
        var work = Solidify.Work()
        do throws(SolidError) {
            _ = try Solidify.makePart(mesh, options: SolidOptions(thickness: 1), unitInMillimetres: 1, work: &work)
            Issue.record("a part was made")
        } catch {
            guard case .backNotClosed = error else {
                Issue.record("refused as \(error)")
                return
            }
        }
        #expect(work.fieldPoints.isEmpty, "fields measured: \(work.fieldPoints)")
        #expect(work.backs.isEmpty, "backs extracted: \(work.backs.count)")
    }

    /// A cut whose rim overhung moves forward 0.9 of its depth, but a cut that left the whole
    /// surface in front of its plinth jumps to 0.9 of the depth where the plinth touches the
    /// surface: the cuts between would all be the same front, rim and skirt walls (a 5 mm surface
    /// cut 60 mm behind paid 16 cuts for one answer).
    @Test func cutsBehindTheWholeSurfaceAreTriedOnce() throws {
        // A surface 5 mm deep (z from 0 to 5), in millimetres.
        let surface = try Mesh(
            positions: [SIMD3(0, 0, 0), SIMD3(10, 0, 5), SIMD3(0, 10, 2)], triangles: [0, 1, 2])
        var relief = SolidOptions()
        relief.base = true
        relief.depth = 60
        // The relief's plinth is 1 mm: the plinth touches the surface at 6 mm.
        #expect(abs(Solidify.forward(from: 60, turned: surface, options: relief, unit: 1) - 0.9 * 6) < 1e-9)
        #expect(abs(Solidify.forward(from: 6, turned: surface, options: relief, unit: 1) - 0.9 * 6) < 1e-9)
        // A cut into the surface steps as before.
        #expect(abs(Solidify.forward(from: 5.4, turned: surface, options: relief, unit: 1) - 0.9 * 5.4) < 1e-9)
        // A shell's plinth is two walls tall (2 mm: 4 mm); in metres the surface is 5 m deep and
        // a cut 200 mm behind its front cuts into it.
        var shell = SolidOptions()
        shell.thickness = 2
        #expect(abs(Solidify.forward(from: 200, turned: surface, options: shell, unit: 1) - 0.9 * 9) < 1e-9)
        #expect(abs(Solidify.forward(from: 200, turned: surface, options: shell, unit: 1000) - 0.9 * 200) < 1e-9)
    }

    /// A surface whose rim, once cut, has notches narrower than the back's extraction (an 11 × 2
    /// grid of random heights 200 mm across, `small-solids`' s26): the back's outline on the bed
    /// crosses the rim at the first cut whatever its margin and ball, so the first such back ends
    /// that cut's choices and the cut moves forward (it extracted 8 backs before, 3 now), and the
    /// part is made; however the cuts go, a part extracts at most `mostBacks` backs.
    @Test func aBackCrossingTheRimMovesTheCut() throws {
        let xs: [Float] = [
            -100.00037, -80.00029, -60.000217, -40.000145, -20.000072, 0, 20.000072, 40.000145, 60.000217, 80.00029,
            100.00037,
        ]
        let near: [(Float, Float)] = [
            (-63.456066, -28.64293), (-73.6579, -21.88274), (-77.02334, 13.441038), (-86.30404, 6.3694606),
            (-75.71092, -4.955452), (-127.97717, 21.44565), (-110.607445, 27.107395), (-121.88474, -11.77435),
            (-97.44714, -25.310764), (-68.197784, 1.4694097), (-103.95238, 8.951283),
        ]
        let far: [(Float, Float)] = [
            (82.80066, 5.6975946), (85.232864, 21.573107), (123.46599, -19.28717), (94.251526, -32.89755),
            (61.062, 18.420362), (87.02889, 39.079296), (73.69238, 0.9847776), (127.925835, -9.622579),
            (100.19426, 13.030759), (72.49519, -2.4632726), (132.44432, -29.88472),
        ]
        let positions = zip(xs, near).map { SIMD3($0, $1.0, $1.1) } + zip(xs, far).map { SIMD3($0, $1.0, $1.1) }
        var triangles: [UInt32] = []
        for i in 0..<UInt32(10) { triangles += [i, i + 1, i + 12, i, i + 12, i + 11] }
        let surface = try Mesh(positions: positions, triangles: triangles)
        var work = Solidify.Work()
        let part = try Solidify.makePart(surface, options: SolidOptions(), unitInMillimetres: 1, work: &work)
        let check = MeshCheck(part.mesh)
        #expect(check.isWatertight && check.isClean)
        #expect(work.backs.count <= 3, "\(work.backs.count) backs")
        #expect(part.depth < SolidOptions.defaultDepth, "the cut moved forward")
        #expect(work.backs.count <= Solidify.Constants.mostBacks && Solidify.Constants.mostBacks == 3 * 7)
    }

    /// A shell's back takes as many vertices as its front, at least 500; with a vertex count,
    /// what the count leaves, but no more than that or twice the front (the rest is padding).
    @Test func backShareFollowsTheFront() {
        #expect(Solidify.backShare(front: 16, target: nil) == 500)
        #expect(Solidify.backShare(front: 3_000, target: nil) == 3_000)
        #expect(Solidify.backShare(front: 580, target: 1_372) == 792)
        #expect(Solidify.backShare(front: 100, target: 2_000) == 500)
        #expect(Solidify.backShare(front: 100, target: 400) == 300)
        #expect(Solidify.backShare(front: 3_000, target: 5_000) == 2_000)
        #expect(Solidify.backShare(front: 1_000, target: 20_000) == 2_000)
    }

    /// Small surfaces (4–196 vertices, 1–300 mm across) as shells: every back extracts at most
    /// `extractionRatio` × its share, the distance field's grid follows the back's share (not
    /// the part's size at half a thickness), and a back over the thin share at the largest
    /// margin ends the search (no nearer margin is tried after it).
    @Test func smallSurfacesCostWhatTheirShareAsks() {
        let cases: [(Int, Int, Double)] = [
            (2, 2, 1.5), (3, 7, 26), (9, 8, 150), (7, 12, 126), (6, 14, 139), (11, 8, 96), (14, 14, 300),
            (5, 4, 288), (12, 12, 4), (14, 5, 271),
        ]
        var parts = 0
        for (index, (nx, ny, size)) in cases.enumerated() {
            let surface = Self.bumpyGrid(nx, ny, size: size, seed: UInt64(index + 1))
            var work = Solidify.Work()
            let label = "\(nx)x\(ny) \(size) mm"
            do throws(SolidError) {
                let part = try Solidify.makePart(surface, options: SolidOptions(), unitInMillimetres: 1, work: &work)
                let check = MeshCheck(part.mesh)
                #expect(check.isWatertight && check.isClean, "\(label): \(check.summary)")
                parts += 1
            } catch {
                // A refusal is fine; its work is bounded all the same.
            }
            let area = LevelSetShell.area(surface)
            for back in work.backs {
                // The front (with its skirt) is at least the surface's area; its skirt adds at
                // most its rim times the cut's depth.
                let cap = LevelSetShell.extractionCap(area: 4 * area + 1e5, thickness: 2, share: back.share)
                #expect(
                    back.extraction.vertices <= cap, "\(label): \(back.extraction.vertices) vertices for \(back.share)")
            }
            // Half-a-thickness spacing over a 300 mm part is 5 million points; the share's edges (up to one
            // thickness) ask far fewer (the 271 mm 14 x 5 grid: 636 000).
            for points in work.fieldPoints {
                #expect(points <= 1_000_000, "\(label): a distance field of \(points) points")
            }
            #expect(work.backs.count <= 3 * 7)
        }
        #expect(parts >= 5, "only \(parts) of \(cases.count) surfaces made a part")
    }

    /// The `solid` fuzz target's kind of surface (issue 59): thin walls over large parts, a flat
    /// plate with a vertex count, a tall skirt under a small surface. The work follows the back's
    /// share, not the part's size in walls: each is a part, every distance field within its
    /// bound (a grid of one thickness would have 9 million points for the triangle, 1.6 million
    /// for the grid; 261 000 for the plate, 2 × 10⁶ at half a thickness), every extraction at
    /// most `extractionRatio` vertices per vertex of the share, and the skirt at most
    /// `skirtPerVertex` vertices per vertex of the surface.
    @Test func fuzzKindSurfacesCostWhatTheirShareAsks() {
        let triangle = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(388.6, 0, 0), SIMD3(0, 388.6, 37.6)], triangles: [0, 1, 2])
        var plate: [SIMD3<Float>] = []
        var plateTriangles: [UInt32] = []
        for j in 0..<6 { for i in 0..<6 { plate.append(SIMD3(Float(i) * 13, Float(j) * 13, 0)) } }
        for j in 0..<5 {
            for i in 0..<5 {
                let a = UInt32(j * 6 + i)
                plateTriangles += [a, a + 1, a + 7, a, a + 7, a + 6]
            }
        }
        // A 3 mm strip under a 200 mm cut: its rim's edges are a fortieth of a millimetre.
        var strip: [SIMD3<Float>] = []
        var stripTriangles: [UInt32] = []
        for s in 0...60 { strip += [SIMD3(Float(s) * 0.05, 0, 0), SIMD3(Float(s) * 0.05, 1, 0.2)] }
        for s in 0..<60 {
            let a = UInt32(2 * s)
            stripTriangles += [a, a + 2, a + 3, a, a + 3, a + 1]
        }
        // Label, surface, options, vertex count, most grid points of a field (measured: 206 514,
        // 426 300, 261 360; none for the relief; the random grid's are not a part).
        let cases: [(String, Mesh, SolidOptions, Int?, Int)] = [
            ("388 mm triangle, 1 mm shell", triangle, SolidOptions(thickness: 1), nil, 300_000),
            ("150 mm bumpy grid, 2 mm shell", Self.bumpyGrid(9, 8, size: 150, seed: 3), SolidOptions(), nil, 600_000),
            (
                "65 mm plate, 1 mm shell, 1 420 vertices", Mesh(uncheckedPositions: plate, triangles: plateTriangles),
                SolidOptions(thickness: 1), 1_420, 400_000
            ),
            (
                "3 mm strip, relief cut at 200 mm", Mesh(uncheckedPositions: strip, triangles: stripTriangles),
                SolidOptions(base: true, depth: 200), nil, 0
            ),
            (
                "214 mm grid of random heights, 2 mm shell cut at 200 mm", Self.randomHeights(11, size: 214),
                SolidOptions(depth: 200), nil, 1_000_000
            ),
        ]
        for (label, surface, options, count, mostPoints) in cases {
            var work = Solidify.Work()
            defer { Self.expectPushesBounded(work, label: label) }
            if label.contains("random") {
                _ = try? Solidify.makePart(
                    surface, options: options, unitInMillimetres: 1, vertexCount: count, work: &work)
                #expect(work.backs.count <= 3 * 7, "\(label): \(work.backs.count) backs")
                continue
            }
            do throws(SolidError) {
                let part = try Solidify.makePart(
                    surface, options: options, unitInMillimetres: 1, vertexCount: count, work: &work)
                let check = MeshCheck(part.mesh)
                #expect(check.isWatertight && check.isClean, "\(label): \(check.summary)")
                if let count { #expect(part.mesh.vertexCount == count, "\(label)") }
                if options.base {
                    // Front, skirt and cap: the skirt at most 4 vertices per vertex of the surface.
                    #expect(
                        part.mesh.vertexCount <= (1 + PlaneTrim.skirtPerVertex) * surface.vertexCount + 4,
                        "\(label): \(part.mesh.vertexCount) vertices")
                }
            } catch {
                Issue.record("\(label): refused (\(error))")
            }
            #expect(work.backs.count <= 3 * 7, "\(label): \(work.backs.count) backs")
            for back in work.backs {
                #expect(
                    back.extraction.vertices <= Int(LevelSetShell.Constants.extractionRatio) * back.share,
                    "\(label): \(back.extraction.vertices) vertices extracted for a share of \(back.share)")
            }
            for points in work.fieldPoints { #expect(points <= mostPoints, "\(label): a field of \(points) points") }
        }
    }

    /// The work allowance (issue 59, ``Solidify``'s retry policy): whatever its backs do, a part
    /// spends at most its allowance and one step more (a field and a back, estimated from the last
    /// ones), and a small surface's allowance is `retryWork` (its first back costs far less than
    /// a face's, so `retryFactor` times it less `retryMargin` is less). Before it, grids of random
    /// heights like these (`facescan-bench fuzz-solids`' c039 and c246) spent 440 000 and 465 000
    /// points (three and four fields, six backs each) before they were refused.
    @Test func smallSurfacesSpendWithinTheirAllowance() {
        let cases: [(String, Mesh, SolidOptions)] = [
            ("214 mm random heights, cut at 200 mm", Self.randomHeights(12, size: 214), SolidOptions(depth: 200)),
            ("325 mm random heights, cut at 200 mm", Self.randomHeights(7, size: 325), SolidOptions(depth: 200)),
            ("150 mm bumpy grid", Self.bumpyGrid(9, 8, size: 150, seed: 3), SolidOptions()),
            ("126 mm bumpy grid", Self.bumpyGrid(7, 12, size: 126, seed: 4), SolidOptions()),
            ("300 mm bumpy grid", Self.bumpyGrid(14, 14, size: 300, seed: 7), SolidOptions()),
        ]
        let perVertex = Solidify.Constants.pointsPerBackVertex
        for (label, surface, options) in cases {
            var work = Solidify.Work()
            _ = try? Solidify.makePart(surface, options: options, unitInMillimetres: 1, work: &work)
            guard let allowance = work.allowance else {
                #expect(work.backs.isEmpty, "\(label): backs tried without an allowance")
                continue
            }
            let step = (work.fieldPoints.max() ?? 0) + perVertex * (work.backs.map(\.extraction.vertices).max() ?? 0)
            #expect(work.spent <= allowance + step, "\(label): spent \(work.spent) of \(allowance) (a step \(step))")
            let most = Solidify.Constants.retryWork
            #expect(allowance == most, "\(label): allowance \(allowance)")
            #expect(work.spent <= 2 * most, "\(label): spent \(work.spent)")
        }
    }

    /// A push-off's work, counted: at most `pushRounds` rounds, each looking at no more than the
    /// back's triangles, a back of at most its share; a part's push-offs at most one per back
    /// extracted. So a surface's push-off work is bounded by backs × rounds × the back's triangles.
    static func expectPushesBounded(_ work: Solidify.Work, label: String) {
        #expect(work.pushes.count <= work.backs.count, "\(label): \(work.pushes.count) push-offs")
        let shares = work.backs.map(\.share).max() ?? 0
        var visits = 0
        for push in work.pushes {
            #expect(push.rounds <= LevelSetShell.Constants.pushRounds, "\(label): \(push.rounds) rounds")
            #expect(push.triangles <= push.rounds * push.backTriangles, "\(label): \(push.triangles) visits")
            #expect(push.backVertices <= shares, "\(label): a back of \(push.backVertices) vertices")
            visits += push.triangles
        }
        let most = work.backs.count * LevelSetShell.Constants.pushRounds * 2 * (shares + 2)
        #expect(visits <= most, "\(label): \(visits) back triangles looked at, bound \(most)")
    }

    /// An `n` × `n` grid `size` mm across whose heights are random points of the fuzz target's
    /// 32-point lattice (up to the size): every back crosses its spikes.
    static func randomHeights(_ n: Int, size: Double) -> Mesh {
        var state: UInt64 = 0x5EED_F059
        var positions: [SIMD3<Float>] = []
        for j in 0..<n {
            for i in 0..<n {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let z = Int(state >> 59)  // 0…31
                positions.append(SIMD3(Float(i * 31 / (n - 1)), Float(j * 31 / (n - 1)), Float(z)) * Float(size / 31))
            }
        }
        var triangles: [UInt32] = []
        for j in 0..<(n - 1) {
            for i in 0..<(n - 1) {
                let a = UInt32(j * n + i), b = a + 1, c = a + UInt32(n), d = c + 1
                triangles += [a, b, d, a, d, c]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }
}
