#if PNG
import CLibPNG
#endif

/// PNG images, 8-bit RGBA, non-premultiplied, sRGB.
///
/// With the `PNG` trait (the default) images go through libpng's simplified API (this file is the
/// only code that touches libpng): libpng writes an `sRGB` chunk and no time chunk, so the same
/// image always gives the same bytes, and reads any colour type and depth. Without it, images are
/// written by ``encodeStored(_:)`` (pure Swift, uncompressed deflate blocks: larger files, the
/// same pixels) and ``decode(_:name:)`` throws ``FaceScanError/unavailable(_:)``.
public enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes `image` as PNG bytes. `name` names the image in error messages.
    public static func encode(_ image: RGBAImage, name: String = "PNG image") throws(FaceScanError)
        -> [UInt8]
    {
        #if PNG
        do { return try libpngEncode(image, name: name) } catch { throw .io(error) }
        #else
        return encodeStored(image)
        #endif
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
        throw .unavailable(
            "\(name): reading PNG needs libpng (FaceScanKit built without its PNG trait)")
        #endif
    }

    // MARK: Pure Swift (no libpng)

    /// PNG bytes of `image` without libpng: `IHDR` (8-bit RGBA), `sRGB`, one `IDAT` holding a zlib
    /// stream of stored (uncompressed) deflate blocks, each row with filter 0, and `IEND`. Any PNG
    /// reader decodes it to the same pixels as libpng's output; the file is about the size of the
    /// pixels. Used by ``encode(_:name:)`` when the `PNG` trait is off (and in tests always).
    public static func encodeStored(_ image: RGBAImage) -> [UInt8] {
        let rowBytes = image.width * 4
        let rawCount = image.height * (rowBytes + 1)  // a filter byte before each row
        let blocks = max(1, (rawCount + 65_534) / 65_535)
        let zlibCount = 2 + rawCount + 5 * blocks + 4
        var out: [UInt8] = []
        out.reserveCapacity(8 + 25 + 13 + 12 + zlibCount + 12)
        out += signature
        var ihdr: [UInt8] = []
        appendBigEndian(&ihdr, UInt32(image.width))
        appendBigEndian(&ihdr, UInt32(image.height))
        // Depth 8, colour type 6 (RGBA), deflate, filter method 0, no interlace.
        ihdr += [8, 6, 0, 0, 0]
        appendChunk(&out, "IHDR", ihdr)
        appendChunk(&out, "sRGB", [0])  // perceptual rendering intent, as libpng writes

        // The filtered image: each row preceded by its filter type, 0 (none).
        var raw = [UInt8](repeating: 0, count: rawCount)
        raw.withUnsafeMutableBufferPointer { r in
            image.pixels.withUnsafeBufferPointer { px in
                for row in 0..<image.height where rowBytes > 0 {
                    let dst = r.baseAddress! + row * (rowBytes + 1) + 1
                    dst.update(from: px.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
        }
        // zlib: header (deflate, 32 KiB window, fastest; 0x7801 is a multiple of 31), stored
        // blocks of at most 65 535 bytes (BFINAL on the last), Adler-32 of the raw stream.
        var zlib: [UInt8] = [0x78, 0x01]
        zlib.reserveCapacity(zlibCount)
        for k in 0..<blocks {
            let start = k * 65_535, end = min(rawCount, start + 65_535), n = end - start
            zlib.append(k == blocks - 1 ? 1 : 0)
            zlib += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[start..<end]
        }
        appendBigEndian(&zlib, adler32(raw))
        appendChunk(&out, "IDAT", zlib)
        appendChunk(&out, "IEND", [])
        return out
    }

    /// Adler-32 (RFC 1950) of `bytes`.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        bytes.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let end = min(p.count, i + 5552)  // the most bytes before b can overflow 32 bits
                while i < end {
                    a &+= UInt32(p[i])
                    b &+= a
                    i += 1
                }
                a %= 65_521
                b %= 65_521
            }
        }
        return b << 16 | a
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

    /// CRC-32 (ISO 3309, as PNG uses) of `bytes`.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { b in
                for x in b { c = table[Int((c ^ UInt32(x)) & 0xFF)] ^ (c >> 8) }
            }
        }
        return c ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    #if PNG
    // MARK: libpng

    static func libpngEncode(_ image: RGBAImage, name: String) throws(IOFailure) -> [UInt8] {
        var png = describe(image)
        let stride = Int32(image.width * 4)
        // One pass into a buffer big enough for any PNG of this image (stored deflate blocks cost
        // a few bytes per 64 KiB plus one filter byte per row); measure first only if it fails.
        var size = image.pixels.count + image.height + image.pixels.count / 8192 + 4096
        var out = [UInt8](repeating: 0, count: size)
        var written = out.withUnsafeMutableBytes { buf in
            image.pixels.withUnsafeBytes { px in
                png_image_write_to_memory(
                    &png, buf.baseAddress, &size, 0, px.baseAddress, stride, nil)
            }
        }
        if written == 0 {
            png = describe(image)
            let measured = image.pixels.withUnsafeBytes { px in
                png_image_write_to_memory(&png, nil, &size, 0, px.baseAddress, stride, nil)
            }
            guard measured != 0, size > 0 else {
                throw IOFailure(path: name, "PNG encoding failed: \(message(png))")
            }
            out = [UInt8](repeating: 0, count: size)
            png = describe(image)
            written = out.withUnsafeMutableBytes { buf in
                image.pixels.withUnsafeBytes { px in
                    png_image_write_to_memory(
                        &png, buf.baseAddress, &size, 0, px.baseAddress, stride, nil)
                }
            }
        }
        guard written != 0 else {
            throw IOFailure(path: name, "PNG encoding failed: \(message(png))")
        }
        out.removeSubrange(size...)
        return out
    }

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

    private static func describe(_ image: RGBAImage) -> png_image {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        png.width = png_uint_32(image.width)
        png.height = png_uint_32(image.height)
        png.format = rgba
        png.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)  // favour encoding speed (zlib level)
        return png
    }

    private static func message(_ png: png_image) -> String {
        withUnsafeBytes(of: png.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
    #endif
}
