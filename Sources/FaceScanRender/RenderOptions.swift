import FaceScanCore

/// Where the camera stands relative to the face. Face space: +y up, +z out of the face (towards
/// a viewer who looks at it), +x towards the face's own left (the viewer's right).
public enum RenderView: String, Sendable, CaseIterable, Codable, Hashable {
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
///
/// Any value can be stored; the values are checked when the options are used
/// (``Rasterizer/render(_:options:)``, ``Mesh/thumbnail(_:)``, or ``validate()`` yourself), which
/// throw ``FaceScanError/badSetting(_:)`` naming the property and its allowed range.
public struct RenderOptions: Sendable, Hashable, Codable {
    /// Output width and height in pixels (the image is square), from 1 to ``sizeRange``'s upper bound.
    public var size: Int
    /// Where the camera stands.
    public var view: RenderView
    /// Samples per pixel along each axis, 1 to 8: 2 renders 2×2 = 4 samples per output pixel.
    public var supersample: Int
    /// Vertical field of view in degrees, greater than 1 and less than 170.
    public var fieldOfView: Float
    /// Extra room around the bounding sphere, as a fraction of its radius: 0 to 100.
    public var margin: Float
    /// Threads of a render, 1 to 256: with more than 1 the vertices and the triangles' set-up are
    /// each split in two halves and the horizontal strips of the image alternate between two
    /// threads, the calling thread and one more started for the render (joined before it
    /// returns); the output is byte-identical for any count. The default is 1; `process` asks
    /// for 2 on a machine with two or more cores (the thumbnail the user waits for,
    /// docs/PERFORMANCE.md, *Thumbnail as the user sees it*), `batch` with parallel jobs for 1.
    public var threads: Int

    /// Allowed ``size`` values.
    public static let sizeRange = 1...16384
    /// Allowed ``supersample`` values.
    public static let supersampleRange = 1...8
    /// Allowed ``threads`` values.
    public static let threadsRange = 1...256

    /// Options for a render; `threads` below 1 is taken as 1. The values are checked when used.
    public init(
        size: Int = 512, view: RenderView = .front, supersample: Int = 2, fieldOfView: Float = 30, margin: Float = 0.02,
        threads: Int = 1
    ) {
        self.size = size
        self.view = view
        self.supersample = supersample
        self.fieldOfView = fieldOfView
        self.margin = margin
        self.threads = max(1, threads)
    }

    /// Checks every property against its range.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first property out of range, e.g.
    ///   `RenderOptions.size must be from 1 to 16384, found 0`.
    public func validate() throws(FaceScanError) {
        func bad(_ name: String, _ range: String, _ value: Any) -> FaceScanError {
            .badSetting(
                UsageError("RenderOptions.\(name) must be \(range), found \(value)", field: "RenderOptions.\(name)"))
        }
        guard Self.sizeRange.contains(size) else { throw bad("size", "from 1 to \(Self.sizeRange.upperBound)", size) }
        guard Self.supersampleRange.contains(supersample) else {
            throw bad("supersample", "from 1 to \(Self.supersampleRange.upperBound)", supersample)
        }
        guard fieldOfView > 1, fieldOfView < 170 else {
            throw bad("fieldOfView", "greater than 1 and less than 170 degrees", fieldOfView)
        }
        guard margin >= 0, margin <= 100 else { throw bad("margin", "from 0 to 100", margin) }
        guard Self.threadsRange.contains(threads) else {
            throw bad("threads", "from 1 to \(Self.threadsRange.upperBound)", threads)
        }
    }
}
