import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Colours each vertex on its own: `Rasterizer.renderUnchecked` calls it
/// once per vertex and side, generic (specialised, no existential call per vertex).
package protocol VertexShader: Sendable {
    /// Linear-light RGB of vertex `vertex` with unit camera-space normal `normal` (flipped
    /// towards the camera for the inside, where `frontFacing` is false).
    func shade(vertex: Int, normal: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float>
}

/// A ``SurfaceShader`` used for every vertex alike.
package struct UniformShading<S: SurfaceShader>: VertexShader {
    package var shader: S
    package init(shader: S) { self.shader = shader }
    @inline(__always)
    package func shade(vertex: Int, normal: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float> {
        shader.shade(normal: normal, frontFacing: frontFacing)
    }
}

/// A perceptual colour map (viridis: dark blue-violet → teal → yellow; lightness rises
/// monotonically, readable in grey and by most colour-blind viewers).
public enum ColorMap {
    /// Viridis at 0, 0.1, …, 1 (sRGB bytes); values between are interpolated linearly in sRGB.
    static let viridisStops: [SIMD3<Float>] = [
        SIMD3(0x44, 0x01, 0x54), SIMD3(0x48, 0x24, 0x75), SIMD3(0x41, 0x44, 0x87), SIMD3(0x35, 0x5F, 0x8D),
        SIMD3(0x2A, 0x78, 0x8E), SIMD3(0x21, 0x91, 0x8C), SIMD3(0x22, 0xA8, 0x84), SIMD3(0x44, 0xBF, 0x70),
        SIMD3(0x7A, 0xD1, 0x51), SIMD3(0xBD, 0xDF, 0x26), SIMD3(0xFD, 0xE7, 0x25),
    ]

    /// sRGB (0…1 per channel) of `t` in 0…1 (clamped; NaN counts as 0).
    public static func viridis(_ t: Double) -> SIMD3<Float> {
        let x = t.isNaN ? 0 : Swift.min(Swift.max(t, 0), 1) * Double(viridisStops.count - 1)
        let i = Swift.min(Int(x), viridisStops.count - 2)
        let f = Float(x - Double(i))
        return (viridisStops[i] * (1 - f) + viridisStops[i + 1] * f) / 255
    }

    /// sRGB (0…1) → linear light.
    static func linear(_ c: SIMD3<Float>) -> SIMD3<Float> {
        func l(_ v: Float) -> Float { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return SIMD3(l(c.x), l(c.y), l(c.z))
    }
}

/// Per-vertex colours under a light from the camera: the outside at 80–100 % of the colour
/// (facing the camera: 100 %), so the shape reads while the colour stays close to the legend's;
/// the inside of an open surface at 35 %.
package struct HeatmapShader: VertexShader {
    /// Linear-light colour per vertex.
    package var colors: [SIMD3<Float>]
    package init(colors: [SIMD3<Float>]) { self.colors = colors }

    @inline(__always)
    package func shade(vertex: Int, normal: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float> {
        let c = colors[vertex]
        return frontFacing ? c * (0.8 + 0.2 * Swift.max(0, normal.z)) : c * 0.35
    }
}

/// Error heatmaps: a mesh with each vertex coloured by a value in µm (viridis from 0 to a scale
/// maximum), composited over white, with a legend (colour bar and µm ticks) on the right.
public enum Heatmap {
    /// A rendered heatmap: the image and what it shows.
    public struct Rendered: Sendable {
        /// The mesh area (left, `size × size`) and the legend (right), over white.
        public var image: RGBAImage
        /// The camera of the mesh area (the left `size × size` pixels of the image).
        public var camera: Camera
        /// The value at the top of the colour bar, µm.
        public var maxUm: Double
        /// The tick labels, bottom to top.
        public var labels: [String]
    }

    /// The smallest ``RenderOptions/size`` a heatmap is drawn at (its legend needs the room).
    public static let minimumSize = 64

    /// The smallest of 1, 2, 2.5, 5 × 10ᵏ at or above `x` (1 for x ≤ 10⁻³⁰⁰, at or above 10³⁰⁰, or not finite).
    public static func niceMaximum(_ x: Double) -> Double {
        guard x > 1e-300, x < 1e300 else { return 1 }
        var p = 1.0
        while p > x { p /= 10 }
        while p * 10 <= x { p *= 10 }
        for m in [1.0, 2, 2.5, 5, 10] where m * p >= x * (1 - 1e-12) { return m * p }
        return 10 * p
    }

    /// `x` µm as a legend label: whole numbers from 10 µm up, else up to two decimals.
    public static func label(_ x: Double) -> String {
        // Beyond 15 digits: the shortest form (no Int conversion, which traps past Int.max).
        guard x.isFinite, x < 1e15 else { return "\(x)" }
        if x >= 10 { return String(Int(x.rounded())) }
        var s = String((x * 100).rounded() / 100)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// Renders `mesh` coloured by `valuesUm` (one per vertex) on a scale from 0 to `maxUm`
    /// (default: ``niceMaximum(_:)`` of the largest value); values above it get the top colour.
    /// `caption` lines (the files compared, the RMS and maximum, say) are drawn under the image,
    /// across its whole width; a line too long to fit keeps its label (up to the first ": ") and
    /// its end, with "..." between.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `valuesUm` does not hold one value per
    ///   vertex, or `options` are out of range or smaller than ``minimumSize``.
    public static func render(
        _ mesh: Mesh, valuesUm: [Double], maxUm: Double? = nil, caption: [String] = [],
        options: RenderOptions = RenderOptions()
    ) throws(FaceScanError) -> Rendered {
        guard valuesUm.count == mesh.vertexCount else {
            throw .badSetting(
                UsageError("Heatmap: \(valuesUm.count) values for \(mesh.vertexCount) vertices (one per vertex needed)")
            )
        }
        try options.validate()
        guard options.size >= minimumSize else {
            throw .badSetting(
                UsageError(
                    "Heatmap: RenderOptions.size must be at least \(minimumSize) (room for the legend), found \(options.size)",
                    field: "RenderOptions.size"))
        }
        let top = maxUm.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? niceMaximum(valuesUm.max() ?? 0)
        let colors = valuesUm.map { ColorMap.linear(ColorMap.viridis($0 / top)) }
        let frame = Rasterizer.renderUnchecked(mesh, options: options, vertexShader: HeatmapShader(colors: colors))
        let size = options.size
        let scale = Swift.max(1, size / 256)
        let panel = 64 * scale
        let width = size + panel
        let lineHeight = 10 * scale
        let height = size + (caption.isEmpty ? 0 : caption.count * lineHeight + 4 * scale)
        var canvas = Canvas(
            pixels: [UInt8](repeating: 255, count: width * height * 4), width: width, height: height, scale: scale)
        // The mesh over white.
        for y in 0..<size {
            for x in 0..<size {
                let s = 4 * (y * size + x), d = 4 * (y * width + x)
                let a = UInt32(frame.image.pixels[s + 3])
                for k in 0..<3 {
                    canvas.pixels[d + k] = UInt8(
                        (UInt32(frame.image.pixels[s + k]) * a + 255 * (255 - a) + 127) / 255)
                }
            }
        }
        let labels = canvas.drawLegend(top: top, largest: valuesUm.max() ?? 0, size: size)
        canvas.drawCaption(caption, top: size + 2 * scale, lineHeight: lineHeight)
        return Rendered(
            image: RGBAImage(uncheckedWidth: width, height: height, pixels: canvas.pixels), camera: frame.camera,
            maxUm: top,
            labels: labels)
    }
}

/// The heat map's picture being drawn: RGBA pixels, `width` × `height`, and the legend's scale
/// (1 per 256 pixels of the rendering).
struct Canvas {
    var pixels: [UInt8]
    let width: Int
    let height: Int
    let scale: Int
    let ink = SIMD3<UInt8>(40, 40, 40)

    /// Fills the rectangle at (`x0`, `y0`), `w` × `h` (clipped to the picture), with `rgb`.
    mutating func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ rgb: SIMD3<UInt8>) {
        for y in Swift.max(0, y0)..<Swift.min(height, y0 + h) {
            for x in Swift.max(0, x0)..<Swift.min(width, x0 + w) {
                let d = 4 * (y * width + x)
                pixels[d] = rgb.x; pixels[d + 1] = rgb.y; pixels[d + 2] = rgb.z
            }
        }
    }

    /// `text` in ink at (`x`, `y`).
    mutating func draw(_ text: String, x: Int, y: Int) {
        Glyphs.draw(text, x: x, y: y, scale: scale, color: ink, into: &pixels, width: width, height: height)
    }

    /// The colour bar right of the `size`-pixel rendering (top = `top` µm, bottom = 0), its unit,
    /// ticks and five labels (the top one `>…` when `largest` passes it). Returns the labels.
    mutating func drawLegend(top: Double, largest: Double, size: Int) -> [String] {
        let barX = size + 6 * scale, barW = 10 * scale
        let barTop = 18 * scale, barBottom = size - 10 * scale
        for y in barTop...barBottom {
            let t = Double(barBottom - y) / Double(barBottom - barTop)
            let c = ColorMap.viridis(t)
            fill(
                barX, y, barW, 1,
                SIMD3(UInt8((c.x * 255).rounded()), UInt8((c.y * 255).rounded()), UInt8((c.z * 255).rounded())))
        }
        // Ticks on the bar's left edge, labels a gap to its right: no tick reads as a minus sign.
        let textX = barX + barW + 4 * scale
        draw("µm", x: barX, y: 4 * scale)
        var labels: [String] = []
        for k in 0...4 {
            let v = top * Double(k) / 4
            let y = barBottom - (barBottom - barTop) * k / 4
            var text = Heatmap.label(v)
            if k == 4 && largest > top { text = ">" + text }
            labels.append(text)
            fill(barX - 3 * scale, y, 3 * scale, scale, ink)
            draw(text, x: textX, y: y - 3 * scale)
        }
        return labels
    }

    /// The caption's lines from `top` down, across the whole width; a line too long to fit keeps
    /// its label (up to the first ": ") and its end, with "..." between.
    mutating func drawCaption(_ caption: [String], top: Int, lineHeight: Int) {
        let columns = Swift.max(4, (width - 8 * scale) / (Glyphs.advance * scale))
        for (k, line) in caption.enumerated() {
            var text = line
            if line.count > columns {
                // Keep a short label ("A: ") and the end of the rest (a path's file name).
                let label = line.firstRange(of: ": ").map { String(line[..<$0.upperBound]) } ?? ""
                let keep = label.count <= columns / 2 ? label : ""
                text = keep + "..." + String(line.suffix(Swift.max(1, columns - keep.count - 3)))
            }
            draw(text, x: 4 * scale, y: top + k * lineHeight)
        }
    }
}

/// A 5 × 7 pixel font for the legend and the caption: letters, digits, the punctuation of file
/// names and numbers, 'µ' and '×'; any other character is drawn as '?'.
enum Glyphs {
    static let rows: [Character: [String]] = [
        "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
        "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
        "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
        "3": ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
        "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
        "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
        "6": ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
        "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
        "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
        "9": [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
        "A": [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
        "B": ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "],
        "C": [" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "],
        "D": ["###  ", "#  # ", "#   #", "#   #", "#   #", "#  # ", "###  "],
        "E": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"],
        "F": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "],
        "G": [" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"],
        "H": ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
        "I": [" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
        "J": ["  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "],
        "K": ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"],
        "L": ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"],
        "M": ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"],
        "N": ["#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"],
        "O": [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
        "P": ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "],
        "Q": [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"],
        "R": ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"],
        "S": [" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "],
        "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "],
        "U": ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
        "V": ["#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "],
        "W": ["#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "],
        "X": ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"],
        "Y": ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "],
        "Z": ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"],
        "a": ["     ", "     ", " ### ", "    #", " ####", "#   #", " ####"],
        "b": ["#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#### "],
        "c": ["     ", "     ", " ### ", "#    ", "#    ", "#   #", " ### "],
        "d": ["    #", "    #", " ## #", "#  ##", "#   #", "#   #", " ####"],
        "e": ["     ", "     ", " ### ", "#   #", "#####", "#    ", " ### "],
        "f": ["  ## ", " #  #", " #   ", "###  ", " #   ", " #   ", " #   "],
        "g": ["     ", " ####", "#   #", "#   #", " ####", "    #", " ### "],
        "h": ["#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#   #"],
        "i": ["  #  ", "     ", " ##  ", "  #  ", "  #  ", "  #  ", " ### "],
        "j": ["   # ", "     ", "  ## ", "   # ", "   # ", "#  # ", " ##  "],
        "k": ["#    ", "#    ", "#  # ", "# #  ", "##   ", "# #  ", "#  # "],
        "l": [" ##  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
        "m": ["     ", "     ", "## # ", "# # #", "# # #", "# # #", "# # #"],
        "n": ["     ", "     ", "# ## ", "##  #", "#   #", "#   #", "#   #"],
        "o": ["     ", "     ", " ### ", "#   #", "#   #", "#   #", " ### "],
        "p": ["     ", "     ", "#### ", "#   #", "#### ", "#    ", "#    "],
        "q": ["     ", "     ", " ## #", "#  ##", " ####", "    #", "    #"],
        "r": ["     ", "     ", "# ## ", "##  #", "#    ", "#    ", "#    "],
        "s": ["     ", "     ", " ####", "#    ", " ### ", "    #", "#### "],
        "t": [" #   ", " #   ", "###  ", " #   ", " #   ", " #  #", "  ## "],
        "u": ["     ", "     ", "#   #", "#   #", "#   #", "#  ##", " ## #"],
        "v": ["     ", "     ", "#   #", "#   #", "#   #", " # # ", "  #  "],
        "w": ["     ", "     ", "#   #", "#   #", "# # #", "# # #", " # # "],
        "x": ["     ", "     ", "#   #", " # # ", "  #  ", " # # ", "#   #"],
        "y": ["     ", "     ", "#   #", "#   #", " ####", "    #", " ### "],
        "z": ["     ", "     ", "#####", "   # ", "  #  ", " #   ", "#####"],
        ".": ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "],
        ",": ["     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "],
        ":": ["     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "],
        "-": ["     ", "     ", "     ", "#####", "     ", "     ", "     "],
        "+": ["     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "],
        "_": ["     ", "     ", "     ", "     ", "     ", "     ", "#####"],
        "/": ["     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     "],
        "=": ["     ", "     ", "#####", "     ", "#####", "     ", "     "],
        "(": ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "],
        ")": [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "],
        "%": ["##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"],
        "'": [" ##  ", "  #  ", " #   ", "     ", "     ", "     ", "     "],
        "<": ["   # ", "  #  ", " #   ", "#    ", " #   ", "  #  ", "   # "],
        ">": ["#    ", " #   ", "  #  ", "   # ", "  #  ", " #   ", "#    "],
        "#": [" # # ", " # # ", "#####", " # # ", "#####", " # # ", " # # "],
        "?": [" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "],
        "×": ["     ", "#   #", " # # ", "  #  ", " # # ", "#   #", "     "],
        "µ": ["     ", "#   #", "#   #", "#   #", "#  ##", "### #", "#    "],
        " ": ["     ", "     ", "     ", "     ", "     ", "     ", "     "],
    ]

    /// Width of one character cell at scale 1 (5 pixels and a gap).
    static let advance = 6

    /// Draws `text` with its top-left corner at (x, y), each font pixel `scale` × `scale`.
    static func draw(
        _ text: String, x: Int, y: Int, scale: Int, color: SIMD3<UInt8>, into px: inout [UInt8], width: Int, height: Int
    ) {
        var cx = x
        for ch in text {
            guard let glyph = rows[ch] ?? rows["?"] else { continue }
            for (r, row) in glyph.enumerated() {
                for (c, bit) in row.enumerated() where bit == "#" {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px0 = cx + c * scale + dx, py0 = y + r * scale + dy
                            guard px0 >= 0, px0 < width, py0 >= 0, py0 < height else { continue }
                            let d = 4 * (py0 * width + px0)
                            px[d] = color.x; px[d + 1] = color.y; px[d + 2] = color.z
                        }
                    }
                }
            }
            cx += advance * scale
        }
    }
}
