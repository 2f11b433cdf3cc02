import CZlib

#if PNG
import CLibPNG
#endif

/// PNG images, 8-bit RGBA, non-premultiplied, sRGB.
///
/// Images are written by this file with the system zlib: `IHDR`, an `sRGB` chunk, one `IDAT`
/// (every row Up-filtered, zlib's fastest level) and `IEND`, no time chunk, so the same image
/// always gives the same bytes. With the `PNG` trait (the default) ``decode(_:name:)`` reads any
/// colour type and depth through libpng's simplified API (this file is the only code that touches
/// libpng); without it, ``decode(_:name:)`` throws ``FaceScanError/unavailable(_:)``.
public enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes `image` as PNG bytes. `name` names the image in error messages.
    public static func encode(_ image: RGBAImage, name: String = "PNG image") throws(FaceScanError)
        -> [UInt8]
    {
        try zlibEncode(image, name: name, filter: .up, level: fastLevel)
    }

    /// Encodes `image` and writes it atomically to `path`.
    public static func write(_ image: RGBAImage, to path: String) throws(FaceScanError) {
        let bytes = try encode(image, name: path)
        do { try OutputTransaction.write(bytes, to: path) } catch {
            throw FaceScanError(any: error, path: path)
        }
    }

    /// Decodes PNG bytes (any colour type and depth libpng reads) into 8-bit sRGB RGBA. Without
    /// the `PNG` trait it throws ``FaceScanError/unavailable(_:)``.
    public static func decode(_ bytes: [UInt8], name: String) throws(FaceScanError) -> RGBAImage {
        #if PNG
        do { return try libpngDecode(bytes, name: name) } catch { throw .badInput(error) }
        #else
        throw .withoutTrait("\(name): reading PNG", library: "libpng", trait: "PNG")
        #endif
    }

    // MARK: zlib (no libpng)

    /// How ``zlibEncode(_:name:filter:level:)`` filters each row before compression.
    enum RowFilter: Sendable {
        /// Filter type 0 on every row (what libpng writes with `PNG_IMAGE_FLAG_FAST`).
        case none
        /// Filter type 2 (Up) on every row: each byte minus the one above it. Cheap to compute,
        /// and on a rendering (flat background, smooth shading) zlib's fastest level then
        /// compresses it smaller than unfiltered rows at level 3 (libpng's fast setting).
        case up
        /// Per row, the one of the five filter types whose output has the smallest sum of
        /// absolute values (bytes read as signed): libpng's classic adaptive heuristic.
        case adaptive
    }

    /// The zlib level of ``zlibEncode(_:name:filter:level:)``: fixed, so the bytes of an image
    /// depend only on its pixels (and the zlib release).
    static let zlibLevel: Int32 = 6

    /// The zlib level of ``encode(_:name:)`` (with ``RowFilter/up``): zlib's fastest matching.
    static let fastLevel: Int32 = 1

    /// PNG bytes of `image`: `IHDR` (8-bit RGBA), `sRGB`, one `IDAT` holding the rows, each
    /// filtered as `filter` says, compressed by the system zlib (`compress2` at `level`), and
    /// `IEND`. ``encode(_:name:)`` is this with ``RowFilter/up`` at ``fastLevel``.
    static func zlibEncode(
        _ image: RGBAImage, name: String, filter: RowFilter = .adaptive, level: Int32 = zlibLevel
    ) throws(FaceScanError) -> [UInt8] {
        let raw = filtered(image, filter)
        var bound = CZlib.compressBound(uLong(raw.count))
        var zlib = [UInt8](repeating: 0, count: Int(bound))
        let status = zlib.withUnsafeMutableBufferPointer { z in
            raw.withUnsafeBufferPointer { r in
                compress2(z.baseAddress, &bound, r.baseAddress, uLong(r.count), level)
            }
        }
        guard status == Z_OK else {
            throw .io(IOFailure(path: name, "PNG compression failed: zlib error \(status)"))
        }
        zlib.removeSubrange(Int(bound)...)

        var out: [UInt8] = []
        out.reserveCapacity(8 + 25 + 13 + 12 + zlib.count + 12)
        out += signature
        var ihdr: [UInt8] = []
        appendBigEndian(&ihdr, UInt32(image.width))
        appendBigEndian(&ihdr, UInt32(image.height))
        // Depth 8, colour type 6 (RGBA), deflate, filter method 0, no interlace.
        ihdr += [8, 6, 0, 0, 0]
        appendChunk(&out, "IHDR", ihdr)
        appendChunk(&out, "sRGB", [0])  // perceptual rendering intent, as libpng writes
        appendChunk(&out, "IDAT", zlib)
        appendChunk(&out, "IEND", [])
        return out
    }

    /// The filtered image: each row preceded by its filter type (PNG filter method 0).
    static func filtered(_ image: RGBAImage, _ filter: RowFilter) -> [UInt8] {
        let rowBytes = image.width * 4
        var raw = [UInt8](repeating: 0, count: image.height * (rowBytes + 1))
        guard rowBytes > 0 else { return raw }
        // Scratch: one candidate row per filter type 1...4, and a zero row above the first.
        var scratch = [UInt8](repeating: 0, count: 5 * rowBytes)
        raw.withUnsafeMutableBufferPointer { r in
            scratch.withUnsafeMutableBufferPointer { s in
                image.pixels.withUnsafeBufferPointer { px in
                    let zero = s.baseAddress! + 4 * rowBytes
                    for row in 0..<image.height {
                        let dst = r.baseAddress! + row * (rowBytes + 1)
                        let cur = px.baseAddress! + row * rowBytes
                        let up = row == 0 ? UnsafePointer(zero) : cur - rowBytes
                        switch filter {
                        case .none:
                            dst[0] = 0
                            (dst + 1).update(from: cur, count: rowBytes)
                        case .up:
                            dst[0] = 2
                            for i in 0..<rowBytes { dst[1 + i] = cur[i] &- up[i] }
                        case .adaptive:
                            let type = filterRow(cur, up, rowBytes, s.baseAddress!)
                            dst[0] = UInt8(type)
                            if type == 0 {
                                (dst + 1).update(from: cur, count: rowBytes)
                            } else {
                                (dst + 1).update(
                                    from: s.baseAddress! + (type - 1) * rowBytes, count: rowBytes)
                            }
                        }
                    }
                }
            }
        }
        return raw
    }

    /// Writes the Sub, Up, Average and Paeth filterings of row `cur` (row `up` above it) into
    /// `out` (four rows of `n` bytes); returns the filter type, 0...4, whose output has the least
    /// sum of absolute values (bytes read as signed), the first on a tie.
    private static func filterRow(
        _ cur: UnsafePointer<UInt8>, _ up: UnsafePointer<UInt8>, _ n: Int,
        _ out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        @inline(__always) func cost(_ v: UInt8) -> Int { v < 128 ? Int(v) : 256 - Int(v) }
        var sums = (0, 0, 0, 0, 0)
        let sub = out, upOut = out + n, avg = out + 2 * n, paeth = out + 3 * n
        for i in 0..<n {
            let x = cur[i], b = up[i]
            let a: UInt8 = i >= 4 ? cur[i - 4] : 0
            let c: UInt8 = i >= 4 ? up[i - 4] : 0
            let p = Int(a) + Int(b) - Int(c)
            let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
            let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            let f1 = x &- a, f2 = x &- b, f3 = x &- UInt8((Int(a) + Int(b)) >> 1)
            let f4 = x &- predictor
            sub[i] = f1; upOut[i] = f2; avg[i] = f3; paeth[i] = f4
            sums.0 += cost(x); sums.1 += cost(f1); sums.2 += cost(f2)
            sums.3 += cost(f3); sums.4 += cost(f4)
        }
        var best = 0, least = sums.0
        if sums.1 < least { (best, least) = (1, sums.1) }
        if sums.2 < least { (best, least) = (2, sums.2) }
        if sums.3 < least { (best, least) = (3, sums.3) }
        if sums.4 < least { (best, least) = (4, sums.4) }
        return best
    }

    private static func appendBigEndian(_ out: inout [UInt8], _ v: UInt32) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func appendChunk(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        appendBigEndian(&out, UInt32(data.count))
        let start = out.count
        out += Array(type.utf8)
        out += data
        appendBigEndian(&out, crc32(out[start...]))
    }

    /// CRC-32 (ISO 3309, as PNG uses) of `bytes`, by zlib.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { b in
            // zlib takes a 32-bit length: 1 GiB at a time.
            var c = CZlib.crc32(0, nil, 0)
            var p = b.baseAddress, left = b.count
            while left > 0, let q = p {
                let n = min(left, 1 << 30)
                c = CZlib.crc32(c, q, uInt(n))
                p = q + n
                left -= n
            }
            return UInt32(truncatingIfNeeded: c)
        }
    }

    #if PNG
    // MARK: libpng

    static func libpngDecode(_ bytes: [UInt8], name: String) throws(InputError) -> RGBAImage {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&png, raw.baseAddress, raw.count)
        }
        guard begun != 0 else {
            throw InputError(file: name, "not a readable PNG: \(message(png))")
        }
        png.format = rgba
        let width = Int(png.width), height = Int(png.height)
        guard width > 0, height > 0 else {
            png_image_free(&png)
            throw InputError(file: name, "PNG has no pixels")
        }
        guard width <= RGBAImage.maximumSide, height <= RGBAImage.maximumSide, width * height <= 1 << 28 else {
            png_image_free(&png)
            throw InputError(file: name, "PNG of \(width) × \(height) pixels is larger than the 2²⁸ pixels decoded")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = bytes.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { buf in
                png_image_finish_read(&png, nil, buf.baseAddress, Int32(width * 4), nil)
            }
        }
        guard finished != 0 else {
            let m = message(png)
            png_image_free(&png)
            throw InputError(file: name, "PNG decoding failed: \(m)")
        }
        return RGBAImage(uncheckedWidth: width, height: height, pixels: pixels)
    }

    /// `PNG_FORMAT_RGBA` (a macro Swift does not import): colour + alpha, 8-bit.
    private static let rgba =
        png_uint_32(PNG_FORMAT_FLAG_COLOR) | png_uint_32(PNG_FORMAT_FLAG_ALPHA)

    private static func message(_ png: png_image) -> String {
        withUnsafeBytes(of: png.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
    #endif
}
