import Foundation
import Testing

@testable import FaceScanCore
@testable import FaceScanInterop
@testable import FaceScanKit
@testable import FaceScanSolid

/// The PNG writer (system zlib; Up rows at level 1 by default, adaptive row filters at level 6 on
/// request): its layout and checksums, and (with libpng present) its files decode to the very
/// pixels written, at sizes checked against the other settings.
@Suite struct PNGZlibTests {
    @Test func checksumMatchesPublishedValues() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        #expect(PNGEncoder.crc32(Array("IEND".utf8)[...]) == 0xAE42_6082)
        #expect(PNGEncoder.crc32([]) == 0)
    }

    /// A gradient with alpha, so that every byte position of a pixel differs.
    static func image(width: Int, height: Int) -> RGBAImage {
        var px = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                px[i] = UInt8(x & 0xFF); px[i + 1] = UInt8(y & 0xFF);
                px[i + 2] = UInt8((x ^ y) & 0xFF); px[i + 3] = UInt8((x + y) & 0xFF)
            }
        }
        return RGBAImage(uncheckedWidth: width, height: height, pixels: px)
    }

    /// The fixture face, rendered as `facescan render` does (512 px).
    static let face: RGBAImage = {
        let here = #filePath
        let fixtures = String(here[..<here.lastIndex(of: "/")!]) + "/Fixtures"
        // The fixture is part of the repository; a failure here is a broken checkout.
        let mesh = try! Mesh.read(path: fixtures + "/ict-neutral.obj")
        return try! Rasterizer.render(mesh, options: RenderOptions())
    }()

    @Test func layoutOfASmallImage() throws {
        let png = try PNGEncoder.zlibEncode(Self.image(width: 3, height: 2), name: "t.png")
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(Array(png[16..<29]) == [0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0])
        #expect(Array(png[37..<41]) == Array("sRGB".utf8))
        #expect(Array(png[50..<54]) == Array("IDAT".utf8))
        #expect(png[54] == 0x78)  // zlib header: deflate, 32 KiB window
        #expect(
            Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    }

    /// Each row's filter byte is the one whose output has the least sum of absolute values.
    @Test func adaptiveFilterPicksPerRow() {
        // Row 0: constant (Sub wins: all zero after the first pixel); row 1 equal to row 0 (Up).
        let px = [UInt8](repeating: 200, count: 8 * 4) + [UInt8](repeating: 200, count: 8 * 4)
        let image = RGBAImage(uncheckedWidth: 8, height: 2, pixels: px)
        let raw = PNGEncoder.filtered(image, .adaptive)
        #expect(raw.count == 2 * 33)
        #expect(raw[0] == 1 && raw[33] == 2)
        #expect(raw[34...].allSatisfy { $0 == 0 })
        let up = PNGEncoder.filtered(image, .up)
        #expect(up[0] == 2 && up[33] == 2 && Array(up[1..<33]) == Array(px[0..<32]))
        #expect((0..<32).allSatisfy { up[34 + $0] == px[32 + $0] &- px[$0] })
        let plain = PNGEncoder.filtered(image, .none)
        #expect(plain[0] == 0 && plain[33] == 0 && Array(plain[1..<33]) == Array(px[0..<32]))
    }

    @Test func sameImageSameBytes() throws {
        let a = try PNGEncoder.zlibEncode(Self.face, name: "a.png")
        let b = try PNGEncoder.zlibEncode(Self.face, name: "b.png")
        #expect(a == b)
        // Compressed: far below the 1 MiB of pixels (stored blocks would be about 1 MiB).
        #expect(a.count < Self.face.pixels.count / 4)
    }

    #if PNG
    @Test(arguments: [(1, 1), (3, 2), (256, 256), (129, 130)])
    func libpngReadsThePixelsBack(size: (Int, Int)) throws {
        let image = Self.image(width: size.0, height: size.1)
        let png = try PNGEncoder.zlibEncode(image, name: "zlib.png")
        #expect(try PNGEncoder.decode(png, name: "zlib.png") == image)
    }

    /// A rendered face: libpng decodes the default encoding (Up rows, zlib's fastest level) to
    /// identical pixels, and the file is at most 40 % larger than with the adaptive filters at
    /// level 6 (the smallest this file writes; 1.33 × on this face) and smaller than unfiltered rows at level 3 (what libpng's fast
    /// setting wrote before).
    @Test func renderedFaceRoundTripsAndStaysSmall() throws {
        let face = Self.face
        let fast = try PNGEncoder.encode(face, name: "face.png")
        let small = try PNGEncoder.zlibEncode(face, name: "face.png")
        let plain = try PNGEncoder.zlibEncode(face, name: "face.png", filter: .none, level: 3)
        #expect(try PNGEncoder.decode(fast, name: "face.png") == face)
        #expect(Array(fast[0..<8]) == PNGEncoder.signature)
        #expect(Double(fast.count) <= 1.40 * Double(small.count), "Up/1 \(fast.count) B vs adaptive/6 \(small.count) B")
        #expect(fast.count < plain.count, "Up/1 \(fast.count) B vs none/3 \(plain.count) B")
    }
    #else
    @Test func decodingNeedsLibpng() throws {
        let png = try PNGEncoder.encode(Self.image(width: 2, height: 2))
        #expect(throws: FaceScanError.self) { try PNGEncoder.decode(png, name: "x.png") }
    }
    #endif
}
