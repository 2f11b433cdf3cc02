import Testing

@testable import FaceScanKit

/// Triangle shape at every target: no sliver from decimation (the shape term of the collapse
/// check) nor from refinement (longest-edge bisection), on the two real faces.
@Suite struct TriangleQualityTests {
    /// Share of triangles whose smallest angle is below `degrees`.
    static func share(_ m: Mesh, below degrees: Double) -> Double {
        let a = DecimateFixtures.cornerAngles(m)
        return Double(a.filter { $0 < degrees }.count) / Double(a.count)
    }

    @Test(arguments: [1_000, 5_000, 10_000, 20_000, 40_000])
    func ictFaceKeepsItsAnglesAtEveryTarget(target: Int) throws {
        let face = try DecimateFixtures.ictNeutral()
        let r = try Decimation.simplify(face, targetVertices: target)
        #expect(r.vertexCount == target)
        #expect(MeshCheck(r).isClean, "\(MeshCheck(r).summary)")
        let smallest = DecimateFixtures.smallestAngleDegrees(r)
        // The input's own smallest angle is 2.65°: refinement keeps at least half of it.
        #expect(smallest >= 1, "smallest angle \(smallest)°")
        #expect(Self.share(r, below: 5) <= 0.001, "\(Self.share(r, below: 5) * 100) % under 5°")
    }

    @Test(arguments: [100, 300, 1_000, 5_000, 20_000])
    func mediaPipeFaceKeepsItsAnglesAtEveryTarget(target: Int) throws {
        let face = try DecimateFixtures.mediaPipeFace()
        let r = try Decimation.simplify(face, targetVertices: target)
        #expect(r.vertexCount == target)
        #expect(
            DecimateFixtures.smallestAngleDegrees(r) >= 5, "smallest angle \(DecimateFixtures.smallestAngleDegrees(r))°"
        )
    }

    /// Decimation used to leave 0.2–0.5 % of its triangles under 5° on the ICT face; the shape
    /// term rejects collapses that make a triangle worse than 6°.
    @Test func decimationLeavesNoNewSliver() throws {
        let face = try DecimateFixtures.ictNeutral()
        for target in [600, 2_500] {
            let r = try Decimation.simplify(face, targetVertices: target)
            #expect(Self.share(r, below: 5) == 0, "target \(target): \(Self.share(r, below: 5) * 100) % under 5°")
        }
    }

    /// A coarse face (ARKit-sized: 1 220 of the dense face's own vertices, as a tracker's lie on
    /// the face, on the topology in scripts/ict-arkit-topology.json) refined to 10 000 is much
    /// closer to the dense face than the coarse one: the new points follow the curve of the vertex
    /// normals.
    @Test func refiningACoarseFaceComesCloserToTheDenseOne() throws {
        let dense = try DecimateFixtures.ictNeutral()
        let coarse = try DecimateFixtures.arkitSizedFace(on: dense)
        #expect(coarse.vertexCount == 1_220)
        let fine = try Decimation.simplify(coarse, targetVertices: 10_000)
        let before = SurfaceDistance.symmetric(coarse, dense, samplesPerMesh: 40_000)
        let after = SurfaceDistance.symmetric(fine, dense, samplesPerMesh: 40_000)
        #expect(after.rms < 0.75 * before.rms, "RMS \(before.rms) → \(after.rms) µm")
        #expect(after.mean < 0.75 * before.mean)
        // Interpolating: the coarse vertices are kept as they are.
        #expect(Array(fine.positions[0..<coarse.vertexCount]) == coarse.positions)
    }

    /// Refinement splits the longest edge first: on a strip of two long thin triangles the first
    /// split lands on the diagonal (the longest edge), not on a short side.
    @Test func splitsTheLongestEdgeFirst() throws {
        let strip = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(4, 0, 0), SIMD3(4, 1, 0), SIMD3(0, 1, 0)],
            triangles: [0, 1, 2, 0, 2, 3])
        let r = try Decimation.simplify(strip, targetVertices: 5)
        #expect(r.vertexCount == 5 && r.triangleCount == 4)
        // Flat: the new point is the diagonal's middle.
        #expect(r.positions[4] == SIMD3(2, 0.5, 0))
        #expect(MeshCheck(r).isClean)
        // Same input, same bytes.
        #expect(
            try Decimation.simplify(strip, targetVertices: 40) == (try Decimation.simplify(strip, targetVertices: 40)))
    }

    /// On a sphere, the new points bulge outward toward the sphere instead of cutting chords.
    @Test func newPointsFollowTheCurvature() throws {
        let sphere = DecimateFixtures.bumpySphere(levels: 1, noise: 0, seed: 1)
        let r = try Decimation.simplify(sphere, targetVertices: sphere.vertexCount * 4)
        let radius = { (p: SIMD3<Float>) in Double((p * p).sum().squareRoot()) }
        let inputRadius = sphere.positions.map(radius).reduce(0, +) / Double(sphere.vertexCount)
        let added = r.positions[sphere.vertexCount...]
        // A straight midpoint of a chord lies inside; the curve lies at least halfway out to it.
        var chord = 0.0, curved = 0.0
        for p in added { curved += inputRadius - radius(p) }
        curved /= Double(added.count)
        // The chord midpoints of the input's edges, for comparison.
        var count = 0
        for t in 0..<sphere.triangleCount {
            let (a, b, _) = sphere.triangle(t)
            chord += inputRadius - radius((sphere.positions[Int(a)] + sphere.positions[Int(b)]) / 2)
            count += 1
        }
        chord /= Double(count)
        #expect(curved < 0.75 * chord, "mean depth below the sphere: curve \(curved), chords \(chord)")
    }
}
