@testable import FaceScanKit
import Testing

/// The vector fast path of the simplifier's vertex classification: it may only say "closed
/// manifold disc" when the corner-by-corner classification would find nothing to flag.
@Suite("Fan classification")
struct FanClassificationTests {
    /// `isClosedManifoldFan` over fans given as (next, previous) corner pairs, padded to 8 slots
    /// with values that would spoil the answer if the padding were read as part of the fan.
    func closed(_ fan: [(UInt32, UInt32)], padding: UInt32 = 7) -> Bool {
        var next = fan.map(\.0) + [UInt32](repeating: padding, count: 8)
        var prev = fan.map(\.1) + [UInt32](repeating: padding, count: 8)
        return next.withUnsafeMutableBufferPointer { n in
            prev.withUnsafeMutableBufferPointer { p in
                DecimationCore.isClosedManifoldFan(n.baseAddress!, p.baseAddress!, count: fan.count)
            }
        }
    }

    /// A vertex in the middle of a ring of `k` neighbours 1…k: triangle i is (v, i, i+1).
    func ring(_ k: UInt32) -> [(UInt32, UInt32)] {
        (1...k).map { i in (i, i == 1 ? k : i - 1) }
    }

    @Test func closedRingsAreDiscs() {
        for k: UInt32 in 3...8 { #expect(closed(ring(k)), "ring of \(k)") }
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
        // A fan over 8 triangles goes to the corner-by-corner pass, closed or not.
        #expect(!closed(ring(9)))
    }
}
