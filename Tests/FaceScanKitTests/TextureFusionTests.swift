import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanInterop
@testable import FaceScanKit
@testable import FaceScanTexture

/// A flat `side × side` grid, 0.1 m across in face-anchor space (z = 0, facing +z), with UVs
/// spanning the unit square, 0.4 m in front of an identity camera.
private func facingGrid(_ side: Int = 21) -> (Topology, [Float]) {
    var xyz: [Float] = [], uv: [Float] = []
    for y in 0..<side {
        for x in 0..<side {
            let u = Float(x) / Float(side - 1), v = Float(y) / Float(side - 1)
            xyz += [(u - 0.5) * 0.1, (v - 0.5) * 0.1, 0]
            uv += [u, v]
        }
    }
    return (Topology(triangles: gridTriangles(side: side), textureCoordinates: uv), xyz)
}

private let anchor: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -0.4, 1]

private func camera() throws -> FrameCamera {
    try FrameCamera(intrinsics: [400, 0, 0, 0, 400, 0, 80, 60, 1], width: 160, height: 120)
}

/// Left half of the image `left`, right half `right` (sRGB bytes), brighter by `exposure`
/// (linear light) as the light estimate says the camera saw it.
private func halves(_ left: SIMD3<UInt8>, _ right: SIMD3<UInt8>, exposure: Double = 1) -> [UInt8] {
    func scaled(_ b: UInt8) -> UInt8 {
        let lin = TextureFusion.linear(Double(b) / 255) * exposure
        let s = lin <= 0.0031308 ? 12.92 * lin : 1.055 * pow(lin, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (s * 255).rounded())))
    }
    var rgb: [UInt8] = []
    for _ in 0..<120 {
        for x in 0..<160 {
            let c = x < 80 ? left : right
            rgb += [scaled(c.x), scaled(c.y), scaled(c.z)]
        }
    }
    return rgb
}

private func frame(_ xyz: [Float], light: Double = 1000, kelvin: Double? = nil) -> Frame {
    var m = FrameMetadata(distance: 0.4, ambientIntensity: light)
    m.ambientColorTemperature = kelvin
    var f = Frame(xyz: xyz, metadata: m)
    f.anchorTransform = anchor
    return f
}

private func texture(_ images: [(CameraImage, Frame)], topology: Topology) throws -> (RGBAImage, Report) {
    var session = try FaceScanSession(topology: topology, settings: ScanSettings(targetVertices: 300))
    session.textureSize = 64
    for (image, f) in images { _ = try session.add(f, image: image, camera: camera()) }
    let result = try session.finish()
    return (try #require(result.texture), result.report)
}

private func close(_ a: SIMD3<UInt8>, _ b: SIMD3<UInt8>, within tolerance: Int) -> Bool {
    abs(Int(a.x) - Int(b.x)) <= tolerance && abs(Int(a.y) - Int(b.y)) <= tolerance
        && abs(Int(a.z) - Int(b.z)) <= tolerance
}

@Suite struct TextureFusionTests {
    let red = SIMD3<UInt8>(200, 60, 40), blue = SIMD3<UInt8>(40, 70, 190)

    /// The texture holds the colours the camera saw where it saw them: the grid's left half red,
    /// the right half blue (x to the right in the image is +x of the face, u of the UVs).
    @Test func colourLandsWhereTheCameraSawIt() throws {
        let (topology, xyz) = facingGrid()
        let image = try CameraImage(rgb: halves(red, blue), width: 160, height: 120)
        let (tex, report) = try texture([(image, frame(xyz))], topology: topology)
        #expect(tex.width == 64)
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.15, 0.5)), red, within: 2))
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.85, 0.5)), blue, within: 2))
        let colour = try #require(report.colour)
        #expect(colour.framesFused == 1)
        #expect(colour.coveredTexels > 3000)
    }

    /// Exposure and white balance are undone from the light estimate: a picture taken at 1600 lm
    /// and 3500 K, brighter and warmer, gives the skin's colour under neutral light.
    @Test func lightEstimateIsUndone() throws {
        let (topology, xyz) = facingGrid()
        let bb = TextureFusion.blackbody(3500)
        #expect(bb.x >= 1 && bb.y < 1 && bb.z < 0.6)  // warm light: as much red, less green, much less blue
        // Each channel scaled by exposure × tint.
        func lit(_ c: SIMD3<UInt8>) -> [UInt8] {
            func s(_ b: UInt8, _ k: Double) -> UInt8 {
                let lin = TextureFusion.linear(Double(b) / 255) * 1.6 * k
                let e = lin <= 0.0031308 ? 12.92 * lin : 1.055 * pow(lin, 1 / 2.4) - 0.055
                return UInt8(max(0, min(255, (e * 255).rounded())))
            }
            return [s(c.x, bb.x), s(c.y, bb.y), s(c.z, bb.z)]
        }
        let grey = SIMD3<UInt8>(120, 110, 100)
        let px = lit(grey)
        let rgb = [UInt8]((0..<(160 * 120)).flatMap { _ in px })
        let image = try CameraImage(rgb: rgb, width: 160, height: 120)
        let (tex, _) = try texture([(image, frame(xyz, light: 1600, kelvin: 3500))], topology: topology)
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.5, 0.5)), grey, within: 3))
    }

    /// ARKit's bi-planar YCbCr 4:2:0 gives the same texture as the same picture in RGB.
    @Test func ycbcrPlanesAsARKitGivesThem() throws {
        let (topology, xyz) = facingGrid()
        let rgb = halves(red, blue)
        var luma = [UInt8](repeating: 0, count: 160 * 120), chroma = [UInt8](repeating: 0, count: 160 * 60)
        for y in 0..<120 {
            for x in 0..<160 {
                let o = 3 * (y * 160 + x)
                let r = Double(rgb[o]), g = Double(rgb[o + 1]), b = Double(rgb[o + 2])
                luma[y * 160 + x] = UInt8((0.299 * r + 0.587 * g + 0.114 * b).rounded())
                if y % 2 == 0 && x % 2 == 0 {
                    chroma[(y / 2) * 160 + x] = UInt8(
                        max(0, min(255, (128 - 0.168736 * r - 0.331264 * g + 0.5 * b).rounded())))
                    chroma[(y / 2) * 160 + x + 1] = UInt8(
                        max(0, min(255, (128 + 0.5 * r - 0.418688 * g - 0.081312 * b).rounded())))
                }
            }
        }
        let image = try CameraImage(
            luma: luma, lumaBytesPerRow: 160, chroma: chroma, chromaBytesPerRow: 160, width: 160, height: 120)
        let (tex, _) = try texture([(image, frame(xyz))], topology: topology)
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.15, 0.5)), red, within: 4))
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.85, 0.5)), blue, within: 4))
    }

    /// Texels the camera could not see (the part of the grid outside the picture) are filled
    /// from their neighbours and counted.
    @Test func unseenTexelsAreFilledAndCounted() throws {
        let (topology, xyz) = facingGrid()
        // The grid 0.1 m wide at 0.4 m spans 100 pixels at f = 400; shifted right by 0.06 m its
        // right part falls outside the 160-pixel image.
        var f = frame(xyz)
        f.anchorTransform![12] = 0.06
        let image = try CameraImage(rgb: halves(red, red), width: 160, height: 120)
        let (tex, report) = try texture([(image, f)], topology: topology)
        let colour = try #require(report.colour)
        #expect(colour.filledTexels > 200)
        #expect(colour.filledTexels < colour.coveredTexels)
        // Filled from the red neighbours: red too.
        #expect(close(TexturedMesh.sample(tex, SIMD2(0.97, 0.5)), red, within: 3))
    }

    /// A session without images has no texture, and the same mesh as before.
    @Test func noImageNoTexture() throws {
        let (topology, xyz) = facingGrid()
        var session = try FaceScanSession(topology: topology, settings: ScanSettings(targetVertices: 300))
        _ = try session.add(frame(xyz))
        let result = try session.finish()
        #expect(result.texture == nil)
        #expect(result.report.colour == nil)
    }

    /// An image whose size is not the camera's is refused, naming the image.
    @Test func imageOfTheWrongSizeIsRefused() throws {
        let (topology, xyz) = facingGrid()
        var session = try FaceScanSession(topology: topology)
        let image = try CameraImage(rgb: [UInt8](repeating: 0, count: 3 * 100 * 100), width: 100, height: 100)
        #expect(throws: FaceScanError.self) { try session.add(frame(xyz), image: image, camera: camera()) }
    }

    /// With `skipBadImages` such a frame is added for its geometry alone and counted as a wrong
    /// size; the good image beside it still colours the face.
    @Test func imageOfTheWrongSizeIsSkippedWhenAsked() throws {
        let (topology, xyz) = facingGrid()
        var session = try FaceScanSession(
            topology: topology, settings: ScanSettings(targetVertices: 300, skipBadImages: true))
        session.textureSize = 64
        let wrong = try CameraImage(rgb: [UInt8](repeating: 0, count: 3 * 100 * 100), width: 100, height: 100)
        let verdict = try session.add(frame(xyz), image: wrong, camera: camera())
        #expect(verdict.isAccepted)
        _ = try session.add(
            frame(xyz), image: CameraImage(rgb: halves(red, red), width: 160, height: 120), camera: camera())
        let result = try session.finish()
        #expect(result.report.skippedImages?.wrongSize == 1 && result.report.skippedImages?.total == 1)
        #expect(result.report.frames.accepted == 2)
        #expect(result.report.colour?.framesFused == 1)
        #expect(close(TexturedMesh.sample(try #require(result.texture), SIMD2(0.5, 0.5)), red, within: 12))
    }
}

/// A 16 × 12 JPEG of one colour (200, 60, 40), made with Pillow at quality 95.
let tinyJPEG = Array(
    Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgr/wAARCAAMABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDw+iiiv53P9ID/2Q=="
    )!)

@Suite struct ImageDecoderTests {
    func cam(_ w: Int, _ h: Int) throws -> FrameCamera {
        try FrameCamera(intrinsics: [100, 0, 0, 0, 100, 0, Double(w) / 2, Double(h) / 2, 1], width: w, height: h)
    }

    func message(_ bytes: [UInt8], _ w: Int = 16, _ h: Int = 12) throws -> String {
        let camera = try cam(w, h)
        do {
            _ = try ImageDecoder.decode(bytes, camera: camera, file: "c.json", frame: 4)
            return ""
        } catch {
            return "\(error)"
        }
    }

    /// What is wrong with an image, by reason: the one-line error and the report's reason.
    @Test func badImagesHaveTheirReason() throws {
        func reason(_ bytes: [UInt8], _ w: Int = 16, _ h: Int = 12) throws -> BadImageReason? {
            guard
                case .failure(let p) = try ImageDecoder.decodeChecked(
                    bytes, camera: cam(w, h), file: "c.json", frame: 4)
            else { return nil }
            #expect(p.error.frame == 4 && p.error.field == "image", "\(p.error)")
            return p.reason
        }
        #expect(try reason(tinyJPEG) == nil)
        #expect(try reason(tinyJPEG, 32, 24) == .wrongSize)
        #expect(try reason(Array(tinyJPEG.prefix(200))) == .corrupt)
        #expect(try reason([1, 2, 3, 4, 5]) == .corrupt)
        // A PNG header altered to declare 100 000 × 100 000 pixels: refused, never allocated (its
        // CRC no longer matches, or the size is beyond the largest side).
        var huge = try PNGEncoder.encode(
            RGBAImage(width: 16, height: 12, pixels: [UInt8](repeating: 255, count: 16 * 12 * 4)))
        for (o, v) in [(16, UInt32(100_000)), (20, UInt32(100_000))] {
            for k in 0..<4 { huge[o + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32(k))) }
        }
        #expect(try reason(huge) != nil)
    }

    /// A good JPEG decodes to its colour (libjpeg-turbo), a PNG to its own (libpng).
    @Test func decodesJPEGAndPNG() throws {
        let jpeg = try ImageDecoder.decode(tinyJPEG, camera: cam(16, 12), file: "c.json", frame: 0)
        #expect(jpeg.width == 16 && jpeg.height == 12)
        #expect(abs(Int(jpeg.rgb[0]) - 200) <= 4 && abs(Int(jpeg.rgb[1]) - 60) <= 4 && abs(Int(jpeg.rgb[2]) - 40) <= 4)
        var rgba = [UInt8]()
        for _ in 0..<(16 * 12) { rgba += [10, 200, 30, 255] }
        let png = try PNGEncoder.encode(RGBAImage(width: 16, height: 12, pixels: rgba))
        let decoded = try ImageDecoder.decode(png, camera: cam(16, 12), file: "c.json", frame: 0)
        #expect(Array(decoded.rgb[0..<3]) == [10, 200, 30])
    }

    /// The fine detail the texture is made of survives decoding: libjpeg-turbo's accurate IDCT, not
    /// the fast one, whose rounding darkens a detailed picture (on this one by 0.85 of a level on
    /// average; on the synthetic captures it cost the fused texture ΔE 0.1 mean, 0.3 p95).
    @Test func jpegDetailIsDecodedAccurately() throws {
        // 32 × 16, stripes of 3 and 7 pixels in every channel (Pillow, quality 92, 4:2:0).
        let pattern: [Double] = (0..<(32 * 16)).flatMap { i -> [Double] in
            let x = Double(i % 32), y = Double(i / 32)
            let s3 = sin(2 * Double.pi * (x + 0.5 * y) / 3), s7 = sin(2 * Double.pi * (0.3 * x - y) / 7)
            return [190 + 22 * s3 + 12 * s7, 140 + 18 * s3 - 10 * s7, 120 + 8 * s3 + 14 * s7].map { $0.rounded() }
        }
        let base64 =
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8Q"
            + "EBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ"
            + "EBAQEBAQEBD/wAARCAAQACADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF"
            + "BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW"
            + "V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi"
            + "4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC"
            + "AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm"
            + "Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq"
            + "8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD0P96z8gRzl/wWZl/lFH+ppqlAoeKMtGFRkjPUoDiCP6s2XNDBApSWQtGFdXkHUoDmeT6s"
            + "2EFO/es/BEc5f8FmZf5RR/qa+P1iuqX/AIEv6/I/SNYLql/4EhpCqCksm5AHV5B3QHM8n1ZsIKd+9Z+gjnL/AIJMy/yij/U01Sqg"
            + "PFGWTCMkZ6lAcQR/8CbLmhggBSaQsgV1eQdSgOZ5PqzYQUoq+sV/4C7P7iYpPWK/8Bdn9zP/2Q=="
        let bytes = Array(Data(base64Encoded: base64)!)
        let image = try ImageDecoder.decode(bytes, camera: cam(32, 16), file: "c.json", frame: 0)
        let decodedMean = image.rgb.reduce(0.0) { $0 + Double($1) } / Double(image.rgb.count)
        let patternMean = pattern.reduce(0, +) / Double(pattern.count)
        // Accurate IDCT: 150.01 against the picture's 150.10; the fast one: 149.25.
        #expect(abs(decodedMean - patternMean) < 0.3)
    }

    /// Hostile images: each a one-line error naming the file, the frame and the field.
    @Test func hostileImagesAreRefused() throws {
        let truncated = Array(tinyJPEG.prefix(tinyJPEG.count / 2))
        let m1 = try message(truncated)
        #expect(m1.hasPrefix("c.json: frame 4: field 'image': "), "\(m1)")
        var corrupt = tinyJPEG
        for i in 300..<min(corrupt.count - 2, 400) { corrupt[i] = 0xFF }
        #expect(try message(corrupt).hasPrefix("c.json: frame 4: field 'image': "))
        let wrongSize = try message(tinyJPEG, 640, 480)
        #expect(wrongSize.contains("16 × 12") && wrongSize.contains("640 × 480"), "\(wrongSize)")
        // A PNG declaring 100 000 × 100 000 pixels: refused from its header, nothing allocated.
        var rgba = [UInt8](repeating: 255, count: 4)
        let small = try PNGEncoder.encode(RGBAImage(width: 1, height: 1, pixels: rgba))
        var huge = small
        for (k, b) in [UInt8(0x00), 0x01, 0x86, 0xA0].enumerated() {
            huge[16 + k] = b
            huge[20 + k] = b
        }
        let ihdrCRC = PNGEncoder.crc32(huge[12..<29])
        for k in 0..<4 { huge[29 + k] = UInt8((ihdrCRC >> (24 - 8 * k)) & 0xFF) }
        let m3 = try message(huge)
        #expect(m3.contains("100000 × 100000"), "\(m3)")
        rgba = []
        #expect(try message([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]).contains("neither JPEG nor PNG"))
        #expect(try message([]).contains("neither JPEG nor PNG"))
        // A JPEG declaring 20 000 × 20 000: refused from its header, nothing allocated (libjpeg-turbo
        // itself refuses sides above 65 500).
        var big = tinyJPEG
        if let sof = (0..<(big.count - 9)).first(where: { big[$0] == 0xFF && big[$0 + 1] == 0xC0 }) {
            big[sof + 5] = 0x4E  // 20 000 × 20 000: libjpeg-turbo reads it, facescan refuses it
            big[sof + 6] = 0x20
            big[sof + 7] = 0x4E
            big[sof + 8] = 0x20
        }
        let m4 = try message(big)
        #expect(m4.hasPrefix("c.json: frame 4: field 'image': ") && m4.contains("20000 × 20000"), "\(m4)")
    }

    /// A camera without intrinsics, or with a resolution beyond the limit, is refused naming the field.
    @Test func badCameras() throws {
        #expect(throws: FaceScanError.self) { try FrameCamera(intrinsics: [], width: 640, height: 480) }
        #expect(throws: FaceScanError.self) {
            try FrameCamera(intrinsics: [1, 0, 0, 0, 1, 0, 0, 0, 1], width: 100_000, height: 100_000)
        }
    }
}

/// The scene's light fitted and undone: a cap of a sphere of uniform skin colour, lit by an
/// ambient light and a distant light from the upper right, gives one colour all over, and the
/// report names the light.
@Suite struct TextureShadingTests {
    static let radius: Float = 0.08, half: Float = 0.055
    static let light = SIMD3<Double>(0.5, 0.3, 0.8) / (0.25 + 0.09 + 0.64).squareRoot()

    /// A `side × side` grid over the cap (apex at the origin, facing +z, 2 · half square seen from
    /// the front), UVs over the unit square.
    static func cap(_ side: Int = 31) -> (Topology, [Float]) {
        var xyz: [Float] = [], uv: [Float] = []
        for y in 0..<side {
            for x in 0..<side {
                let u = Float(x) / Float(side - 1), v = Float(y) / Float(side - 1)
                let px = (u - 0.5) * 2 * half, py = (v - 0.5) * 2 * half
                xyz += [px, py, (radius * radius - px * px - py * py).squareRoot() - radius]
                uv += [u, v]
            }
        }
        return (Topology(triangles: gridTriangles(side: side), textureCoordinates: uv), xyz)
    }

    /// The cap seen by the test's camera (320 × 240, f = 800, 0.4 m away), each pixel the skin's
    /// colour `albedo` (linear) shaded by `(1 − share) + share · max(0, N · light)`.
    static func image(albedo: SIMD3<Double>, share: Double) throws -> CameraImage {
        let w = 320, h = 240, f = 800.0
        let centre = SIMD3<Double>(0, 0, -0.4 - Double(radius))
        var rgb = [UInt8](repeating: 40, count: 3 * w * h)
        func byte(_ lin: Double) -> UInt8 {
            let c = min(1, max(0, lin))
            let s = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
            return UInt8((s * 255).rounded())
        }
        for py in 0..<h {
            for px in 0..<w {
                let d = SIMD3((Double(px) + 0.5 - Double(w) / 2) / f, -(Double(py) + 0.5 - Double(h) / 2) / f, -1)
                // |t d − centre|² = r²: the nearer root.
                let a = (d * d).sum(), b = -2 * (d * centre).sum()
                let c = (centre * centre).sum() - Double(radius * radius)
                let disc = b * b - 4 * a * c
                guard disc > 0 else { continue }
                let p = d * ((-b - disc.squareRoot()) / (2 * a))
                guard abs(p.x) <= Double(half), abs(p.y) <= Double(half) else { continue }
                let n = (p - centre) / Double(radius)
                let shade = 1 - share + share * max(0, (n * light).sum())
                let o = 3 * (py * w + px)
                rgb[o] = byte(albedo.x * shade)
                rgb[o + 1] = byte(albedo.y * shade)
                rgb[o + 2] = byte(albedo.z * shade)
            }
        }
        return try CameraImage(rgb: rgb, width: w, height: h)
    }

    static func fused(share: Double) throws -> (RGBAImage, Report) {
        let (topology, xyz) = cap()
        var session = try FaceScanSession(topology: topology, settings: ScanSettings(targetVertices: 900))
        session.textureSize = 128
        let camera = try FrameCamera(intrinsics: [800, 0, 0, 0, 800, 0, 160, 120, 1], width: 320, height: 240)
        var m = FrameMetadata(distance: 0.4, ambientIntensity: 1000)
        m.ambientColorTemperature = 6500
        var f = Frame(xyz: xyz, metadata: m)
        f.anchorTransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -0.4, 1]
        let image = try image(albedo: SIMD3(0.55, 0.30, 0.20), share: share)
        _ = try session.add(f, image: image, camera: camera)
        let result = try session.finish()
        return (try #require(result.texture), result.report)
    }

    /// Luminance (0…255 bytes, sRGB) of the texture at `uv`.
    static func luma(_ tex: RGBAImage, _ uv: SIMD2<Float>) -> Double {
        let c = TexturedMesh.sample(tex, uv)
        return 0.2126 * Double(c.x) + 0.7152 * Double(c.y) + 0.0722 * Double(c.z)
    }

    /// Points of the cap from the side towards the light to the side away from it.
    static let across: [SIMD2<Float>] = [SIMD2(0.8, 0.72), SIMD2(0.5, 0.5), SIMD2(0.3, 0.35), SIMD2(0.22, 0.25)]

    @Test func directionalLightIsFittedAndUndone() throws {
        let (tex, report) = try Self.fused(share: 0.25)
        let colour = try #require(report.colour)
        let direction = try #require(colour.lightDirection)
        let angle = acos(min(1, (direction * Self.light).sum())) * 180 / .pi
        #expect(angle < 5, "fitted light \(direction), \(angle)° from the true one")
        #expect(abs(colour.lightShare - 0.25) < 0.03, "share \(colour.lightShare)")
        // One colour all over: what the light brightened towards it and left darker away from it is gone.
        let l = Self.across.map { Self.luma(tex, $0) }
        #expect(l.max()! - l.min()! < 4, "luminance across the cap \(l)")
        // And it is the skin's colour, as the light on a point facing it squarely shows it.
        let skin = SIMD3<Double>(0.55, 0.30, 0.20)
        let want =
            0.2126 * Double(TextureFusion.srgbByte(Float(skin.x))) + 0.7152
            * Double(TextureFusion.srgbByte(Float(skin.y))) + 0.0722 * Double(TextureFusion.srgbByte(Float(skin.z)))
        #expect(abs(l[1] - want) < 4, "centre \(l[1]), skin \(want)")
    }

    /// The same cap lit without a directional light: nothing to undo, and the report says so.
    @Test func ambientLightOnlyIsLeftAlone() throws {
        let (tex, report) = try Self.fused(share: 0)
        let colour = try #require(report.colour)
        #expect(colour.lightDirection == nil)
        #expect(colour.lightShare == 0)
        let l = Self.across.map { Self.luma(tex, $0) }
        #expect(l.max()! - l.min()! < 4, "luminance across the cap \(l)")
    }

    /// The light's shading is really there to undo: the image's own brightness differs across the
    /// cap by far more than the tolerance above.
    @Test func theImageIsShaded() throws {
        let image = try Self.image(albedo: SIMD3(0.55, 0.30, 0.20), share: 0.25)
        func g(_ x: Int, _ y: Int) -> Int { Int(image.rgb[3 * (y * 320 + x) + 1]) }
        // Pixels of the points `across` (u to the right, v up; the cap 2 · half across at 0.4 m, f = 800).
        let px = Self.across.map { uv in
            (Int(160 + (uv.x - 0.5) * 2 * Self.half / 0.4 * 800), Int(120 - (uv.y - 0.5) * 2 * Self.half / 0.4 * 800))
        }
        let towards = g(px[0].0, px[0].1), away = g(px[3].0, px[3].1)
        #expect(towards - away > 8, "towards the light \(towards), away \(away)")
    }
}
