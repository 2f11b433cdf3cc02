import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rendered frame: the thumbnail and, per output pixel, the distance along the viewing axis
/// of the nearest surface (`.infinity` where nothing was drawn), in the mesh's unit.
public struct RenderedFrame: Sendable {
    /// The rendered RGBA picture.
    public var image: RGBAImage
    /// One distance per output pixel (see above).
    public var depth: [Float]
    /// The camera, in output-pixel screen space (`project` gives output pixel coordinates).
    public var camera: Camera
}

/// A small software rasteriser for thumbnails (in the spirit of tinyrenderer, without global
/// state). Deterministic: steps 5–6 may run on two threads (``RenderOptions/threads``), each
/// drawing its own strips into its own rows, so the same mesh and options give identical bytes
/// for any thread count.
///
/// Recipe:
/// 1. frame the bounding sphere with a perspective camera, at `supersample²` samples per pixel;
/// 2. project every vertex once (screen position, 1/depth);
/// 3. light every vertex with the generic `SurfaceShader`, once for the outside and once for the
///    inside (normal flipped), from its area-weighted normal in camera space — at thumbnail size
///    a face's triangles are a pixel or two across, so smooth (Gouraud) interpolation of these
///    colours is indistinguishable from per-sample lighting and far cheaper;
/// 4. bin the triangles into horizontal strips of the sample raster (count → prefix-sum → fill),
///    so each strip's visibility buffer stays in cache;
/// 5. per strip, rasterise its triangles, both sides, into a visibility buffer (per sample the
///    nearest triangle and its side) — bounding box clipped to the strip, depth test on 1/depth.
///    Coverage is watertight: corners snapped to 1/256 sample, integer edge functions stepped
///    eight samples at a time, and the top-left rule for samples on an edge, so two triangles
///    sharing an edge cover every sample along it exactly once (no crack, no pin-hole);
/// 6. per output pixel, colour the visible samples (perspective-correct interpolation of the
///    corners' colours, from three planes per triangle set up once while binning) — once at the
///    pixel centre when every sample shows the same triangle side, else once per sample —
///    average them in linear light (box filter), take alpha from coverage and encode sRGB.
///
/// - Complexity: O(vertices + Σ triangle bounding-box area + size² · supersample²).
public enum Rasterizer {
    /// Renders `mesh` with the default clay look.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `options` are out of range
    ///   (``RenderOptions/validate()``).
    public static func render(_ mesh: Mesh, options: RenderOptions = RenderOptions()) throws(FaceScanError)
        -> RGBAImage
    {
        try options.validate()
        return renderUnchecked(mesh, options: options, vertexShader: UniformShading(shader: ClayShader()), depth: false)
            .image
    }

    /// Renders `mesh` with `shader`, also returning the depth of every output pixel. A colour
    /// the shader returns is clamped to 0…1 (NaN counts as 0).
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `options` are out of range.
    public static func renderFrame<S: SurfaceShader>(_ mesh: Mesh, options: RenderOptions, shader: S)
        throws(FaceScanError) -> RenderedFrame
    {
        try options.validate()
        return renderUnchecked(mesh, options: options, vertexShader: UniformShading(shader: shader))
    }

    /// Renders `mesh` with a shader that may colour each vertex differently (see `VertexShader`);
    /// `options` must be valid and the shader must answer for every vertex of `mesh`. With
    /// `depth` false the frame's `depth` is left empty (not computed).
    package static func renderUnchecked<S: VertexShader>(
        _ mesh: Mesh, options: RenderOptions, vertexShader shader: S, depth wantDepth: Bool = true
    ) -> RenderedFrame {
        let ss = options.supersample
        let size = options.size
        // 1. Camera at sample resolution, and the same camera at output resolution for callers.
        let camera = Camera(framing: mesh, options: options, samplesPerAxis: ss)
        var outputCamera = camera
        outputCamera.focal /= Float(ss)
        outputCamera.width = size
        outputCamera.height = size

        // 2–6. Project and light every vertex, bin the triangles, rasterise and resolve strip by
        // strip.
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        var depth = wantDepth ? [Float](repeating: .infinity, count: size * size) : []
        StripRenderer.draw(
            positions: mesh.positions, triangles: mesh.triangles, normals: mesh.vertexNormals(), camera: camera,
            shader: shader, size: size, supersample: ss, threads: options.threads, pixels: &pixels, depth: &depth)
        return RenderedFrame(
            image: RGBAImage(uncheckedWidth: size, height: size, pixels: pixels), depth: depth, camera: outputCamera)
    }
}

/// Linear light → sRGB byte, tabulated at 4096 steps.
enum SRGB {
    static let steps = 4096
    static let table: [UInt8] = (0..<steps).map { i in
        let c = Double(i) / Double(steps - 1)
        let s = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (s * 255).rounded())))
    }
}
