import FaceScanCore

#if canImport(simd)
import simd
#endif

// Inputs shaped as ARKit hands them to an app: `ARFaceGeometry.triangleIndices` ([Int16]),
// `ARFaceGeometry.textureCoordinates` ([SIMD2<Float>]), `ARFaceGeometry.vertices`
// ([SIMD3<Float>]), the face anchor's and the camera's `transform` (simd_float4x4) and
// `ARFaceAnchor.blendShapes` (keyed by `BlendShapeLocation.rawValue`).

extension Topology {
    /// A topology from ARKit's `ARFaceGeometry.triangleIndices` (`[Int16]`, three per triangle,
    /// counter-clockwise seen from outside) and, optionally, its texture coordinates.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a negative index or a count that is not a
    ///   positive multiple of 3 (naming the position).
    public init(triangleIndices: [Int16], textureCoordinates: [SIMD2<Float>]? = nil) throws(FaceScanError) {
        if let i = triangleIndices.firstIndex(where: { $0 < 0 }) {
            throw .badInput(
                InputError(
                    file: "topology", field: "triangleIndices",
                    "index \(triangleIndices[i]) at position \(i) is negative"))
        }
        try self.init(checked: triangleIndices.map { UInt32($0) }, textureCoordinates)
    }

    /// A topology from 16-bit unsigned indices (three per triangle), as Metal index buffers hold them.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` for a count that is not a positive multiple of 3.
    public init(triangleIndices: [UInt16], textureCoordinates: [SIMD2<Float>]? = nil) throws(FaceScanError) {
        try self.init(checked: triangleIndices.map { UInt32($0) }, textureCoordinates)
    }

    private init(checked triangles: [UInt32], _ uvs: [SIMD2<Float>]?) throws(FaceScanError) {
        guard !triangles.isEmpty, triangles.count % 3 == 0 else {
            throw .badInput(
                InputError(
                    file: "topology", field: "triangleIndices",
                    "has \(triangles.count) indices, expected a positive multiple of 3"))
        }
        self.init(triangles: triangles, textureCoordinates: uvs.map { $0.flatMap { [$0.x, $0.y] } })
    }
}

extension FrameMetadata {
    /// ARKit's blend-shape names (`ARFaceAnchor.BlendShapeLocation.rawValue`) the gate reads.
    public enum BlendShapeName {
        /// `jawOpen`.
        public static let jawOpen = "jawOpen"
        /// `mouthSmile_L` (ARKit's `mouthSmileLeft`).
        public static let mouthSmileLeft = "mouthSmile_L"
        /// `mouthSmile_R` (ARKit's `mouthSmileRight`).
        public static let mouthSmileRight = "mouthSmile_R"
        /// `browInnerUp`.
        public static let browInnerUp = "browInnerUp"
    }

    /// Metadata from the face anchor's transform (anchor → world), the camera's transform
    /// (camera → world; nil when the anchor's transform is already relative to the camera) as 16
    /// floats each, column-major as simd stores a 4×4 matrix, and the blend shapes by ARKit's
    /// names (`mouthSmile_L`, … or the capture format's `mouthSmileLeft`, …), every one kept in
    /// ``FrameMetadata/blendShapes`` for the expression model.
    ///
    /// The distance is computed as the capture reader computes it from a frame's `transform`:
    /// the length of the anchor's translation (elements 12, 13, 14), relative to the camera's
    /// position when `cameraTransform` is given.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` when a transform does not have 16 finite
    ///   numbers, or a blend-shape coefficient the gate reads is outside 0…1 or not a number.
    public init(
        anchorTransform: [Float], cameraTransform: [Float]? = nil, tracking: TrackingState = .normal,
        ambientIntensity: Double? = nil, blendShapes: [String: Float] = [:]
    ) throws(FaceScanError) {
        func translation(_ m: [Float], _ field: String) throws(FaceScanError) -> SIMD3<Double> {
            guard m.count == 16, m.allSatisfy({ $0.isFinite }) else {
                throw .badInput(
                    InputError(
                        file: "frame", field: field, "has \(m.count) numbers, expected 16 finite (column-major 4×4)"))
            }
            return SIMD3(Double(m[12]), Double(m[13]), Double(m[14]))
        }
        var t = try translation(anchorTransform, "anchorTransform")
        if let cameraTransform { t -= try translation(cameraTransform, "cameraTransform") }
        let distance = (t * t).sum().squareRoot()
        func coefficient(_ names: [String]) throws(FaceScanError) -> Double? {
            for name in names {
                guard let v = blendShapes[name] else { continue }
                guard v >= 0 && v <= 1 else {
                    throw .badInput(
                        InputError(file: "frame", field: "blendShapes.\(name)", "coefficient \(v) is outside 0…1"))
                }
                return Double(v)
            }
            return nil
        }
        // Every coefficient for the expression model; those the gate does not read stay as lenient
        // as before (a value that is not a number is left out, one outside 0…1 clamped).
        var all: [String: Double] = [:]
        for (name, v) in blendShapes where !v.isNaN { all[name] = Double(min(max(v, 0), 1)) }
        self.init(
            distance: distance, tracking: tracking, ambientIntensity: ambientIntensity,
            jawOpen: try coefficient([BlendShapeName.jawOpen]),
            mouthSmileLeft: try coefficient([BlendShapeName.mouthSmileLeft, "mouthSmileLeft"]),
            mouthSmileRight: try coefficient([BlendShapeName.mouthSmileRight, "mouthSmileRight"]),
            browInnerUp: try coefficient([BlendShapeName.browInnerUp]), blendShapes: all)
        // Colour fusion keeps a blinking frame off the eyelids (as the capture reader fills them).
        eyeBlinkLeft = all["eyeBlink_L"] ?? all["eyeBlinkLeft"]
        eyeBlinkRight = all["eyeBlink_R"] ?? all["eyeBlinkRight"]
    }

    #if canImport(simd)
    /// ``init(anchorTransform:cameraTransform:tracking:ambientIntensity:blendShapes:)-([Float],_,_,_,_)``
    /// from ARKit's `simd_float4x4` transforms (`ARFaceAnchor.transform`, `ARCamera.transform`).
    public init(
        anchorTransform: simd_float4x4, cameraTransform: simd_float4x4? = nil, tracking: TrackingState = .normal,
        ambientIntensity: Double? = nil, blendShapes: [String: Float] = [:]
    ) throws(FaceScanError) {
        func flat(_ m: simd_float4x4) -> [Float] {
            [m.columns.0, m.columns.1, m.columns.2, m.columns.3].flatMap { [$0.x, $0.y, $0.z, $0.w] }
        }
        try self.init(
            anchorTransform: flat(anchorTransform), cameraTransform: cameraTransform.map(flat), tracking: tracking,
            ambientIntensity: ambientIntensity, blendShapes: blendShapes)
    }
    #endif
}

extension Frame {
    /// A frame from ARKit's `ARFaceGeometry.vertices` (metres, face-anchor space) and its metadata.
    public init(index: Int = 0, vertices: [SIMD3<Float>], metadata: FrameMetadata) {
        self.init(index: index, positions: vertices, metadata: metadata)
    }
}
