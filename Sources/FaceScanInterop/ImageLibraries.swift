import CZlib
import FaceScanCore

#if JPEG
import CTurboJPEG
#endif
#if PNG
import CLibPNG
#endif

/// The adapters of the image C libraries: libpng's simplified reading API, libturbojpeg's
/// decompressor and zlib's checksums. Each takes and returns arrays; the pointers the C calls
/// take live only inside these functions (CONTRIBUTING.md, "Unsafe code and threads"), so
/// ``ImageDecoder``, ``PNGEncoder`` and `PixelDeflate` are safe Swift. This file is the only code
/// that touches libpng and libturbojpeg.
enum ImageLibraries {
    // MARK: zlib

    /// CRC-32 (ISO 3309, as PNG uses) of `bytes`, by zlib.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { zlibChecksum($0, CZlib.crc32) }
    }

    /// Adler-32 (the zlib stream's checksum) of `bytes`, by zlib.
    static func adler32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 { zlibChecksum(bytes, CZlib.adler32) }

    /// The Adler-32 of two pieces one after the other, from each piece's own and the second's
    /// length, by zlib.
    static func adler32Combine(_ first: UInt32, _ second: UInt32, _ secondCount: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: CZlib.adler32_combine(uLong(first), uLong(second), .init(secondCount)))
    }

    /// A zlib checksum (`crc32`, `adler32`) of `bytes`, 1 GiB at a time (zlib takes a 32-bit length).
    private static func zlibChecksum(
        _ bytes: UnsafeBufferPointer<UInt8>, _ update: (uLong, UnsafePointer<Bytef>?, uInt) -> uLong
    ) -> UInt32 {
        var c = update(0, nil, 0)
        var p = bytes.baseAddress, left = bytes.count
        while left > 0, let q = p {
            let n = min(left, 1 << 30)
            c = update(c, q, uInt(n))
            p = q + n
            left -= n
        }
        return UInt32(truncatingIfNeeded: c)
    }

    #if PNG
    // MARK: libpng

    /// Decodes PNG `bytes` (any colour type and depth) into 8-bit sRGB pixels of `channels`
    /// (3: RGB, 4: RGBA), rows packed; `accept` sees the header's width and height first and
    /// throws to refuse them (before any pixel is allocated); a refusal of libpng's is thrown as
    /// `fail` makes it from the stage and libpng's message (`"not a readable PNG: …"`, `"PNG
    /// decoding failed: …"`).
    static func decodePNG<Refusal: Error>(
        _ bytes: [UInt8], channels: Int, fail: (String) -> Refusal, accept: (Int, Int) throws(Refusal) -> Void
    ) throws(Refusal) -> (pixels: [UInt8], width: Int, height: Int) {
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { raw in png_image_begin_read_from_memory(&png, raw.baseAddress, raw.count) }
        guard begun != 0 else { throw fail("not a readable PNG: \(message(png))") }
        defer { png_image_free(&png) }
        // PNG_FORMAT_RGB / PNG_FORMAT_RGBA (macros Swift does not import).
        png.format =
            png_uint_32(PNG_FORMAT_FLAG_COLOR) | (channels == 4 ? png_uint_32(PNG_FORMAT_FLAG_ALPHA) : 0)
        let width = Int(png.width), height = Int(png.height)
        try accept(width, height)
        var pixels = [UInt8](repeating: 0, count: channels * width * height)
        let finished = pixels.withUnsafeMutableBytes { buf in
            png_image_finish_read(&png, nil, buf.baseAddress, Int32(width * channels), nil)
        }
        guard finished != 0 else { throw fail("PNG decoding failed: \(message(png))") }
        return (pixels, width, height)
    }

    private static func message(_ png: png_image) -> String {
        withUnsafeBytes(of: png.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
    #endif

    #if JPEG
    // MARK: libturbojpeg

    /// A libturbojpeg decompressor: the header, then the pixels as 8-bit RGB.
    final class JPEGDecoder {
        private let handle: tjhandle

        /// Nil when libturbojpeg could not start.
        init?() {
            guard let h = tjInitDecompress() else { return nil }
            handle = h
        }

        deinit { tjDestroy(handle) }

        /// The library's last error text.
        var message: String { String(cString: tjGetErrorStr2(handle)) }

        /// The width and height `bytes` declare; nil when the header is unreadable.
        func header(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
            var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, space: Int32 = 0
            let r = bytes.withUnsafeBufferPointer { b in
                tjDecompressHeader3(handle, b.baseAddress, UInt(b.count), &w, &h, &sub, &space)
            }
            return r == 0 ? (Int(w), Int(h)) : nil
        }

        /// The `width × height` RGB pixels of `bytes` with `flags`; nil when decoding fails.
        func rgb(_ bytes: [UInt8], width: Int, height: Int, flags: Int32) -> [UInt8]? {
            var rgb = [UInt8](repeating: 0, count: 3 * width * height)
            let done = bytes.withUnsafeBufferPointer { b in
                rgb.withUnsafeMutableBufferPointer { out in
                    tjDecompress2(
                        handle, b.baseAddress, UInt(b.count), out.baseAddress, Int32(width), Int32(3 * width),
                        Int32(height), Int32(TJPF_RGB.rawValue), flags)
                }
            }
            return done == 0 ? rgb : nil
        }
    }
    #endif
}
