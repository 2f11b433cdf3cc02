import FaceScanCapture
import FaceScanCore

/// A camera's colour image in portable types, as an app receives it from ARKit: the planar
/// YCbCr 4:2:0 bytes of `ARFrame.capturedImage` (bi-planar: a full-size luma plane and a
/// half-size plane of interleaved Cb, Cr; full-range BT.601, as
/// `kCVPixelFormatType_420YpCbCr8BiPlanarFullRange`), or 8-bit RGB. An app never encodes a JPEG:
/// it copies the planes' bytes (with their row strides) into one of these.
///
/// Held as 8-bit sRGB RGB, rows top to bottom (YCbCr is converted once, at creation).
public struct CameraImage: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width · height` RGB triples, rows top to bottom, sRGB.
    public let rgb: [UInt8]

    /// An image from interleaved 8-bit RGB (`bytesPerRow` at least `3 · width`; nil: `3 · width`).
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a side outside 1…``FrameCamera/maximumSide``
    ///   or too few bytes.
    public init(rgb: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil) throws(FaceScanError) {
        try Self.checkSize(width, height)
        let stride = bytesPerRow ?? 3 * width
        guard stride >= 3 * width, rgb.count >= stride * (height - 1) + 3 * width else {
            throw .badInput(
                InputError(
                    file: "image", field: "rgb",
                    "has \(rgb.count) bytes, too few for \(width) × \(height) RGB at \(stride) bytes a row"))
        }
        self.width = width
        self.height = height
        if stride == 3 * width {
            self.rgb = rgb.count == 3 * width * height ? rgb : Array(rgb[0..<(3 * width * height)])
        } else {
            var out = [UInt8](repeating: 0, count: 3 * width * height)
            for y in 0..<height {
                for i in 0..<(3 * width) { out[3 * width * y + i] = rgb[stride * y + i] }
            }
            self.rgb = out
        }
    }

    /// An image from ARKit's bi-planar YCbCr 4:2:0 (`capturedImage`): `luma` (one byte per pixel,
    /// `lumaBytesPerRow` a row) and `chroma` (Cb, Cr interleaved at half resolution each way,
    /// `chromaBytesPerRow` a row), full range (0…255), BT.601 matrix.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a side outside 1…``FrameCamera/maximumSide``
    ///   or planes too small for the size.
    public init(
        luma: [UInt8], lumaBytesPerRow: Int, chroma: [UInt8], chromaBytesPerRow: Int, width: Int, height: Int
    ) throws(FaceScanError) {
        try Self.checkSize(width, height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        guard lumaBytesPerRow >= width, luma.count >= lumaBytesPerRow * (height - 1) + width else {
            throw .badInput(
                InputError(file: "image", field: "luma", "has \(luma.count) bytes, too few for \(width) × \(height)"))
        }
        guard chromaBytesPerRow >= 2 * cw, chroma.count >= chromaBytesPerRow * (ch - 1) + 2 * cw else {
            throw .badInput(
                InputError(
                    file: "image", field: "chroma", "has \(chroma.count) bytes, too few for \(cw) × \(ch) CbCr pairs"))
        }
        self.width = width
        self.height = height
        var out = [UInt8](repeating: 0, count: 3 * width * height)
        for y in 0..<height {
            let lrow = y * lumaBytesPerRow, crow = (y / 2) * chromaBytesPerRow
            for x in 0..<width {
                let yy = Float(luma[lrow + x])
                let cb = Float(chroma[crow + 2 * (x / 2)]) - 128, cr = Float(chroma[crow + 2 * (x / 2) + 1]) - 128
                let r = yy + 1.402 * cr, g = yy - 0.344136 * cb - 0.714136 * cr, b = yy + 1.772 * cb
                let o = 3 * (y * width + x)
                out[o] = UInt8(max(0, min(255, r.rounded())))
                out[o + 1] = UInt8(max(0, min(255, g.rounded())))
                out[o + 2] = UInt8(max(0, min(255, b.rounded())))
            }
        }
        rgb = out
    }

    /// An image the library decoded itself (`rgb.count == 3 · width · height`).
    package init(uncheckedRGB rgb: [UInt8], width: Int, height: Int) {
        precondition(rgb.count == 3 * width * height, "image size")
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    private static func checkSize(_ width: Int, _ height: Int) throws(FaceScanError) {
        guard (1...FrameCamera.maximumSide).contains(width), (1...FrameCamera.maximumSide).contains(height) else {
            throw .badInput(
                InputError(
                    file: "image", field: "size",
                    "\(width) × \(height): each side must be from 1 to \(FrameCamera.maximumSide)"))
        }
    }
}
