import Testing

@testable import FaceScanKit

/// The pure-Swift PNG writer used when the package's `PNG` trait is off: its checksums against
/// published values, and (with libpng present) its files decode to the very pixels written.
@Suite struct PNGStoredTests {
    @Test func checksumsMatchPublishedValues() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        #expect(PNGEncoder.crc32(Array("IEND".utf8)[...]) == 0xAE42_6082)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.adler32([]) == 1)
        // Past the 5552-byte stretch between reductions: 100 000 bytes of 0xFF.
        var a: UInt32 = 1, b: UInt32 = 0
        for _ in 0..<100_000 { a = (a + 255) % 65_521; b = (b + a) % 65_521 }
        #expect(PNGEncoder.adler32([UInt8](repeating: 0xFF, count: 100_000)) == b << 16 | a)
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

    @Test func layoutOfASmallImage() {
        let png = PNGEncoder.encodeStored(Self.image(width: 3, height: 2))
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(Array(png[16..<29]) == [0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0])
        #expect(
            Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
        // signature 8, IHDR 25, sRGB 13, IDAT 12 + zlib (2 + one 5-byte block header + 2×13 + 4), IEND 12
        #expect(png.count == 8 + 25 + 13 + 12 + 2 + 5 + 26 + 4 + 12)
    }

    #if PNG
    @Test(arguments: [(1, 1), (3, 2), (256, 256), (129, 130)])
    func libpngReadsThePixelsBack(size: (Int, Int)) throws {
        let image = Self.image(width: size.0, height: size.1)
        let png = PNGEncoder.encodeStored(image)
        #expect(try PNGEncoder.decode(png, name: "stored.png") == image)
    }
    #else
    @Test func decodingNeedsLibpng() {
        #expect(throws: FaceScanError.self) {
            try PNGEncoder.decode(
                PNGEncoder.encodeStored(Self.image(width: 2, height: 2)), name: "x.png")
        }
    }
    #endif
}
