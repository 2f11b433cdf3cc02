import Testing

@testable import FaceScanKit

/// Fixtures live beside this file, in Fixtures/.
private let fixtures: String = {
    let here = #filePath
    return String(here[..<here.lastIndex(of: "/")!]) + "/Fixtures"
}()

private let ictNeutral: Mesh = {
    // The fixture is part of the repository; a failure here is a broken checkout.
    try! Mesh.read(path: fixtures + "/ict-neutral.obj")
}()

/// Fraction of pixels whose coverage (alpha > 0) agrees between two images.
private func maskAgreement(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    var same = 0
    for i in stride(from: 3, to: a.pixels.count, by: 4) where (a.pixels[i] > 0) == (b.pixels[i] > 0) { same += 1 }
    return Double(same) / Double(a.width * a.height)
}

/// Mean absolute difference of luminance over pixels covered in both images, in 0…255.
private func meanLumaDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    var sum = 0.0, n = 0
    for i in stride(from: 0, to: a.pixels.count, by: 4) where a.pixels[i + 3] == 255 && b.pixels[i + 3] == 255 {
        let la = 0.2126 * Double(a.pixels[i]) + 0.7152 * Double(a.pixels[i + 1]) + 0.0722 * Double(a.pixels[i + 2])
        let lb = 0.2126 * Double(b.pixels[i]) + 0.7152 * Double(b.pixels[i + 1]) + 0.0722 * Double(b.pixels[i + 2])
        sum += abs(la - lb)
        n += 1
    }
    return n == 0 ? .infinity : sum / Double(n)
}

/// A unit square in the plane z = `z`, facing +z (counter-clockwise seen from +z).
private func square(z: Float, half: Float, offset: UInt32 = 0) -> (positions: [SIMD3<Float>], triangles: [UInt32]) {
    let p: [SIMD3<Float>] = [
        SIMD3(-half, -half, z), SIMD3(half, -half, z), SIMD3(half, half, z), SIMD3(-half, half, z),
    ]
    return (p, [0, 1, 2, 0, 2, 3].map { $0 + offset })
}

@Suite struct RenderTests {
    @Test func frontViewCoversAReasonableShareOfTheFrame() throws {
        for view in RenderView.allCases {
            let image = try Rasterizer.render(ictNeutral, options: RenderOptions(size: 128, view: view))
            #expect(image.width == 128 && image.height == 128)
            #expect(image.coverage > 0.2 && image.coverage < 0.8, "coverage \(image.coverage) for \(view)")
            // Corners are background: fully transparent.
            #expect(image[0, 0] == SIMD4(0, 0, 0, 0))
            #expect(image[127, 127][3] == 0)
        }
    }

    @Test func symmetricFaceGivesMirroredProfilesAndASymmetricFrontSilhouette() throws {
        let options = RenderOptions(size: 128)
        let front = try Rasterizer.render(ictNeutral, options: options)
        #expect(maskAgreement(front, front.mirrored()) > 0.97)
        var o = options
        o.view = .left
        let left = try Rasterizer.render(ictNeutral, options: o)
        o.view = .right
        let right = try Rasterizer.render(ictNeutral, options: o)
        #expect(maskAgreement(left, right.mirrored()) > 0.97)
        // The lights stay with the camera, so the shading differs somewhat, but not wildly.
        #expect(meanLumaDifference(left, right.mirrored()) < 40)
    }

    @Test func noseIsNearerThanTheCheeks() throws {
        let frame = try Rasterizer.renderFrame(ictNeutral, options: RenderOptions(size: 128), shader: ClayShader())
        // Nose tip: the vertex farthest along +z; cheeks: points left and right of it.
        let tip = ictNeutral.positions.max { $0.z < $1.z }!
        let (p, tipDepth) = frame.camera.project(tip)
        let x = Int(p.x), y = Int(p.y)
        let noseDepth = frame.depth[y * 128 + x]
        #expect(noseDepth.isFinite)
        #expect(abs(noseDepth - tipDepth) < 0.01)
        let (lo, hi) = ictNeutral.bounds
        let width = hi.x - lo.x
        for side: Float in [-1, 1] {
            let (c, _) = frame.camera.project(SIMD3(tip.x + side * 0.25 * width, tip.y, tip.z))
            let cheek = frame.depth[y * 128 + Int(c.x)]
            #expect(cheek.isFinite)
            #expect(cheek > noseDepth + 0.01, "cheek \(cheek) vs nose \(noseDepth)")
        }
    }

    @Test func nearerTriangleOccludesWhateverTheDrawingOrder() throws {
        // A small near square in front of a large far one, drawn in both orders.
        let far = square(z: 0, half: 1), near = square(z: 0.5, half: 0.3, offset: 4)
        let a = Mesh(uncheckedPositions: far.positions + near.positions, triangles: far.triangles + near.triangles)
        let b = Mesh(uncheckedPositions: far.positions + near.positions, triangles: near.triangles + far.triangles)
        let fa = try Rasterizer.renderFrame(a, options: RenderOptions(size: 64), shader: ClayShader())
        let fb = try Rasterizer.renderFrame(b, options: RenderOptions(size: 64), shader: ClayShader())
        #expect(fa.image == fb.image)
        let centre = fa.depth[32 * 64 + 32]
        let (_, nearDepth) = fa.camera.project(SIMD3(0, 0, 0.5))
        #expect(abs(centre - nearDepth) < 1e-3)
        let (q, farDepth) = fa.camera.project(SIMD3(0.8, 0.8, 0))
        #expect(abs(fa.depth[Int(q.y) * 64 + Int(q.x)] - farDepth) < 1e-3)
    }

    @Test func backFacesAreDrawnDarker() throws {
        // The same square, once facing the camera, once facing away.
        let s = square(z: 0, half: 1)
        let front = Mesh(uncheckedPositions: s.positions, triangles: s.triangles)
        let back = Mesh(uncheckedPositions: s.positions, triangles: [0, 2, 1, 0, 3, 2])
        let a = try Rasterizer.render(front, options: RenderOptions(size: 32))
        let b = try Rasterizer.render(back, options: RenderOptions(size: 32))
        #expect(a[16, 16][3] == 255 && b[16, 16][3] == 255)
        #expect(Int(b[16, 16][1]) < Int(a[16, 16][1]) - 40)
    }

    @Test func edgesAreAntialiased() throws {
        let image = try Rasterizer.render(ictNeutral, options: RenderOptions(size: 128))
        let partial = stride(from: 3, to: image.pixels.count, by: 4).filter {
            image.pixels[$0] > 0 && image.pixels[$0] < 255
        }
        #expect(!partial.isEmpty)
    }

    @Test func renderingIsDeterministic() throws {
        let o = RenderOptions(size: 96, view: .threeQuarter)
        let a = try Rasterizer.render(ictNeutral, options: o)
        let b = try Rasterizer.render(ictNeutral, options: o)
        #expect(a == b)
        #expect(try PNGEncoder.encode(a) == PNGEncoder.encode(b))
    }

    @Test func threadCountDoesNotChangeTheImage() throws {
        var o = RenderOptions(size: 100, view: .left, threads: 1)
        let one = try Rasterizer.render(ictNeutral, options: o)
        o.threads = 3
        #expect(try Rasterizer.render(ictNeutral, options: o) == one)
    }

    @Test func pngRoundTripsThroughLibpng() throws {
        let image = try Rasterizer.render(ictNeutral, options: RenderOptions(size: 64))
        let png = try PNGEncoder.encode(image)
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        // No time chunk: the bytes depend on the pixels only.
        #expect(
            !png.indices.dropLast(4).contains {
                png[$0] == 0x74 && png[$0 + 1] == 0x49 && png[$0 + 2] == 0x4D && png[$0 + 3] == 0x45
            })
        let decoded = try PNGEncoder.decode(png, name: "memory")
        #expect(decoded == image)
    }

    @Test func pngIsWrittenAtomically() throws {
        let path = "/tmp/facescan-render-test-\(getpid()).png"
        defer { unlink(path) }
        let image = try Rasterizer.render(ictNeutral, options: RenderOptions(size: 32))
        try PNGEncoder.write(image, to: path)
        let bytes = try FileBytes.read(path)
        #expect(try PNGEncoder.decode(bytes, name: path) == image)
    }

    @Test func garbageIsNotAPNG() throws {
        #expect(throws: FaceScanError.self) { try PNGEncoder.decode(Array("not a png".utf8), name: "junk.png") }
    }
}

#if canImport(Glibc)
import Glibc
#endif
