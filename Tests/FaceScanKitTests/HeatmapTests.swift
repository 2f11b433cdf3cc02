import Testing

@testable import FaceScanKit

#if canImport(Glibc)
import Glibc
@testable import FaceScanAccumulate
@testable import FaceScanDecimate
@testable import FaceScanMeasure
@testable import FaceScanRender
@testable import FaceScanSmooth
#endif

/// A 60 × 40 mm plate (1 mm grid, z = 0) and the same plate with a smooth bump of 0.5 mm
/// centred at (−15, 0), on the viewer's left.
func heatmapPlates() -> (flat: Mesh, bumped: Mesh) {
    let nx = 61, ny = 41
    var flat: [SIMD3<Float>] = [], bumped: [SIMD3<Float>] = []
    for j in 0..<ny {
        for i in 0..<nx {
            let x = Float(i - 30), y = Float(j - 20)
            flat.append(SIMD3(x, y, 0))
            let r2 = (x + 15) * (x + 15) + y * y
            bumped.append(SIMD3(x, y, 0.5 * exp(-r2 / 32)))
        }
    }
    var tris: [UInt32] = []
    for j in 0..<(ny - 1) {
        for i in 0..<(nx - 1) {
            let a = UInt32(j * nx + i), b = a + 1, c = a + UInt32(nx), d = c + 1
            tris += [a, b, d, a, d, c]
        }
    }
    return (Mesh(uncheckedPositions: flat, triangles: tris), Mesh(uncheckedPositions: bumped, triangles: tris))
}

@Suite struct HeatmapTests {
    /// The viridis position t (0…1) whose shaded colour (80–100 % in linear light, as
    /// HeatmapShader lights the outside) is nearest to the pixel, and that distance (sRGB bytes).
    func nearestT(_ p: SIMD4<UInt8>) -> (t: Double, distance: Float) {
        var best = (t: -1.0, distance: Float.infinity)
        for ti in 0...100 {
            let lin = ColorMap.linear(ColorMap.viridis(Double(ti) / 100))
            for ki in 0...10 {
                let c = lin * (0.8 + 0.02 * Float(ki))
                let s = SIMD3(srgb(c.x), srgb(c.y), srgb(c.z)) * 255
                let d = s - SIMD3(Float(p.x), Float(p.y), Float(p.z))
                let dist = (d * d).sum().squareRoot()
                if dist < best.distance { best = (Double(ti) / 100, dist) }
            }
        }
        return best
    }

    func srgb(_ v: Float) -> Float { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    @Test func distancesPerVertexMeasureTheBump() {
        let (flat, bumped) = heatmapPlates()
        let d = SurfaceDistance.perVertex(bumped, to: flat, unitToMicrometres: 1000)
        #expect(abs(d[20 * 61 + 15] - 500) < 1e-3)  // the bump's top, (−15, 0)
        #expect(d[20 * 61 + 45] < 1e-3)  // its mirror image, (15, 0)
        #expect(abs((d.max() ?? 0) - 500) < 1e-3)
        // Distances to a surface, not to vertices: the flat plate is 0 µm from the plate under the bump's foot.
        let back = SurfaceDistance.perVertex(flat, to: flat, unitToMicrometres: 1000)
        #expect(back.allSatisfy { $0 == 0 })
    }

    @Test func colorsShowWhereTheSurfaceMoved() throws {
        let (flat, bumped) = heatmapPlates()
        let d = SurfaceDistance.perVertex(bumped, to: flat, unitToMicrometres: 1000)
        let r = try Heatmap.render(bumped, valuesUm: d)
        #expect(r.maxUm == 500)
        #expect(r.labels == ["0", "125", "250", "375", "500"])
        #expect(r.image.width > r.image.height)  // the legend beside the mesh
        func pixel(_ p: SIMD3<Float>) -> SIMD4<UInt8> {
            let s = r.camera.project(p).screen
            return r.image[Int(s.x), Int(s.y)]
        }
        // The bump's top: the top of the scale (yellow); half its height: the middle (teal);
        // the other side, not moved: the bottom (dark violet).
        let top = nearestT(pixel(SIMD3(-15, 0, 0.5)))
        #expect(top.t >= 0.95 && top.distance < 12, "\(top)")
        let half = nearestT(pixel(SIMD3(-15 + 4.71, 0, 0.25)))
        #expect(half.t >= 0.4 && half.t <= 0.6 && half.distance < 12, "\(half)")
        for p in [SIMD3<Float>(15, 0, 0), SIMD3(25, 15, 0), SIMD3(5, -15, 0)] {
            let flatSide = nearestT(pixel(p))
            #expect(flatSide.t <= 0.05 && flatSide.distance < 12, "\(p): \(flatSide)")
        }
        // Every mesh pixel right of the image centre is at the bottom of the scale.
        let size = r.image.height
        var yellowRight = 0, yellowLeft = 0
        for y in 0..<size {
            for x in 0..<size {
                let p = r.image[x, y]
                if p.x > 180 && p.y > 180 && p.z < 90 { if x > size / 2 { yellowRight += 1 } else { yellowLeft += 1 } }
            }
        }
        #expect(yellowRight == 0 && yellowLeft > 20, "\(yellowLeft) yellow pixels left, \(yellowRight) right")
        // The colour bar: top = viridis(1), bottom = viridis(0), exactly.
        let barX = size + 6 * (size / 256) + 2
        func bytes(_ c: SIMD3<Float>) -> SIMD4<UInt8> {
            SIMD4(UInt8((c.x * 255).rounded()), UInt8((c.y * 255).rounded()), UInt8((c.z * 255).rounded()), 255)
        }
        #expect(r.image[barX, 18 * (size / 256)] == bytes(ColorMap.viridis(1)))
        #expect(r.image[barX, size - 10 * (size / 256)] == bytes(ColorMap.viridis(0)))
        // Same input, same bytes.
        #expect(try Heatmap.render(bumped, valuesUm: d).image == r.image)
    }

    @Test func scaleMaximaAndLabels() throws {
        #expect(Heatmap.niceMaximum(500) == 500)
        #expect(Heatmap.niceMaximum(501) == 1000)
        #expect(Heatmap.niceMaximum(0.37) == 0.5)
        #expect(Heatmap.niceMaximum(2.1) == 2.5)
        #expect(Heatmap.niceMaximum(0) == 1)
        #expect(Heatmap.label(0.25) == "0.25")
        #expect(Heatmap.label(62.5) == "63")
        // Values above a given maximum get the top colour and a '>' on the top label.
        let (flat, bumped) = heatmapPlates()
        let d = SurfaceDistance.perVertex(bumped, to: flat, unitToMicrometres: 1000)
        #expect(try Heatmap.render(bumped, valuesUm: d, maxUm: 100).labels.last == ">100")
    }
}
