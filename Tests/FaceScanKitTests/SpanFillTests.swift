import CSIMD
import Testing

@testable import FaceScanCore
@testable import FaceScanRender

/// The AVX2 kernel that fills a triangle's box (`facescan_span_fill`) against the Swift loop it
/// replaces on such CPUs (`Span.fill8`, still the path elsewhere): same samples drawn, same bits.
@Suite struct SpanFillTests {
    /// Random boxes, edge functions, steps (some wrapping past 32 bits), depth planes and starting
    /// buffers: both fills leave the strip's buffers bit-identical.
    @Test func theVectorFillDrawsWhatTheSwiftLoopDraws() {
        let width = 96, rows = 24, count = width * rows + 7
        var random = SplitMix64(seed: 58)
        func int32(_ range: ClosedRange<Int32>) -> Int32 { Int32.random(in: range, using: &random) }
        var compared = 0
        for round in 0..<400 {
            let z0 = (0..<count).map { _ in random.next() % 3 == 0 ? 0 : Float(random.nextUnit()) }
            let id0 = (0..<count).map { _ in random.next() % 3 == 0 ? -1 : int32(0...1000) }
            var zA = z0, idA = id0, zB = z0, idB = id0
            let x0 = Int(int32(0...Int32(width - 1))), y0 = Int(int32(0...Int32(rows - 1)))
            let x1 = min(width - 1, x0 + Int(int32(0...40))), y1 = min(rows - 1, y0 + Int(int32(0...12)))
            // Small steps as a thumbnail's triangles have, and every 8th round steps that wrap.
            let big: Int32 = round % 8 == 0 ? 1 << 28 : 1 << 12
            let origin = SIMD3(
                int32(-(1 << 14)...(1 << 14)), int32(-(1 << 14)...(1 << 14)), int32(-(1 << 14)...(1 << 14)))
            let stepX = SIMD3(int32(-big...big), int32(-big...big), int32(-big...big))
            let stepY = SIMD3(int32(-big...big), int32(-big...big), int32(-big...big))
            let zx = Float(random.nextUnit() - 0.5) * 0.01, zy = Float(random.nextUnit() - 0.5) * 0.01
            let zc = Float(random.nextUnit())
            let tag = int32(0...5000)
            var vectorDrew = false
            zA.withUnsafeMutableBufferPointer { za in
                idA.withUnsafeMutableBufferPointer { ia in
                    zB.withUnsafeMutableBufferPointer { zb in
                        idB.withUnsafeMutableBufferPointer { ib in
                            let a = StripRenderer.Strip(z: za, id: ia, width: width, top: 0, rows: rows)
                            let b = StripRenderer.Strip(z: zb, id: ib, width: width, top: 0, rows: rows)
                            StripRenderer.Span(
                                x0: x0, x1: x1, y0: y0, y1: y1, tag: tag, zx: zx, zy: zy, zc: zc, strip: a
                            ).fill8(origin: origin, stepX: stepX, stepY: stepY)
                            vectorDrew = StripRenderer.Span(
                                x0: x0, x1: x1, y0: y0, y1: y1, tag: tag, zx: zx, zy: zy, zc: zc, strip: b
                            ).fill8Vector(origin: origin, stepX: stepX, stepY: stepY)
                        }
                    }
                }
            }
            guard vectorDrew else { continue }  // a CPU without AVX2 draws with fill8 alone
            compared += 1
            #expect(zA.map(\.bitPattern) == zB.map(\.bitPattern), "round \(round): 1/depth differs")
            #expect(idA == idB, "round \(round): triangle ids differ")
        }
        // Where the CPU has AVX2 (the kernel's own probe says so), every round compared.
        #expect(compared == (facescan_span_fill_available() != 0 ? 400 : 0))
    }
}
