import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A perspective pinhole camera that frames a mesh's bounding sphere.
///
/// Camera space is right-handed: +x right, +y up, the camera looks down −z. Screen space is in
/// pixels of a `width × height` raster, origin at the top-left corner, +y down; pixel `(i, j)` has
/// its centre at `(i + 0.5, j + 0.5)`.
public struct Camera: Sendable, Equatable {
    /// Camera axes expressed in mesh space.
    public var right: SIMD3<Float>, up: SIMD3<Float>, back: SIMD3<Float>
    /// Camera position in mesh space.
    public var eye: SIMD3<Float>
    /// Focal length in pixels.
    public var focal: Float
    /// Raster size, pixels.
    public var width: Int, height: Int

    /// Frames the sphere `(center, radius)` seen from `view` in a `width × height` raster.
    public init(
        framing center: SIMD3<Float>, radius: Float, view: RenderView, width: Int, height: Int,
        fieldOfView: Float = 30, margin: Float = 0.02
    ) {
        let yaw = view.yaw
        right = SIMD3(cos(yaw), 0, -sin(yaw))
        up = SIMD3(0, 1, 0)
        back = SIMD3(sin(yaw), 0, cos(yaw))
        let half = fieldOfView * .pi / 360
        let r = max(radius, Float.leastNormalMagnitude) * (1 + margin)
        // The sphere's silhouette is a cone of half-angle asin(r / d): choose d so it equals the
        // half field of view.
        eye = center + back * (r / sin(half))
        focal = Float(min(width, height)) / 2 / tan(half)
        self.width = width
        self.height = height
    }

    /// Frames `mesh`'s bounding sphere (centred on its bounding-box centre).
    public init(framing mesh: Mesh, options: RenderOptions, samplesPerAxis: Int = 1) {
        let (lo, hi) = mesh.bounds
        let c = (lo + hi) / 2
        var r2: Float = 0
        for p in mesh.positions { r2 = max(r2, ((p - c) * (p - c)).sum()) }
        let n = options.size * samplesPerAxis
        self.init(
            framing: c, radius: r2.squareRoot(), view: options.view, width: n, height: n,
            fieldOfView: options.fieldOfView, margin: options.margin)
    }

    /// `p` in camera space.
    @inlinable
    public func toCamera(_ p: SIMD3<Float>) -> SIMD3<Float> {
        let d = p - eye
        return SIMD3((d * right).sum(), (d * up).sum(), (d * back).sum())
    }

    /// A mesh-space direction in camera space.
    @inlinable
    public func directionToCamera(_ v: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3((v * right).sum(), (v * up).sum(), (v * back).sum())
    }

    /// Screen position (pixels) and distance along the viewing axis of mesh-space point `p`.
    @inlinable
    public func project(_ p: SIMD3<Float>) -> (screen: SIMD2<Float>, depth: Float) {
        let c = toCamera(p)
        let depth = -c.z
        return (SIMD2(Float(width) / 2 + focal * c.x / depth, Float(height) / 2 - focal * c.y / depth), depth)
    }
}
