import CZlib
import Foundation
import Testing

@testable import FaceScanInterop
@testable import FaceScanKit

/// The PNG writer (Up-filtered rows, compressed by `PixelDeflate`): its layout and checksums,
/// zlib inflating its streams to the bytes given, and (with libpng present) its files decoding
/// to the very pixels written.
@Suite struct PNGWriterTests {
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
        let png = try PNGEncoder.encode(Self.image(width: 3, height: 2), name: "t.png")
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(Array(png[16..<29]) == [0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0])
        #expect(Array(png[37..<41]) == Array("sRGB".utf8))
        #expect(Array(png[50..<54]) == Array("IDAT".utf8))
        #expect(png[54] == 0x78 && png[55] == 0x01)  // zlib header: deflate, 32 KiB window
        #expect(
            Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    }

    /// Every row is Up-filtered: filter byte 2, then each byte less the one above (zeros above
    /// the first row).
    @Test func rowsAreUpFiltered() {
        let px = (0..<(8 * 4 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let image = RGBAImage(uncheckedWidth: 8, height: 3, pixels: px)
        let up = PNGEncoder.filtered(image)
        #expect(up.count == 3 * 33)
        #expect(up[0] == 2 && up[33] == 2 && up[66] == 2)
        #expect(Array(up[1..<33]) == Array(px[0..<32]))
        #expect((0..<32).allSatisfy { up[34 + $0] == px[32 + $0] &- px[$0] })
        #expect((0..<32).allSatisfy { up[67 + $0] == px[64 + $0] &- px[32 + $0] })
    }

    @Test func sameImageSameBytes() throws {
        let a = try PNGEncoder.encode(Self.face, name: "a.png")
        let b = try PNGEncoder.encode(Self.face, name: "b.png")
        #expect(a == b)
        // Compressed: far below the 1 MiB of pixels (stored blocks would be about 1 MiB).
        #expect(a.count < Self.face.pixels.count / 4)
    }

    /// `data` inflated by zlib (`uncompress`), nil when zlib refuses the stream.
    static func inflate(_ stream: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(size, 1))
        var length = uLong(out.count)
        let status = out.withUnsafeMutableBufferPointer { o in
            stream.withUnsafeBufferPointer { s in uncompress(o.baseAddress, &length, s.baseAddress, uLong(s.count)) }
        }
        guard status == Z_OK else { return nil }
        return Array(out[0..<Int(length)])
    }

    /// Byte strings that reach every path of the encoder: nothing, a byte, runs at distance 4
    /// just below, at and above the shortest match and the longest (258), long zero runs, bytes
    /// with no repeat, and counts as skewed as Fibonacci numbers (whose Huffman code is deeper
    /// than deflate's 15 bits, so the lengths must be limited).
    static let deflateInputs: [(String, [UInt8])] = {
        var inputs: [(String, [UInt8])] = [("empty", []), ("one byte", [7]), ("four", [1, 2, 3, 4])]
        for run in [3, 4, 5, 257, 258, 259, 262, 1000] {
            inputs.append(("run \(run)", [9, 8, 7, 6] + (0..<run).map { [9, 8, 7, 6][$0 % 4] } + [1, 2]))
        }
        inputs.append(("zeros", [UInt8](repeating: 0, count: 300_000)))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        inputs.append(
            (
                "noise",
                (0..<200_000).map { _ in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: state >> 56)
                }
            ))
        var skewed: [UInt8] = []
        var (f0, f1) = (1, 1)
        for symbol in 0..<24 {
            // Three values in turn (no repeat at distance 4): group s appears Fibonacci(s) times.
            skewed += (0..<f0).map { UInt8(symbol * 10 + $0 % 3) }
            (f0, f1) = (f1, f0 + f1)
        }
        inputs.append(("skewed", skewed))
        return inputs
    }()

    /// zlib inflates every stream to the very bytes given.
    @Test(arguments: deflateInputs.indices)
    func zlibInflatesTheStream(_ index: Int) throws {
        let (name, data) = PNGWriterTests.deflateInputs[index]
        let stream = data.withUnsafeBufferPointer { PixelDeflate.zlib($0) }
        #expect(Self.inflate(stream, size: data.count) == data, "\(name)")
    }

    /// From ``PixelDeflate/twoThreadBytes`` both passes run in two halves: the stream is the
    /// one-thread stream, byte for byte, also with a run of repeats reaching past the middle (the
    /// split moves to its end), with no split point at all (all repeats after the middle), and
    /// with halves of every bit alignment where they join; zlib inflates it.
    @Test(arguments: ["runs across the middle", "repeats to the end", "face rows", "odd middles"])
    func twoHalvesGiveTheOneThreadStream(_ name: String) {
        let n = PixelDeflate.twoThreadBytes + 4_099
        var data = (0..<n).map { UInt8(truncatingIfNeeded: ($0 * 7) % 13 + ($0 / 40) % 3) }
        var inputs: [[UInt8]] = []
        switch name {
        case "runs across the middle":
            for i in (n / 2 - 1_000)..<(n / 2 + 3_000) { data[i] = data[i - 4] }
            inputs = [data]
        case "repeats to the end":
            for i in (n / 2 - 10)..<n { data[i] = data[i - 4] }
            inputs = [data]
        case "face rows":
            inputs = [PNGEncoder.filtered(Self.face)]
        default:
            // First halves ending at each of 32 bit positions of a word: 32 lengths in a row.
            inputs = (0..<32).map { Array(data[0..<(n - $0 * 3)]) }
        }
        for input in inputs {
            let one = input.withUnsafeBufferPointer { PixelDeflate.zlib($0, halves: false) }
            let two = input.withUnsafeBufferPointer { PixelDeflate.zlib($0, halves: true) }
            #expect(input.count >= PixelDeflate.twoThreadBytes, "\(name) is at the two-half size")
            #expect(one == two, "\(name), \(input.count) bytes")
            #expect(Self.inflate(two, size: input.count) == input, "\(name), \(input.count) bytes")
        }
    }

    /// Length-limited codes are complete prefix codes (Kraft sum exactly 1) within the limit.
    @Test func codeLengthsAreCompleteAndLimited() {
        var fibonacci = [Int](repeating: 0, count: 286)
        var (a, b) = (1, 1)
        for s in 0..<40 {
            fibonacci[s] = a
            (a, b) = (b, a + b)
        }
        for (counts, limit) in [(fibonacci, 15), (Array(fibonacci[0..<19]), 7), ([5, 0, 3], 15)] {
            let lengths = PixelDeflate.codeLengths(counts, limit: limit)
            #expect(lengths.allSatisfy { Int($0) <= limit })
            #expect(zip(counts, lengths).allSatisfy { ($0 > 0) == ($1 > 0) })
            let kraft = lengths.filter { $0 > 0 }.reduce(0.0) { $0 + pow(2, -Double($1)) }
            #expect(kraft == 1, "\(lengths)")
        }
        #expect(PixelDeflate.codeLengths(fibonacci, limit: 99).max()! > 15)  // the limit did work above
    }

    /// On a rendered face, the encoder's stream is no larger than zlib's fastest level on the
    /// same rows (both inflate to them).
    @Test func faceIsNoLargerThanZlibFastest() throws {
        let rows = PNGEncoder.filtered(Self.face)
        let ours = rows.withUnsafeBufferPointer { PixelDeflate.zlib($0) }
        var bound = compressBound(uLong(rows.count))
        var zlib = [UInt8](repeating: 0, count: Int(bound))
        let status = zlib.withUnsafeMutableBufferPointer { z in
            rows.withUnsafeBufferPointer { r in compress2(z.baseAddress, &bound, r.baseAddress, uLong(r.count), 1) }
        }
        #expect(status == Z_OK)
        #expect(Self.inflate(ours, size: rows.count) == rows)
        #expect(ours.count <= Int(bound), "PixelDeflate \(ours.count) B vs zlib level 1 \(bound) B")
    }

    #if PNG
    @Test(arguments: [(1, 1), (3, 2), (256, 256), (129, 130)])
    func libpngReadsThePixelsBack(size: (Int, Int)) throws {
        let image = Self.image(width: size.0, height: size.1)
        let png = try PNGEncoder.encode(image, name: "t.png")
        #expect(try PNGEncoder.decode(png, name: "t.png") == image)
    }

    /// A rendered face: libpng decodes the file to identical pixels.
    @Test func renderedFaceRoundTrips() throws {
        let face = Self.face
        let png = try PNGEncoder.encode(face, name: "face.png")
        #expect(try PNGEncoder.decode(png, name: "face.png") == face)
    }
    #else
    @Test func decodingNeedsLibpng() throws {
        let png = try PNGEncoder.encode(Self.image(width: 2, height: 2))
        #expect(throws: FaceScanError.self) { try PNGEncoder.decode(png, name: "x.png") }
    }
    #endif
}
