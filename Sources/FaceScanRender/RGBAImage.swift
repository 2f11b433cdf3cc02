import FaceScanCore

/// An 8-bit RGBA image, rows top to bottom, non-premultiplied, colour in sRGB.
///
/// `pixels.count == width * height * 4`; pixel `(x, y)` starts at `4 * (y * width + x)`.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// `width · height` RGBA quadruples, rows top to bottom.
    public internal(set) var pixels: [UInt8]

    /// Largest width or height accepted (a 65 536² image is 16 GiB).
    public static let maximumSide = 65_536

    /// An image from its pixels: `pixels.count` must be `width · height · 4`.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a side outside 1…``maximumSide`` or a pixel
    ///   count that does not match.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(FaceScanError) {
        try Self.checkSize(width, height)
        guard pixels.count == width * height * 4 else {
            throw .badInput(
                InputError(
                    file: "image", field: "pixels",
                    "has \(pixels.count) bytes, expected \(width * height * 4) (\(width) × \(height) RGBA)"))
        }
        self.init(uncheckedWidth: width, height: height, pixels: pixels)
    }

    /// A fully transparent black image.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a side outside 1…``maximumSide``.
    public init(width: Int, height: Int) throws(FaceScanError) {
        try Self.checkSize(width, height)
        self.init(uncheckedWidth: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 4))
    }

    /// An image the library made itself (sizes and count right by construction).
    package init(uncheckedWidth width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "image size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    private static func checkSize(_ width: Int, _ height: Int) throws(FaceScanError) {
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            throw .badInput(
                InputError(
                    file: "image", field: "size", "\(width) × \(height): each side must be from 1 to \(maximumSide)"))
        }
    }

    /// The RGBA quadruple at `(x, y)`; transparent black `(0, 0, 0, 0)` outside the image.
    public subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        guard x >= 0, x < width, y >= 0, y < height else { return .zero }
        let o = 4 * (y * width + x)
        return SIMD4(pixels[o], pixels[o + 1], pixels[o + 2], pixels[o + 3])
    }
}
