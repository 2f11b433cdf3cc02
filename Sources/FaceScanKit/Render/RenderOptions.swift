/// Where the camera stands relative to the face. Face space: +y up, +z out of the face (towards
/// a viewer who looks at it), +x towards the face's own left (the viewer's right).
public enum RenderView: String, Sendable, CaseIterable {
    /// On the +z axis looking down −z: the face seen head-on.
    case front
    /// On the +x axis: the face's left profile.
    case left
    /// On the −x axis: the face's right profile.
    case right
    /// 45° from the front towards the face's left.
    case threeQuarter = "three-quarter"

    /// Rotation of the camera about +y away from the front view, in radians.
    public var yaw: Float {
        switch self {
        case .front: return 0
        case .left: return .pi / 2
        case .right: return -.pi / 2
        case .threeQuarter: return .pi / 4
        }
    }
}

/// Settings of one thumbnail render.
public struct RenderOptions: Sendable, Equatable {
    /// Output width and height in pixels (the image is square).
    public var size: Int
    public var view: RenderView
    /// Samples per pixel along each axis: 2 renders 2×2 = 4 samples per output pixel.
    public var supersample: Int
    /// Vertical field of view in degrees.
    public var fieldOfView: Float
    /// Extra room around the bounding sphere, as a fraction of its radius.
    public var margin: Float
    /// Threads drawing horizontal strips of the image; the output is byte-identical for any count.
    public var threads: Int

    public init(
        size: Int = 512, view: RenderView = .front, supersample: Int = 2, fieldOfView: Float = 30, margin: Float = 0.02,
        threads: Int = 2
    ) {
        precondition(size > 0 && size <= 16384, "size must be in 1...16384")
        precondition(supersample >= 1 && supersample <= 8, "supersample must be in 1...8")
        precondition(fieldOfView > 1 && fieldOfView < 170, "field of view must be in (1, 170) degrees")
        self.size = size
        self.view = view
        self.supersample = supersample
        self.fieldOfView = fieldOfView
        self.margin = margin
        self.threads = max(1, threads)
    }
}
