import Foundation
import Testing

@testable import FaceScanKit

@Suite struct AccumulatorTests {
    @Test func meanIsExact() {
        var a = Accumulator(vertexCount: 2)
        a.add([1, 2, 3, 4, 5, 6])
        a.add([3, 2, 1, 0, -5, 8])
        a.add([2, 2, 2, 2, 3, 1])
        #expect(a.count == 3)
        #expect(a.mean() == [SIMD3(2, 2, 2), SIMD3(2, 1, 5)])
        #expect(Accumulator(vertexCount: 1).mean() == nil)
    }

    @Test func doublePrecisionSums() {
        // 10 000 frames of 0.1f: a float32 running sum drifts, the double sum does not.
        var a = Accumulator(vertexCount: 1)
        for _ in 0..<10_000 { a.add([0.1, 1e-4, 12.345]) }
        #expect(a.mean()! == [SIMD3<Float>(0.1, 1e-4, 12.345)])
    }

    /// The noise summary's median and 95th percentile (by selection) are the sorted list's: the
    /// middle value (or the mean of the two middle ones) and the nearest-rank 95th, for odd and
    /// even counts, ties and a single value.
    @Test(arguments: [1, 2, 3, 4, 19, 20, 1000, 9409])
    func noiseSummaryIsTheSortedListsOrderStatistics(_ n: Int) {
        var state: UInt64 = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        let values = (0..<n).map { i -> Double in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Every fourth value repeats an earlier one: ties.
            return i % 4 == 3 ? Double(i / 8) * 1e-6 : Double(state >> 40) * 1e-12
        }
        let s = values.sorted()
        let median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
        let p95 = s[min(n - 1, max(0, Int((0.95 * Double(n)).rounded(.up)) - 1))]
        let noise = Report.Noise(standardErrors: values)
        #expect(noise.medianStandardErrorUm == median * 1e6)
        #expect(noise.p95StandardErrorUm == p95 * 1e6)
    }
}

/// A UV sphere of radius `r` with `rings × segments` resolution (closed).
func sphere(radius r: Float, rings: Int, segments: Int) -> Mesh {
    var p: [SIMD3<Float>] = [SIMD3(0, r, 0)]
    for i in 1..<rings {
        let th = Float.pi * Float(i) / Float(rings)
        for j in 0..<segments {
            let ph = 2 * Float.pi * Float(j) / Float(segments)
            p.append(SIMD3(r * sin(th) * cos(ph), r * cos(th), r * sin(th) * sin(ph)))
        }
    }
    p.append(SIMD3(0, -r, 0))
    var t: [UInt32] = []
    func ring(_ i: Int, _ j: Int) -> UInt32 { UInt32(1 + (i - 1) * segments + (j % segments)) }
    for j in 0..<segments { t += [0, ring(1, j + 1), ring(1, j)] }
    for i in 1..<(rings - 1) {
        for j in 0..<segments {
            t += [ring(i, j), ring(i, j + 1), ring(i + 1, j)]
            t += [ring(i + 1, j), ring(i, j + 1), ring(i + 1, j + 1)]
        }
    }
    let south = UInt32(p.count - 1)
    for j in 0..<segments { t += [south, ring(rings - 1, j), ring(rings - 1, j + 1)] }
    return Mesh(uncheckedPositions: p, triangles: t)
}
