/// How accepted frames are weighted in the average.
public enum FrameWeighting: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every frame counts the same (the plain mean).
    case equal
    /// Inverse-variance weights, each frame's noise variance estimated from its own residual
    /// (see `RobustAccumulator`).
    case residual
}

/// Averages the frames that passed the gate while leaving out whole frames that disagree with the
/// others (a tracking glitch, a blink, a mis-fit the gate cannot see), and weights the rest by
/// how noisy each one is.
///
/// Method (streaming, O(vertices) memory):
/// 1. The first ``warmUp`` frames are buffered. Their per-coordinate median is the reference.
/// 2. A frame's score is the RMS distance of its vertices from the reference; after the warm-up
///    the reference is the running (weighted) mean of the frames kept so far.
/// 3. A frame whose score exceeds ``threshold`` × the median score of the frames seen so far is an
///    outlier: counted, not averaged. The warm-up frames are judged together once the buffer is
///    full (or at the end, if fewer arrive); with fewer than 3 frames nothing is rejected.
/// 4. With ``FrameWeighting/residual`` a kept frame's noise variance is estimated as score² minus
///    the reference's own variance (σ²ref/Σw for the running mean, π/2n of the typical frame
///    variance for the median of n warm-up frames), at least ¼ score², and the frame is averaged
///    with weight σ²ref/σ̂², clamped to [1/``maxWeightRatio``, ``maxWeightRatio``]; σ²ref is the
///    median estimate of the warm-up frames. A score averages ~3·vertices squared residuals, so
///    the estimate is precise to a fraction of a percent. Depth noise grows with distance² (variance
///    with d⁴), so inside the gate's 0.3–0.5 m frames differ in variance by up to 2.4× and the
///    weighted mean has ~10 % less noise than the plain one.
///
/// Good frames differ from each other by sensor noise, whose level varies with distance by less
/// than 1.5× inside the gate's 0.3–0.5 m; a threshold of 2 leaves them all in.
package struct RobustAccumulator: Sendable {
    package static let warmUp = 8
    package static let threshold = 2.0
    package static let maxWeightRatio = 8.0

    package private(set) var accumulator: Accumulator
    package private(set) var outliers = 0
    /// The indices (as given to ``add(_:index:)``) of the frames found to be outliers so far, in
    /// the order they were found (warm-up frames are judged together, in capture order).
    package private(set) var outlierIndices: [Int] = []
    package let weighting: FrameWeighting
    /// The expression model's statistics, fed the frames and weights the average is; its
    /// ``ExpressionStatistics/resting(_:triangles:supportTerms:)`` corrects the average when coefficients vary.
    package private(set) var expression: ExpressionStatistics
    private var buffer: [[Float]] = []
    private var bufferOffsets: [[Double]] = []
    private var bufferIndices: [Int] = []
    /// Frames offered so far (the default index of the next one).
    private var offered = 0
    /// Every score so far, kept in two heaps so the median is O(1) to read and O(log n) to update.
    private var scores = RunningMedian()
    private var warm = false
    /// Typical frame noise variance (3D, per vertex) from the warm-up; 0 when unknown.
    private var referenceVariance = 0.0

    /// With `rejectOutliers` false every frame is averaged with equal weight (the plain mean).
    package init(vertexCount: Int, rejectOutliers: Bool = true, weighting: FrameWeighting = .residual) {
        accumulator = Accumulator(vertexCount: vertexCount)
        expression = ExpressionStatistics(vertexCount: vertexCount)
        warm = !rejectOutliers
        plain = !rejectOutliers
        self.weighting = rejectOutliers ? weighting : .equal
    }

    private let plain: Bool

    /// Offers one frame (flat xyz) known as `index` (default: how many frames were offered
    /// before it), with its blend-shape coefficients by name (none: empty). Returns the number
    /// of frames newly found to be outliers: this one, or some of the warm-up frames (their
    /// indices end ``outlierIndices``).
    @discardableResult
    package mutating func add(_ xyz: [Float], index: Int? = nil, blendShapes: [String: Double] = [:]) -> Int {
        let index = index ?? offered
        offered += 1
        let d = expression.offer(blendShapes)
        if !warm {
            buffer.append(xyz)
            bufferIndices.append(index)
            bufferOffsets.append(d)
            if buffer.count == Self.warmUp { return flushWarmUp() }
            return 0
        }
        if plain {
            average(xyz, d, weight: 1)
            return 0
        }
        let s = Self.score(xyz, accumulator.means)
        scores.insert(s)
        if s > Self.threshold * scores.median {
            outliers += 1
            outlierIndices.append(index)
            return 1
        }
        let own = accumulator.weightSum > 0 ? referenceVariance / accumulator.weightSum : 0
        average(xyz, d, weight: weight(score: s, referenceNoise: own))
        return 0
    }

    /// Adds a kept frame to the average and to the expression statistics (same weight, same group).
    private mutating func average(_ xyz: [Float], _ d: [Double], weight: Double) {
        let group = accumulator.count % Accumulator.groups
        if d.contains(where: { $0 != 0 }) {
            expression.add(xyz.flat, d, weight: weight, group: group)
        }
        accumulator.add(xyz, weight: weight)
    }

    /// The average to output, on the mesh of `triangles`: the resting face of
    /// ``ExpressionStatistics/resting(_:triangles:supportTerms:)`` when blend-shape coefficients varied, else
    /// exactly the plain weighted mean, its standard errors and noise samples. Nil when no frame
    /// was averaged. Call after ``finish()``.
    package func resting(triangles: [UInt32]) -> RestingFace? {
        if let r = expression.resting(accumulator, triangles: triangles) { return r }
        guard let mean = accumulator.mean() else { return nil }
        return RestingFace(
            mean: mean, standardErrors: accumulator.standardErrors(), noiseSamples: accumulator.noiseSamples(),
            expression: nil)
    }

    /// Judges any frames still in the warm-up buffer. Call once after the last frame.
    @discardableResult
    package mutating func finish() -> Int { warm ? 0 : flushWarmUp() }

    /// Inverse-variance weight of a frame with `score` against a reference whose own variance
    /// (3D, per vertex) is `referenceNoise`.
    private func weight(score: Double, referenceNoise: Double) -> Double {
        guard weighting == .residual, referenceVariance > 0 else { return 1 }
        let v = Self.frameVariance(score: score, referenceNoise: referenceNoise)
        guard v > 0 else { return Self.maxWeightRatio }
        return min(max(referenceVariance / v, 1 / Self.maxWeightRatio), Self.maxWeightRatio)
    }

    static func frameVariance(score: Double, referenceNoise: Double) -> Double {
        let s2 = score * score
        return max(s2 - referenceNoise, 0.25 * s2)
    }

    private mutating func flushWarmUp() -> Int {
        warm = true
        let frames = buffer, indices = bufferIndices, offsets = bufferOffsets
        buffer = []
        bufferIndices = []
        bufferOffsets = []
        guard !frames.isEmpty else { return 0 }
        let reference = Self.coordinateMedians(frames)
        let s = frames.map { Self.score($0, reference) }
        for v in s { scores.insert(v) }
        let limit = Self.threshold * Self.median(s)
        let kept = frames.indices.filter { !(frames.count >= 3 && s[$0] > limit) }
        // The median of n frames has about π/2n of a frame's variance, which every score carries.
        let c = Double.pi / (2 * Double(frames.count))
        let medianNoise = c * Self.median(kept.map { s[$0] * s[$0] }) / (1 + c)
        referenceVariance = Self.median(kept.map { Self.frameVariance(score: s[$0], referenceNoise: medianNoise) })
        for k in kept { average(frames[k], offsets[k], weight: weight(score: s[k], referenceNoise: medianNoise)) }
        let rejected = frames.count - kept.count
        if rejected > 0 {
            let keptSet = Set(kept)
            outlierIndices += frames.indices.filter { !keptSet.contains($0) }.map { indices[$0] }
        }
        outliers += rejected
        return rejected
    }

    /// The median of every coordinate over `frames` (all of one length): the frames are copied
    /// into one flat array, frame after frame, and each coordinate's column is sorted — by a
    /// 19-comparator min/max network for the usual 8 warm-up frames, by insertion otherwise.
    static func coordinateMedians(_ frames: [[Float]]) -> [Double] {
        let m = frames.count, n = frames[0].count
        var flat = [Float](repeating: 0, count: n * m)
        var reference = [Double](repeating: 0, count: n)
        for (k, f) in frames.enumerated() { flat.replaceSubrange(k * n..<(k + 1) * n, with: f) }
        let x = flat.flat
        var r = reference.flatMut
        if m == 8 {
            for i in 0..<n { r[i] = median8(x, start: i, stride: n) }
            return reference
        }
        var column = [Float](repeating: 0, count: m)
        var col = column.flatMut
        for i in 0..<n {
            for k in 0..<m { col[k] = x[k * n + i] }
            for a in 1..<max(m, 1) {
                let v = col[a]
                var b = a
                while b > 0 && col[b - 1] > v {
                    col[b] = col[b - 1]
                    b -= 1
                }
                col[b] = v
            }
            r[i] = m % 2 == 1 ? Double(col[m / 2]) : (Double(col[m / 2 - 1]) + Double(col[m / 2])) / 2
        }
        return reference
    }

    /// The median of `p[i], p[i + stride], …, p[i + 7·stride]`: sorted by Knuth's 19-comparator network
    /// for 8 inputs (branch-free min/max), then the mean of the two middle values.
    @inline(__always)
    static func median8(_ p: borrowing Span<Float>, start i: Int, stride: Int) -> Double {
        var v0 = p[i], v1 = p[i + stride], v2 = p[i + 2 * stride], v3 = p[i + 3 * stride]
        var v4 = p[i + 4 * stride], v5 = p[i + 5 * stride], v6 = p[i + 6 * stride], v7 = p[i + 7 * stride]
        @inline(__always) func cx(_ a: inout Float, _ b: inout Float) {
            let lo = min(a, b), hi = max(a, b)
            a = lo
            b = hi
        }
        cx(&v0, &v2); cx(&v1, &v3); cx(&v4, &v6); cx(&v5, &v7)
        cx(&v0, &v4); cx(&v1, &v5); cx(&v2, &v6); cx(&v3, &v7)
        cx(&v0, &v1); cx(&v2, &v3); cx(&v4, &v5); cx(&v6, &v7)
        cx(&v2, &v4); cx(&v3, &v5)
        cx(&v1, &v4); cx(&v3, &v6)
        cx(&v1, &v2); cx(&v3, &v4); cx(&v5, &v6)
        _ = (v0, v7)
        return (Double(v3) + Double(v4)) / 2
    }

    /// RMS over vertices of the 3D distance between a frame and the reference.
    /// Summed in four interleaved partial sums (fixed order: the same bytes every run), so the
    /// additions do not wait on one another.
    static func score(_ xyz: [Float], _ reference: [Double]) -> Double {
        let x = xyz.flat, r = reference.flat
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
        let n = x.count, body = n & ~3
        var i = 0
        while i < body {
            let d0 = Double(x[i]) - r[i], d1 = Double(x[i + 1]) - r[i + 1]
            let d2 = Double(x[i + 2]) - r[i + 2], d3 = Double(x[i + 3]) - r[i + 3]
            s0 += d0 * d0
            s1 += d1 * d1
            s2 += d2 * d2
            s3 += d3 * d3
            i += 4
        }
        while i < n {
            let d = Double(x[i]) - r[i]
            s0 += d * d
            i += 1
        }
        let sum = (s0 + s1) + (s2 + s3)
        return (sum / Double(max(1, xyz.count / 3))).squareRoot()
    }

    static func median(_ v: [Double]) -> Double { middle(ofSorted: v.sorted()) }

    /// The median of values in ascending order: the middle one, or the mean of the two middle
    /// ones for an even count; 0 when there are none.
    @inline(__always)
    static func middle<C: RandomAccessCollection>(ofSorted s: C) -> Double
    where C.Element: BinaryFloatingPoint, C.Index == Int {
        let n = s.count, h = s.startIndex + n / 2
        guard n > 0 else { return 0 }
        return n % 2 == 1 ? Double(s[h]) : (Double(s[h - 1]) + Double(s[h])) / 2
    }
}

/// The median of a growing multiset of numbers, exactly as `RobustAccumulator/middle(ofSorted:)`
/// gives it for the sorted values: a max-heap holds the lower half, a min-heap the upper half
/// (the lower one larger by at most one). Insert O(log n), median O(1); a frame stream of any
/// length costs O(n log n) in all instead of a sort per frame.
struct RunningMedian: Sendable {
    /// Max-heap (lower half) and min-heap (upper half), each stored as an implicit binary tree.
    private var lower: [Double] = []
    private var upper: [Double] = []

    var count: Int { lower.count + upper.count }

    mutating func insert(_ v: Double) {
        if let top = lower.first, v > top {
            Self.push(&upper, v, above: false)
        } else {
            Self.push(&lower, v, above: true)
        }
        if lower.count > upper.count + 1 {
            Self.push(&upper, Self.pop(&lower, above: true), above: false)
        } else if upper.count > lower.count {
            Self.push(&lower, Self.pop(&upper, above: false), above: true)
        }
    }

    /// The middle value (odd count) or the mean of the two middle values (even); 0 when empty.
    var median: Double {
        guard let lo = lower.first else { return 0 }
        if lower.count > upper.count { return lo }
        return (lo + upper[0]) / 2
    }

    /// `above`: a max-heap (parent ≥ children); otherwise a min-heap.
    @inline(__always)
    private static func before(_ a: Double, _ b: Double, _ above: Bool) -> Bool { above ? a > b : a < b }

    private static func push(_ h: inout [Double], _ v: Double, above: Bool) {
        h.append(v)
        var i = h.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard before(h[i], h[p], above) else { break }
            h.swapAt(i, p)
            i = p
        }
    }

    private static func pop(_ h: inout [Double], above: Bool) -> Double {
        let top = h[0]
        let last = h.removeLast()
        guard !h.isEmpty else { return top }
        h[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < h.count, before(h[l], h[m], above) { m = l }
            if r < h.count, before(h[r], h[m], above) { m = r }
            if m == i { break }
            h.swapAt(i, m)
            i = m
        }
        return top
    }
}
