/// Per-vertex running sum of accepted frames in double precision; the mean is the average face.
/// Memory is O(vertices), independent of the number of frames.
public struct Accumulator: Sendable {
    public private(set) var sums: [Double]
    public private(set) var count = 0

    /// `vertexCount` vertices (3 coordinates each).
    public init(vertexCount: Int) {
        sums = [Double](repeating: 0, count: 3 * vertexCount)
    }

    public var vertexCount: Int { sums.count / 3 }

    /// Adds one frame's flat xyz coordinates (`3 × vertexCount` values).
    public mutating func add(_ xyz: UnsafeBufferPointer<Float>) {
        precondition(xyz.count == sums.count, "frame size must match the accumulator")
        sums.withUnsafeMutableBufferPointer { s in
            for i in 0..<s.count { s[i] += Double(xyz[i]) }
        }
        count += 1
    }

    public mutating func add(_ xyz: [Float]) {
        xyz.withUnsafeBufferPointer { add($0) }
    }

    /// The per-vertex mean (rounded to float32), or nil when no frame was added.
    public func mean() -> [SIMD3<Float>]? {
        guard count > 0 else { return nil }
        let inv = 1.0 / Double(count)
        var out = [SIMD3<Float>](repeating: .zero, count: vertexCount)
        sums.withUnsafeBufferPointer { s in
            for v in 0..<out.count {
                out[v] = SIMD3(Float(s[3 * v] * inv), Float(s[3 * v + 1] * inv), Float(s[3 * v + 2] * inv))
            }
        }
        return out
    }
}
