import CLibPNG

/// PNG through libpng's simplified API: the only code that touches libpng.
///
/// Images are 8-bit RGBA, non-premultiplied, sRGB (libpng writes an `sRGB` chunk and no time
/// chunk, so the same image always gives the same bytes).
public enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes `image` as PNG bytes. `name` names the image in error messages.
    public static func encode(_ image: RGBAImage, name: String = "PNG image") throws(IOFailure) -> [UInt8] {
        var png = describe(image)
        let stride = Int32(image.width * 4)
        // One pass into a buffer big enough for any PNG of this image (stored deflate blocks cost
        // a few bytes per 64 KiB plus one filter byte per row); measure first only if it fails.
        var size = image.pixels.count + image.height + image.pixels.count / 8192 + 4096
        var out = [UInt8](repeating: 0, count: size)
        var written = out.withUnsafeMutableBytes { buf in
            image.pixels.withUnsafeBytes { px in
                png_image_write_to_memory(&png, buf.baseAddress, &size, 0, px.baseAddress, stride, nil)
            }
        }
        if written == 0 {
            png = describe(image)
            let measured = image.pixels.withUnsafeBytes { px in
                png_image_write_to_memory(&png, nil, &size, 0, px.baseAddress, stride, nil)
            }
            guard measured != 0, size > 0 else { throw IOFailure(path: name, "PNG encoding failed: \(message(png))") }
            out = [UInt8](repeating: 0, count: size)
            png = describe(image)
            written = out.withUnsafeMutableBytes { buf in
                image.pixels.withUnsafeBytes { px in
                    png_image_write_to_memory(&png, buf.baseAddress, &size, 0, px.baseAddress, stride, nil)
                }
            }
        }
        guard written != 0 else { throw IOFailure(path: name, "PNG encoding failed: \(message(png))") }
        out.removeSubrange(size...)
        return out
    }

    /// Encodes `image` and writes it atomically to `path`.
    public static func write(_ image: RGBAImage, to path: String) throws(IOFailure) {
        try OutputTransaction.write(try encode(image, name: path), to: path)
    }

    /// Decodes PNG bytes (any colour type and depth libpng reads) into 8-bit sRGB RGBA.
    public static func decode(_ bytes: [UInt8], name: String) throws(InputError) -> RGBAImage {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&png, raw.baseAddress, raw.count)
        }
        guard begun != 0 else { throw InputError(file: name, "not a readable PNG: \(message(png))") }
        png.format = rgba
        let width = Int(png.width), height = Int(png.height)
        guard width > 0, height > 0 else {
            png_image_free(&png)
            throw InputError(file: name, "PNG has no pixels")
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
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// `PNG_FORMAT_RGBA` (a macro Swift does not import): colour + alpha, 8-bit.
    private static let rgba = png_uint_32(PNG_FORMAT_FLAG_COLOR) | png_uint_32(PNG_FORMAT_FLAG_ALPHA)

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
}
