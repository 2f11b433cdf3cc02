/// An 8-bit RGBA image, rows top to bottom, non-premultiplied, colour in sRGB.
///
/// `pixels.count == width * height * 4`; pixel `(x, y)` starts at `4 * (y * width + x)`.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "image size must be positive")
        precondition(pixels.count == width * height * 4, "pixels must hold width · height RGBA quadruples")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A fully transparent black image.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 4))
    }

    /// The RGBA quadruple at `(x, y)`.
    public subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        let o = 4 * (y * width + x)
        return SIMD4(pixels[o], pixels[o + 1], pixels[o + 2], pixels[o + 3])
    }

    /// Fraction of pixels with non-zero alpha.
    public var coverage: Double {
        var n = 0
        var i = 3
        while i < pixels.count {
            if pixels[i] != 0 { n += 1 }
            i += 4
        }
        return Double(n) / Double(width * height)
    }

    /// The image flipped left to right.
    public func mirrored() -> RGBAImage {
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let s = 4 * (y * width + x), d = 4 * (y * width + width - 1 - x)
                for k in 0..<4 { out[d + k] = pixels[s + k] }
            }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}
