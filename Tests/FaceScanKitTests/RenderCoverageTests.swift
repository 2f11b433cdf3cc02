import Testing

@testable import FaceScanInterop
@testable import FaceScanKit
@testable import FaceScanRender

/// Fixtures live beside this file, in Fixtures/.
private let fixtures: String = {
    let here = #filePath
    return String(here[..<here.lastIndex(of: "/")!]) + "/Fixtures"
}()

/// The ICT face (open: outer rim, eyes, mouth), as the fixture and decimated to 5 000 vertices.
private let openFaces: [(name: String, mesh: Mesh)] = {
    // The fixture is part of the repository; a failure here is a broken checkout.
    let face = try! Mesh.read(path: fixtures + "/ict-neutral.obj")
    return [("ICT face", face), ("ICT face at 5 000 v", try! Decimation.simplify(face, targetVertices: 5000))]
}()

/// A closed icosphere: the icosahedron with every triangle split in four `levels` times, projected
/// onto the unit sphere (and nudged off-centre, so that no edge lies on a symmetry axis of the view).
private func icosphere(levels: Int) -> Mesh {
    let g: Float = (1 + Float(5).squareRoot()) / 2
    var positions: [SIMD3<Float>] = [
        SIMD3(-1, g, 0), SIMD3(1, g, 0), SIMD3(-1, -g, 0), SIMD3(1, -g, 0), SIMD3(0, -1, g), SIMD3(0, 1, g),
        SIMD3(0, -1, -g), SIMD3(0, 1, -g), SIMD3(g, 0, -1), SIMD3(g, 0, 1), SIMD3(-g, 0, -1), SIMD3(-g, 0, 1),
    ]
    var triangles: [UInt32] = [
        0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
        3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
    ]
    for _ in 0..<levels {
        var middles: [UInt64: UInt32] = [:]
        func middle(_ a: UInt32, _ b: UInt32) -> UInt32 {
            let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
            if let m = middles[key] { return m }
            positions.append((positions[Int(a)] + positions[Int(b)]) / 2)
            middles[key] = UInt32(positions.count - 1)
            return UInt32(positions.count - 1)
        }
        var next: [UInt32] = []
        for t in stride(from: 0, to: triangles.count, by: 3) {
            let a = triangles[t], b = triangles[t + 1], c = triangles[t + 2]
            let ab = middle(a, b), bc = middle(b, c), ca = middle(c, a)
            next += [a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca]
        }
        triangles = next
    }
    let unit = positions.map { p in p / (p * p).sum().squareRoot() + SIMD3(0.013, 0.007, 0.003) }
    return Mesh(uncheckedPositions: unit, triangles: triangles)
}

/// Pixels of `frame` where the surface may rightly be partly covered or uncovered next to covered
/// pixels: within `radius` output pixels of an opening (an edge with one triangle, or more than
/// two) or of a fold (an edge whose two triangles lie on the same side of it on screen).
private func pixelsNearOutlines(_ mesh: Mesh, _ frame: RenderedFrame, radius: Float) -> [Bool] {
    let size = frame.image.width
    let screen = mesh.positions.map { frame.camera.project($0).screen }
    var opposite: [UInt64: [Int]] = [:]
    let tris = mesh.triangles
    for t in stride(from: 0, to: tris.count, by: 3) {
        for k in 0..<3 {
            let a = tris[t + k], b = tris[t + (k + 1) % 3], c = tris[t + (k + 2) % 3]
            opposite[UInt64(min(a, b)) << 32 | UInt64(max(a, b)), default: []].append(Int(c))
        }
    }
    var near = [Bool](repeating: false, count: size * size)
    for (key, others) in opposite {
        let a = screen[Int(key >> 32)], b = screen[Int(key & 0xFFFF_FFFF)]
        func side(_ p: SIMD2<Float>) -> Float { (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) }
        guard others.count != 2 || side(screen[others[0]]) * side(screen[others[1]]) >= 0 else { continue }
        // Mark every pixel whose centre is within `radius` of the segment a–b.
        let lo = pointwiseMin(a, b) - radius, hi = pointwiseMax(a, b) + radius
        let d = b - a, length2 = max((d * d).sum(), 1e-12)
        for py in max(0, Int(lo.y))...min(size - 1, max(0, Int(hi.y))) {
            for px in max(0, Int(lo.x))...min(size - 1, max(0, Int(hi.x))) {
                let p = SIMD2(Float(px) + 0.5, Float(py) + 0.5)
                let s = min(max(((p - a) * d).sum() / length2, 0), 1)
                let q = a + s * d - p
                if (q * q).sum() <= radius * radius { near[py * size + px] = true }
            }
        }
    }
    return near
}

/// Pixels inside the surface that are partly covered, or empty beside a fully covered one, with
/// no opening or fold near enough to explain it: cracks and pin-holes.
private func cracks(_ mesh: Mesh, _ frame: RenderedFrame) -> [(x: Int, y: Int, alpha: UInt8)] {
    let near = pixelsNearOutlines(mesh, frame, radius: 1.5)
    let size = frame.image.width, px = frame.image.pixels
    func alpha(_ x: Int, _ y: Int) -> UInt8 {
        x < 0 || y < 0 || x >= size || y >= size ? 0 : px[4 * (y * size + x) + 3]
    }
    var found: [(Int, Int, UInt8)] = []
    for y in 0..<size {
        for x in 0..<size where !near[y * size + x] {
            let a = alpha(x, y)
            let besideFull =
                alpha(x - 1, y) == 255 || alpha(x + 1, y) == 255 || alpha(x, y - 1) == 255
                || alpha(x, y + 1) == 255
            if (a > 0 && a < 255) || (a == 0 && besideFull) { found.append((x, y, a)) }
        }
    }
    return found
}

private func render(_ mesh: Mesh, _ view: RenderView, _ size: Int) throws -> RenderedFrame {
    try Rasterizer.renderFrame(mesh, options: RenderOptions(size: size, view: view), shader: ClayShader())
}

@Suite struct RenderCoverageTests {
    @Test(arguments: RenderView.allCases)
    func openFacesHaveNoCracksAwayFromTheirOpenings(view: RenderView) throws {
        for (name, mesh) in openFaces {
            for size in [600, 257] {
                let found = cracks(mesh, try render(mesh, view, size))
                #expect(found.isEmpty, "\(name), \(view), \(size) px: \(found.prefix(5))")
            }
        }
    }

    @Test(arguments: RenderView.allCases)
    func closedSphereIsCoveredEverywhereInsideItsOutline(view: RenderView) throws {
        let sphere = icosphere(levels: 5)
        for size in [600, 311] {
            let frame = try render(sphere, view, size)
            let found = cracks(sphere, frame)
            #expect(found.isEmpty, "\(view), \(size) px: \(found.prefix(5))")
            // The checker is not vacuous: most of the disc is fully covered and far from the outline.
            #expect(frame.image.coverage > 0.3)
        }
    }

    @Test func theCheckerFindsAPinHoleAndACrackMadeOnPurpose() throws {
        let sphere = icosphere(levels: 4)
        var frame = try render(sphere, .front, 300)
        #expect(cracks(sphere, frame).isEmpty)
        // One pixel near the middle partly uncovered, then one left empty.
        for alpha: UInt8 in [191, 0] {
            var f = frame
            f.image.pixels[4 * (150 * 300 + 140) + 3] = alpha
            let found = cracks(sphere, f)
            #expect(found.count == 1 && found.first?.x == 140 && found.first?.y == 150)
        }
        // A crack along a row: every pixel of it found.
        for x in 120..<180 { frame.image.pixels[4 * (140 * 300 + x) + 3] = 127 }
        #expect(cracks(sphere, frame).count == 60)
    }
}
