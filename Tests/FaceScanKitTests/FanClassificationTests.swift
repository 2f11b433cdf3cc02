import Foundation
import Testing

@testable import FaceScanDecimate
@testable import FaceScanKit

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
                    DecimationCore.isClosedManifoldFan(
                        ScratchRun(n.baseAddress!), ScratchRun(p.baseAddress!), count: fan.count,
                        seen: ScratchRun(m.baseAddress!), stamp: 41)
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

/// A vertex in very many triangles: a convex polygon of 100 001 corners triangulated as a fan
/// from corner 0 (as a naive reader triangulates one big OBJ polygon). Corner 0 is on the rim in
/// 100 000 triangles; classifying it and ranking its edges must stay linear in the fan (the
/// corner-by-corner classification used to compare every corner with every other).
@Suite("High-valence fan")
struct HighValenceFanTests {
    static func fan(corners n: Int) -> Mesh {
        let positions = (0..<n).map { i -> SIMD3<Float> in
            let angle = 2 * Double.pi * Double(i) / Double(n)
            return SIMD3(Float(cos(angle)), Float(sin(angle)), 0)
        }
        var triangles: [UInt32] = []
        triangles.reserveCapacity(3 * (n - 2))
        for i in 1..<(n - 1) { triangles += [0, UInt32(i), UInt32(i + 1)] }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    @Test func aHundredThousandTriangleFanIsClassifiedAndDecimated() throws {
        let fan = Self.fan(corners: 100_002)
        #expect(fan.triangleCount == 100_000)
        // Every corner is on the rim, the fan's apex too; none is locked.
        let simplifier = QuadricSimplifier(fan, threads: 2)
        let locked = simplifier.hasLockedVertices
        let flags = Array(UnsafeBufferPointer(start: simplifier.core.flags.base, count: fan.vertexCount))
        #expect(!locked)
        #expect(flags.allSatisfy { $0 == DecimationCore.Flag.boundary })
        // Decimated along the rim only: every vertex left is one of the input's, where it was.
        let r = try Decimation.simplify(fan, targetVertices: 1_000)
        #expect(r.vertexCount == 1_000 && r.triangleCount == 998)
        let input = Set(fan.positions.map { [$0.x, $0.y, $0.z] })
        #expect(r.positions.allSatisfy { input.contains([$0.x, $0.y, $0.z]) })
        // One disc still: manifold, one rim, nothing repeated or left over (a few of its needle
        // triangles are flat to Float precision, as the input's are).
        let check = MeshCheck(r)
        #expect(check.nonManifoldEdges == 0 && check.inconsistentEdges == 0 && check.boundaryLoops == 1)
        #expect(check.duplicateTriangles == 0 && check.unreferencedVertices == 0)
    }
}
