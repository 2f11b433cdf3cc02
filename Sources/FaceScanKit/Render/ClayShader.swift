#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    public var albedo: SIMD3<Float>
    public var key: DirectionalLight
    public var fill: DirectionalLight
    public var rim: DirectionalLight
    public var sky: SIMD3<Float>
    public var ground: SIMD3<Float>
    /// Diffuse wrap: 0 is plain Lambert; larger values soften the terminator like skin does.
    public var wrap: Float
    public var specular: Float
    /// Inside (back-face) brightness relative to the outside.
    public var backFaceFactor: Float
    /// Half vector of the key light and the view direction (+z).
    let keyHalf: SIMD3<Float>

    public init(
        albedo: SIMD3<Float> = SIMD3(0.62, 0.43, 0.33),
        key: DirectionalLight = DirectionalLight(towards: SIMD3(-0.55, 0.6, 0.75), color: SIMD3(1.05, 1.0, 0.94)),
        fill: DirectionalLight = DirectionalLight(towards: SIMD3(0.8, 0.05, 0.45), color: SIMD3(0.26, 0.29, 0.34)),
        rim: DirectionalLight = DirectionalLight(towards: SIMD3(0.3, 0.5, -0.8), color: SIMD3(0.25, 0.25, 0.25)),
        sky: SIMD3<Float> = SIMD3(0.16, 0.17, 0.19), ground: SIMD3<Float> = SIMD3(0.07, 0.06, 0.05),
        wrap: Float = 0.25, specular: Float = 0.12, backFaceFactor: Float = 0.3
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

    @inline(__always)
    public func shade(normal n: SIMD3<Float>, frontFacing: Bool) -> SIMD3<Float> {
        let nk = (n * key.direction).sum()
        let nf = (n * fill.direction).sum()
        let nr = (n * rim.direction).sum()
        let t = 0.5 + 0.5 * n.y  // hemisphere blend: 1 facing the sky, 0 facing the ground
        var light = key.color * wrapped(nk) + fill.color * wrapped(nf) + rim.color * max(0, nr)
        light += ground + (sky - ground) * t
        var c = albedo * light
        if frontFacing {
            // Blinn-Phong, exponent 32 by repeated squaring.
            var s = max(0, (n * keyHalf).sum())
            s *= s; s *= s; s *= s; s *= s; s *= s
            c += key.color * (specular * s * (nk > 0 ? 1 : 0))
        } else {
            c *= backFaceFactor
        }
        return c
    }
}
