import FaceScanCore

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
    /// Blend-shape coefficient `eyeBlinkLeft` (ARKit's `eyeBlink_L`), 0…1 (also in `blendShapes`):
    /// colour fusion keeps a blinking frame off the eyelids.
    public var eyeBlinkLeft: Double? = nil
    /// Blend-shape coefficient `eyeBlinkRight` (ARKit's `eyeBlink_R`), 0…1.
    public var eyeBlinkRight: Double? = nil
    /// ARKit's `ambientColorTemperature`, kelvin (6500 is neutral white; nil: taken as 6500).
    public var ambientColorTemperature: Double? = nil

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

/// The camera that took a frame's colour image, as ARKit's `ARCamera` gives it (FORMAT.md, "The
/// image and its camera"): pinhole intrinsics in pixels, the image's size, and the camera's pose.
public struct FrameCamera: Sendable, Hashable {
    /// Focal lengths in pixels (`intrinsics[0]`, `intrinsics[4]` of ARKit's column-major 3×3).
    public var fx: Double
    /// Vertical focal length in pixels.
    public var fy: Double
    /// Principal point in pixels, origin at the top-left corner (`intrinsics[6]`, `intrinsics[7]`).
    public var cx: Double
    /// Vertical principal point in pixels (v downwards).
    public var cy: Double
    /// The image's width in pixels (`imageResolution[0]`).
    public var width: Int
    /// The image's height in pixels (`imageResolution[1]`).
    public var height: Int
    /// Camera → world, 16 numbers column-major (identity when the capture gives none).
    public var transform: [Double]

    /// Largest image side accepted, pixels: larger claims are refused before any pixel is allocated.
    public static let maximumSide = 16_384

    /// A camera from ARKit's column-major 3×3 `intrinsics` (9 numbers), `imageResolution` and
    /// `transform` (camera → world, 16 numbers column-major; nil is the identity).
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` naming the field: intrinsics not 9 finite numbers
    ///   with positive focal lengths, a resolution outside 1…``maximumSide``, a transform not 16
    ///   finite numbers.
    public init(intrinsics: [Double], width: Int, height: Int, transform: [Double]? = nil) throws(FaceScanError) {
        do throws(InputError) {
            try self.init(checking: intrinsics, width, height, transform, file: "camera")
        } catch {
            throw .badInput(error)
        }
    }

    package init(checking k: [Double], _ width: Int, _ height: Int, _ transform: [Double]?, file: String)
        throws(InputError)
    {
        guard k.count == 9, k.allSatisfy({ $0.isFinite }), k[0] > 0, k[4] > 0 else {
            throw InputError(
                file: file, field: "camera.intrinsics",
                "has \(k.count) numbers, expected 9 finite (column-major 3×3, positive focal lengths)")
        }
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height) else {
            throw InputError(
                file: file, field: "camera.imageResolution",
                "\(width) × \(height): each side must be from 1 to \(Self.maximumSide) pixels")
        }
        let t = transform ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        guard t.count == 16, t.allSatisfy({ $0.isFinite }) else {
            throw InputError(
                file: file, field: "camera.transform", "has \(t.count) numbers, expected 16 finite (column-major 4×4)")
        }
        fx = k[0]
        fy = k[4]
        cx = k[6]
        cy = k[7]
        self.width = width
        self.height = height
        self.transform = t
    }
}

extension Topology {
    /// The topology against the `n` vertices the first frame fixed: every triangle index below
    /// `n`, `2n` texture coordinates when there are any. The capture reader's check and a
    /// session's (`FaceScanSession.add`), one message each.
    package func check(vertexCount n: Int, file: String) throws(InputError) {
        if let bad = triangles.firstIndex(where: { Int($0) >= n }) {
            throw InputError(
                file: file, field: "topology.triangleIndices",
                "index \(triangles[bad]) at position \(bad) is out of range (the frames have \(n) vertices)")
        }
        if let uv = textureCoordinates, uv.count != 2 * n {
            throw InputError(
                file: file, field: "topology.textureCoordinates",
                "has \(uv.count) values, expected \(2 * n) (u, v per vertex)")
        }
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
    /// The face anchor's `transform` (face anchor → world), 16 numbers column-major, when the
    /// capture gives it: where the face was, for colour fusion.
    public var anchorTransform: [Double]? = nil
    /// The camera's colour image of this frame as the capture stores it (JPEG or PNG bytes,
    /// base64-decoded), nil when the frame has none. The pipeline decodes it and fuses it into
    /// the texture; it is not kept beyond this frame.
    public var encodedImage: [UInt8]? = nil
    /// The camera that took ``encodedImage`` (present whenever the image is).
    public var camera: FrameCamera? = nil
    /// What is wrong with this frame's image or camera, when something is (the image and camera
    /// are then nil): the capture reader's finding, which it throws from
    /// `CaptureReader.nextFrame(_:)` unless the pipeline reads the frames, which throws it or,
    /// with ``ScanSettings/skipBadImages``, uses the frame for its geometry alone.
    public var imageProblem: ImageProblem? = nil

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

/// Why a frame's camera image cannot be used (``ImageProblem``), as the report counts skipped
/// images (``Report/SkippedImages``).
public enum BadImageReason: String, Sendable, CaseIterable {
    /// Not decodable: invalid base64, empty, neither JPEG nor PNG, truncated or corrupt.
    case corrupt
    /// The image's size is not the camera's `imageResolution`.
    case wrongSize
    /// The image or the camera's `imageResolution` declares more than
    /// ``FrameCamera/maximumSide`` pixels a side.
    case oversized
    /// The camera is missing, has no or invalid intrinsics, or an invalid transform.
    case camera
}

/// A frame's unusable image: why, and the one-line error (file, frame, field) that names it.
public struct ImageProblem: Error, Sendable {
    /// The kind of problem.
    public var reason: BadImageReason
    /// The error a run without ``ScanSettings/skipBadImages`` stops with.
    public var error: InputError

    /// A problem of `reason`, described by `error`.
    public init(reason: BadImageReason, error: InputError) {
        self.reason = reason
        self.error = error
    }
}
