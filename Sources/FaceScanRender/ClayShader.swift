/// Turns a surface normal into a colour. The rasteriser is generic over it, so each shader is
/// specialised into the per-sample loop (no closure or existential call per sample).
public protocol SurfaceShader: Sendable {
    /// Linear-light RGB of a surface point with unit camera-space normal `normal` (already
    /// flipped towards the camera for back faces); `frontFacing` is false on the inside of an
    /// open surface. The camera looks down −z.
    func shade(normal: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float>
}

/// A directional light fixed to the camera.
public struct DirectionalLight: Sendable, Equatable {
    /// Unit direction from the surface towards the light, in camera space.
    public var direction: SIMD3<Float>
    /// Linear RGB intensity.
    public var color: SIMD3<Float>

    /// A light shining from `direction` (normalised here; must not be zero) with linear RGB intensity `color`.
    public init(towards direction: SIMD3<Float>, color: SIMD3<Float>) {
        let l = (direction * direction).sum().squareRoot()
        self.direction = direction / l
        self.color = color
    }
}

/// Matte clay with a soft sheen: wrapped Lambert diffuse from a warm key light (upper left) and
/// a cool fill light (right), a sky/ground hemisphere ambient, and a Blinn-Phong highlight from
/// the key. The inside of an open surface is shaded the same way but much darker and without
/// highlight, so holes read as holes. All colours are linear light.
public struct ClayShader: SurfaceShader, Equatable {
    /// Linear RGB diffuse colour of the clay.
    public var albedo: SIMD3<Float>
    /// The warm main light, upper left; the highlight comes from it.
    public var key: DirectionalLight
    /// The cool light from the right that lifts the key's shadows.
    public var fill: DirectionalLight
    /// The light from behind that outlines the silhouette.
    public var rim: DirectionalLight
    /// Ambient linear RGB from above (normals facing +y).
    public var sky: SIMD3<Float>
    /// Ambient linear RGB from below (normals facing −y).
    public var ground: SIMD3<Float>
    /// Diffuse wrap: 0 is plain Lambert; larger values soften the terminator like skin does.
    public var wrap: Float
    /// Strength of the Blinn-Phong highlight from the key light; 0 for none.
    public var specular: Float
    /// Inside (back-face) brightness relative to the outside.
    public var backFaceFactor: Float
    /// Half vector of the key light and the view direction (+z).
    let keyHalf: SIMD3<Float>

    /// A shader; the defaults give facescan's thumbnail look.
    public init(
        albedo: SIMD3<Float> = SIMD3(0.60, 0.40, 0.30),
        key: DirectionalLight = DirectionalLight(towards: SIMD3(-0.65, 0.55, 0.55), color: SIMD3(1.25, 1.17, 1.06)),
        fill: DirectionalLight = DirectionalLight(towards: SIMD3(0.85, 0.0, 0.5), color: SIMD3(0.20, 0.23, 0.28)),
        rim: DirectionalLight = DirectionalLight(towards: SIMD3(0.4, 0.6, -0.7), color: SIMD3(0.35, 0.35, 0.35)),
        sky: SIMD3<Float> = SIMD3(0.10, 0.11, 0.13), ground: SIMD3<Float> = SIMD3(0.04, 0.035, 0.03),
        wrap: Float = 0.15, specular: Float = 0.10, backFaceFactor: Float = 0.3
    ) {
        self.albedo = albedo
        self.key = key
        self.fill = fill
        self.rim = rim
        self.sky = sky
        self.ground = ground
        self.wrap = wrap
        self.specular = specular
        self.backFaceFactor = backFaceFactor
        let h = key.direction + SIMD3(0, 0, 1)
        keyHalf = h / (h * h).sum().squareRoot()
    }

    @inlinable @inline(__always)
    func wrapped(_ cosine: Float) -> Float { max(0, (cosine + wrap) / (1 + wrap)) }

    /// Linear-light RGB of a point with unit camera-space normal `n` (``SurfaceShader/shade(normal:frontFacing:)``).
    @inline(__always)
    public func shade(normal n: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float> {
        // Written with scalar dot products: SIMD3 horizontal sums cost more than they save here.
        let nx = n.x, ny = n.y, nz = n.z
        let nk = nx * key.direction.x + ny * key.direction.y + nz * key.direction.z
        let nf = nx * fill.direction.x + ny * fill.direction.y + nz * fill.direction.z
        let nr = nx * rim.direction.x + ny * rim.direction.y + nz * rim.direction.z
        let t = 0.5 + 0.5 * ny  // hemisphere blend: 1 facing the sky, 0 facing the ground
        var light = key.color * wrapped(nk) + fill.color * wrapped(nf) + rim.color * max(0, nr)
        light += ground + (sky - ground) * t
        var c = albedo * light
        if frontFacing {
            // Blinn-Phong, exponent 32 by repeated squaring.
            var s = max(0, nx * keyHalf.x + ny * keyHalf.y + nz * keyHalf.z)
            s *= s; s *= s; s *= s; s *= s; s *= s
            c += key.color * (nk > 0 ? specular * s : 0)
        } else {
            c *= backFaceFactor
        }
        return c
    }
}
