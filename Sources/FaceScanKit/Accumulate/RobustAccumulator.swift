/// Averages the frames that passed the gate while leaving out whole frames that disagree with the
/// others (a tracking glitch, a blink, a mis-fit the gate cannot see).
///
/// Method (streaming, O(vertices) memory):
/// 1. The first ``warmUp`` frames are buffered. Their per-coordinate median is the reference.
/// 2. A frame's score is the RMS distance of its vertices from the reference; after the warm-up
///    the reference is the running mean of the frames kept so far.
/// 3. A frame whose score exceeds ``threshold`` × the median score of the frames seen so far is an
///    outlier: counted, not averaged. The warm-up frames are judged together once the buffer is
///    full (or at the end, if fewer arrive); with fewer than 3 frames nothing is rejected.
///
/// Good frames differ from each other by sensor noise, whose level varies with distance by less
/// than 1.5× inside the gate's 0.3–0.5 m; a threshold of 2 leaves them all in.
public struct RobustAccumulator: Sendable {
    public static let warmUp = 8
    public static let threshold = 2.0

    public private(set) var accumulator: Accumulator
    public private(set) var outliers = 0
    private var buffer: [[Float]] = []
    private var scores: [Double] = []
    private var warm = false

    /// With `rejectOutliers` false every frame is averaged (the plain mean).
    public init(vertexCount: Int, rejectOutliers: Bool = true) {
        accumulator = Accumulator(vertexCount: vertexCount)
        warm = !rejectOutliers
        plain = !rejectOutliers
    }

    private let plain: Bool

    /// Offers one frame (flat xyz). Returns the number of frames newly found to be outliers.
    @discardableResult
    public mutating func add(_ xyz: [Float]) -> Int {
        if !warm {
            buffer.append(xyz)
            if buffer.count == Self.warmUp { return flushWarmUp() }
            return 0
        }
        if plain {
            accumulator.add(xyz)
            return 0
        }
        let s = Self.score(xyz, accumulator.means)
        scores.append(s)
        if s > Self.threshold * Self.median(scores) {
            outliers += 1
            return 1
        }
        accumulator.add(xyz)
        return 0
    }

    /// Judges any frames still in the warm-up buffer. Call once after the last frame.
    @discardableResult
    public mutating func finish() -> Int { warm ? 0 : flushWarmUp() }

    private mutating func flushWarmUp() -> Int {
        warm = true
        let frames = buffer
        buffer = []
        guard !frames.isEmpty else { return 0 }
        let n = frames[0].count
        var reference = [Double](repeating: 0, count: n)
        var column = [Float](repeating: 0, count: frames.count)
        for i in 0..<n {
            for (k, f) in frames.enumerated() { column[k] = f[i] }
            column.sort()
            let m = column.count
            reference[i] = m % 2 == 1 ? Double(column[m / 2]) : (Double(column[m / 2 - 1]) + Double(column[m / 2])) / 2
        }
        let s = frames.map { Self.score($0, reference) }
        scores.append(contentsOf: s)
        let limit = Self.threshold * Self.median(s)
        var rejected = 0
        for (k, f) in frames.enumerated() {
            if frames.count >= 3 && s[k] > limit {
                rejected += 1
            } else {
                accumulator.add(f)
            }
        }
        outliers += rejected
        return rejected
    }

    /// RMS over vertices of the 3D distance between a frame and the reference.
    static func score(_ xyz: [Float], _ reference: [Double]) -> Double {
        var sum = 0.0
        xyz.withUnsafeBufferPointer { x in
            reference.withUnsafeBufferPointer { r in
                for i in 0..<x.count {
                    let d = Double(x[i]) - r[i]
                    sum += d * d
                }
            }
        }
        return (sum / Double(max(1, xyz.count / 3))).squareRoot()
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
