@testable import FaceScanKit
import Testing

/// The fast path of the simplifier's vertex classification: it may only say "closed
/// manifold disc" when the corner-by-corner classification would find nothing to flag.
@Suite("Fan classification")
struct FanClassificationTests {
    /// `isClosedManifoldFan` over fans given as (next, previous) corner pairs, padded with
    /// values that would spoil the answer if the padding were read as part of the fan, with
    /// marks left by an earlier vertex (`stale`, below the stamp).
    func closed(_ fan: [(UInt32, UInt32)], padding: UInt32 = 7, stale: UInt32 = 0) -> Bool {
        var next = fan.map(\.0) + [UInt32](repeating: padding, count: 8)
        var prev = fan.map(\.1) + [UInt32](repeating: padding, count: 8)
        var seen = [UInt32](repeating: stale, count: 32)
        return next.withUnsafeMutableBufferPointer { n in
            prev.withUnsafeMutableBufferPointer { p in
                seen.withUnsafeMutableBufferPointer { m in
                    DecimationCore.isClosedManifoldFan(n.baseAddress!, p.baseAddress!, count: fan.count,
                                                       seen: m.baseAddress!, stamp: 41)
                }
            }
        }
    }

    /// A vertex in the middle of a ring of `k` neighbours 1…k: triangle i is (v, i, i+1).
    func ring(_ k: UInt32) -> [(UInt32, UInt32)] {
        (1...k).map { i in (i, i == 1 ? k : i - 1) }
    }

    @Test func closedRingsAreDiscs() {
        for k: UInt32 in 3...20 {
            #expect(closed(ring(k)), "ring of \(k)")
            #expect(closed(ring(k), stale: 40), "ring of \(k) over an earlier vertex's marks")
        }
        // The padding is never read as fan: a 3-ring padded with its own neighbours still passes,
        // and one padded with a neighbour it lacks still passes too.
        #expect(closed(ring(3), padding: 1))
        #expect(closed(ring(3), padding: 9))
    }

    @Test func openFansAreNot() {
        // Drop one triangle of a 6-ring: two boundary edges.
        #expect(!closed(Array(ring(6).dropLast())))
        // A single triangle.
        #expect(!closed([(1, 2)]))
    }

    @Test func repeatedNeighboursAreNot() {
        // Two triangles use the edge v → 2 in the same direction (a non-manifold edge), although
        // every next value appears among the previous ones.
        #expect(!closed([(2, 1), (2, 3), (1, 2), (3, 2)]))
        // Every previous value is a next one, but 3 precedes the vertex twice.
        #expect(!closed([(1, 3), (2, 3), (3, 1)]))
        // A large open fan.
        #expect(!closed(Array(ring(15).dropFirst())))
    }
}
