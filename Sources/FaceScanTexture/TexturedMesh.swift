import FaceScanCore
import FaceScanRender

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the outputs need of a textured mesh: its colour per vertex (PLY, 3MF, the thumbnail),
/// read from the texture at each vertex's UV, and a colour rendering.
public enum TexturedMesh {
    /// The texture's sRGB colour at each vertex of `mesh` (bilinear at its UV; v = 1 is row 0),
    /// as bytes r, g, b per vertex; nil when the mesh has no UVs.
    public static func vertexColours(_ mesh: Mesh, texture: RGBAImage) -> [SIMD3<UInt8>]? {
        guard let uvs = mesh.uvs else { return nil }
        return uvs.map { sample(texture, $0) }
    }

    /// The sRGB colour of `texture` at `uv` (bilinear, clamped at the edges).
    public static func sample(_ texture: RGBAImage, _ uv: SIMD2<Float>) -> SIMD3<UInt8> {
        let w = texture.width, h = texture.height
        let x = min(max(uv.x * Float(w) - 0.5, 0), Float(w - 1)),
            y = min(max((1 - uv.y) * Float(h) - 0.5, 0), Float(h - 1))
        let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        let fx = x - Float(x0), fy = y - Float(y0)
        func at(_ xx: Int, _ yy: Int) -> SIMD3<Float> {
            let o = 4 * (yy * w + xx)
            return SIMD3(Float(texture.pixels[o]), Float(texture.pixels[o + 1]), Float(texture.pixels[o + 2]))
        }
        let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * fx
        let bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * fx
        let c = top + (bottom - top) * fy
        return SIMD3(UInt8(min(255, c.x.rounded())), UInt8(min(255, c.y.rounded())), UInt8(min(255, c.z.rounded())))
    }

    /// `mesh` rendered as the clay thumbnail is, each vertex's albedo its colour in `texture`
    /// (the clay look when the mesh has no UVs).
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `options` are out of range.
    public static func render(_ mesh: Mesh, texture: RGBAImage, options: RenderOptions = RenderOptions())
        throws(FaceScanError) -> RGBAImage
    {
        try options.validate()
        guard let colours = vertexColours(mesh, texture: texture) else {
            return try Rasterizer.render(mesh, options: options)
        }
        let linear = colours.map { c in
            SIMD3<Float>(Self.linear(c.x), Self.linear(c.y), Self.linear(c.z))
        }
        return Rasterizer.renderUnchecked(
            mesh, options: options, vertexShader: AlbedoShading(albedo: linear), depth: false
        ).image
    }

    static func linear(_ b: UInt8) -> Float {
        let c = Float(b) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
}

/// The clay lighting with each vertex's own albedo (linear RGB).
struct AlbedoShading: VertexShader {
    let albedo: [SIMD3<Float>]
    let light = ClayShader(albedo: SIMD3(1, 1, 1), specular: 0.04)
    func shade(vertex: Int, normal: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float> {
        light.shade(normal: normal, frontFacing: frontFacing) * albedo[vertex] * 0.85
    }
}
