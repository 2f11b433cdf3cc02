/// The fixed part of a capture: triangle indices (and optional UVs) shared by every frame.
public struct Topology: Sendable, Hashable, Codable {
    /// Flat, three per triangle, counter-clockwise seen from outside.
    public var triangles: [UInt32]
    /// Flat u, v per vertex, when the capture has them.
    public var textureCoordinates: [Float]?

    /// A topology from flat triangle indices (three per triangle, counter-clockwise seen from
    /// outside) and, optionally, flat u, v texture coordinates (two per vertex).
    public init(triangles: [UInt32], textureCoordinates: [Float]? = nil) {
        self.triangles = triangles
        self.textureCoordinates = textureCoordinates
    }
}

/// ARKit camera tracking state of a frame.
public enum TrackingState: String, Sendable, Hashable, Codable, CaseIterable {
    /// `normal`: tracked; `limited`: tracked poorly (the gate rejects the frame); `notAvailable`: not tracked.
    case normal, limited, notAvailable
}

/// The per-frame facts the quality gate judges; `nil` means the capture did not record it (not
/// checked). Distances in metres, light in lumens, blend-shape coefficients in 0…1.
public struct FrameMetadata: Sendable, Hashable, Codable {
    /// Camera-to-face distance, metres.
    public var distance: Double?
    /// ARKit's tracking state; the gate accepts only `.normal`.
    public var tracking: TrackingState
    /// ARKit's ambient light estimate, lumens (1000 is neutral lighting).
    public var ambientIntensity: Double?
    /// Blend-shape coefficient `jawOpen`, 0…1.
    public var jawOpen: Double?
    /// Blend-shape coefficient `mouthSmileLeft`, 0…1.
    public var mouthSmileLeft: Double?
    /// Blend-shape coefficient `mouthSmileRight`, 0…1.
    public var mouthSmileRight: Double?
    /// Blend-shape coefficient `browInnerUp`, 0…1.
    public var browInnerUp: Double?
    /// Every blend-shape coefficient the frame carries (0…1), by the name it was given under
    /// (ARKit's `eyeBlink_L` or the capture format's `eyeBlinkLeft`), the four above included;
    /// empty when the frame has none. The expression model (`RobustAccumulator`) uses the ones
    /// that vary over a capture.
    public var blendShapes: [String: Double] = [:]

    /// Frame metadata; every fact not given is nil (not checked) and tracking is `.normal`;
    /// `blendShapes` holds every coefficient by name (the four the gate reads are given apart).
    public init(
        distance: Double? = nil, tracking: TrackingState = .normal, ambientIntensity: Double? = nil,
        jawOpen: Double? = nil, mouthSmileLeft: Double? = nil, mouthSmileRight: Double? = nil,
        browInnerUp: Double? = nil, blendShapes: [String: Double] = [:]
    ) {
        self.distance = distance
        self.tracking = tracking
        self.ambientIntensity = ambientIntensity
        self.jawOpen = jawOpen
        self.mouthSmileLeft = mouthSmileLeft
        self.mouthSmileRight = mouthSmileRight
        self.browInnerUp = browInnerUp
        self.blendShapes = blendShapes
    }
}

/// One frame: flat xyz positions (metres, face-anchor space) plus what the gate judges.
public struct Frame: Sendable {
    /// Zero-based position of the frame in the capture.
    public var index: Int
    /// `3 × vertexCount` coordinates: x, y, z of vertex 0, then vertex 1, …
    public var xyz: [Float]
    /// What the quality gate judges: distance, tracking, light, expression.
    public var metadata: FrameMetadata

    /// A frame from its index, flat xyz positions (metres) and metadata.
    public init(index: Int = 0, xyz: [Float] = [], metadata: FrameMetadata = FrameMetadata()) {
        self.index = index
        self.xyz = xyz
        self.metadata = metadata
    }

    /// A frame from one position per vertex.
    public init(index: Int = 0, positions: [SIMD3<Float>], metadata: FrameMetadata = FrameMetadata()) {
        var xyz: [Float] = []
        xyz.reserveCapacity(3 * positions.count)
        for p in positions {
            xyz.append(p.x)
            xyz.append(p.y)
            xyz.append(p.z)
        }
        self.init(index: index, xyz: xyz, metadata: metadata)
    }
}
