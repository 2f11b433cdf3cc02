import FaceScanCore
import FaceScanExport
import FaceScanRender

/// PNG images, 8-bit RGBA, non-premultiplied, sRGB.
///
/// Images are written by this file: `IHDR`, an `sRGB` chunk, one `IDAT` (every row Up-filtered,
/// compressed by `PixelDeflate`) and `IEND`, no time chunk, so the same image always gives the
/// same bytes. With the `PNG` trait (the default) ``decode(_:name:)`` reads any
/// colour type and depth through libpng's simplified API (through `ImageLibraries`, the only code that touches
/// libpng); without it, ``decode(_:name:)`` throws ``FaceScanError/unavailable(_:)``.
public enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes `image` as PNG bytes. `name` names the image in error messages.
    public static func encode(_ image: RGBAImage, name: String = "PNG image") throws(FaceScanError)
        -> [UInt8]
    {
        let raw = filtered(image)
        return container(image, PixelDeflate.zlib(raw))
    }

    /// Encodes `image` and writes it atomically to `path`.
    public static func write(_ image: RGBAImage, to path: String) throws(FaceScanError) {
        let bytes = try encode(image, name: path)
        do { try AtomicFile.write(bytes, to: path) } catch { throw .io(error) }
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

    // MARK: writing (no libpng)

    /// PNG bytes of `image`: `IHDR` (8-bit RGBA), `sRGB`, one `IDAT` and `IEND`. The `IDAT` holds
    /// the rows Up-filtered (each byte minus the one above it: on a rendering, a flat background
    /// and a row like the one above become zeros), compressed by `PixelDeflate`.
    static func container(_ image: RGBAImage, _ zlib: [UInt8]) -> [UInt8] {
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

    /// The rows of `image`, each as filter type 2 (Up) and its bytes less the row above's (PNG
    /// filter method 0; the first row less zeros).
    static func filtered(_ image: RGBAImage) -> [UInt8] {
        let rowBytes = image.width * 4
        guard rowBytes > 0 else { return [UInt8](repeating: 0, count: image.height) }
        let px = image.pixels
        return ByteWriter.bytes(capacity: image.height * (rowBytes + 1)) { out in
            for row in 0..<image.height {
                let cur = row * rowBytes
                out.byte(2)
                if row == 0 {
                    out.append(px[0..<rowBytes])
                } else {
                    out.appendDifferences(px, cur..<(cur + rowBytes), lessThoseBefore: rowBytes)
                }
            }
        }
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
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 { ImageLibraries.crc32(bytes) }

    #if PNG
    static func libpngDecode(_ bytes: [UInt8], name: String) throws(InputError) -> RGBAImage {
        let (pixels, width, height) = try ImageLibraries.decodePNG(
            bytes, channels: 4, fail: { InputError(file: name, $0) },
            accept: { (width, height) throws(InputError) in
                guard width > 0, height > 0 else { throw InputError(file: name, "PNG has no pixels") }
                guard width <= RGBAImage.maximumSide, height <= RGBAImage.maximumSide, width * height <= 1 << 28 else {
                    throw InputError(
                        file: name, "PNG of \(width) × \(height) pixels is larger than the 2²⁸ pixels decoded")
                }
            })
        return RGBAImage(uncheckedWidth: width, height: height, pixels: pixels)
    }
    #endif
}
