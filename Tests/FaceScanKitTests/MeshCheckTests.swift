import Foundation
import Testing

@testable import FaceScanKit

/// `MeshCheck` against a plain reference count (dictionaries, one entry per edge or triangle) on
/// small random meshes full of defects: repeated, flipped and non-manifold triangles, repeated
/// corners, indices out of range, collinear and non-finite corners, unused vertices.
@Suite struct MeshCheckTests {
    /// The reference: every count straight from its definition.
    static func reference(_ mesh: Mesh) -> MeshCheck {
        var r = MeshCheck()
        let n = mesh.vertexCount
        r.vertexCount = n
        r.triangleCount = mesh.triangleCount
        r.nonFiniteVertices = mesh.positions.filter { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }.count
        var used = Set<UInt32>()
        var seen = Set<[UInt32]>()
        var uses: [[UInt32]: (total: Int, forward: Int)] = [:]
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            if [a, b, c].contains(where: { Int($0) >= n }) {
                r.outOfRangeTriangles += 1
                continue
            }
            used.formUnion([a, b, c])
            if a == b || b == c || a == c {
                r.repeatedCornerTriangles += 1
                r.degenerateTriangles += 1
            } else if mesh.faceNormal(t) == .zero {
                r.degenerateTriangles += 1
            }
            if !seen.insert([a, b, c].sorted()).inserted { r.duplicateTriangles += 1 }
            for (u, v) in [(a, b), (b, c), (c, a)] where u != v {
                let key = [min(u, v), max(u, v)]
                let old = uses[key] ?? (0, 0)
                uses[key] = (old.total + 1, old.forward + (u < v ? 1 : 0))
            }
        }
        r.unreferencedVertices = n - used.count
        var boundary: [[UInt32]] = []
        for (key, count) in uses {
            if count.total == 1 { boundary.append(key) }
            if count.total > 2 { r.nonManifoldEdges += 1 }
            if count.total == 2 && count.forward != 1 { r.inconsistentEdges += 1 }
        }
        r.boundaryEdges = boundary.count
        // Loops: connected components of the boundary edges (flood fill).
        var next: [UInt32: [UInt32]] = [:]
        for e in boundary {
            next[e[0], default: []].append(e[1])
            next[e[1], default: []].append(e[0])
        }
        var visited = Set<UInt32>()
        for start in next.keys where !visited.contains(start) {
            r.boundaryLoops += 1
            var stack = [start]
            visited.insert(start)
            while let v = stack.popLast() {
                for w in next[v]! where visited.insert(w).inserted { stack.append(w) }
            }
        }
        return r
    }

    /// A random mesh over `n` vertices (some collinear, some non-finite) whose triangles mix a
    /// clean grid with random, repeated, flipped and broken ones.
    static func defectiveMesh(_ rng: inout TestRNG, vertices n: Int, triangles: Int) -> Mesh {
        var positions: [SIMD3<Float>] = []
        for i in 0..<n {
            switch rng.next() % 16 {
            case 0: positions.append(SIMD3(Float(i), 0, 0))  // on one line with the others like it
            case 1: positions.append(SIMD3(.nan, 0, 0))
            default:
                positions.append(
                    SIMD3(Float(rng.next() % 1000), Float(rng.next() % 1000), Float(rng.next() % 1000)) / 1000)
            }
        }
        var tris: [UInt32] = []
        for _ in 0..<triangles {
            let r = rng.next() % 20
            if r == 0 && tris.count >= 3 {
                // Repeat an earlier triangle, sometimes flipped.
                let t = Int(rng.next() % UInt64(tris.count / 3))
                let (a, b, c) = (tris[3 * t], tris[3 * t + 1], tris[3 * t + 2])
                tris += rng.next() % 2 == 0 ? [a, b, c] : [a, c, b]
            } else if r == 1 {
                let a = UInt32(rng.next() % UInt64(n))
                tris += [a, a, UInt32(rng.next() % UInt64(n))]
            } else if r == 2 {
                tris += [UInt32(rng.next() % UInt64(n)), UInt32(n + Int(rng.next() % 3)), 0]
            } else {
                // Mostly local triangles, so edges repeat and boundaries form loops.
                let a = Int(rng.next() % UInt64(n))
                let b = min(n - 1, a + 1 + Int(rng.next() % 3)), c = min(n - 1, a + 2 + Int(rng.next() % 5))
                tris += [UInt32(a), UInt32(b), UInt32(c)]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris)
    }

    @Test func matchesTheReferenceOnDefectiveMeshes() {
        var rng = TestRNG(seed: 7)
        var sawEach = (duplicate: false, nonManifold: false, inconsistent: false, loops: false, outOfRange: false)
        for round in 0..<200 {
            let n = 5 + Int(rng.next() % 60)
            let mesh = Self.defectiveMesh(&rng, vertices: n, triangles: 1 + Int(rng.next() % 120))
            let check = MeshCheck(mesh), expected = Self.reference(mesh)
            #expect(check == expected, "round \(round): \(check.summary) vs \(expected.summary)")
            sawEach.duplicate = sawEach.duplicate || expected.duplicateTriangles > 0
            sawEach.nonManifold = sawEach.nonManifold || expected.nonManifoldEdges > 0
            sawEach.inconsistent = sawEach.inconsistent || expected.inconsistentEdges > 0
            sawEach.loops = sawEach.loops || expected.boundaryLoops > 1
            sawEach.outOfRange = sawEach.outOfRange || expected.outOfRangeTriangles > 0
        }
        // The meshes exercised every kind of defect the check counts.
        #expect(sawEach.duplicate && sawEach.nonManifold && sawEach.inconsistent && sawEach.loops && sawEach.outOfRange)
    }

    @Test func matchesTheReferenceOnTheFaceFixtures() throws {
        for mesh in [try DecimateFixtures.ictNeutral(), try DecimateFixtures.mediaPipeFace()] {
            #expect(MeshCheck(mesh) == Self.reference(mesh), "\(mesh.vertexCount) v")
        }
    }

    /// A vertex shared by more than 32 edges sorts its bucket with the library sort.
    @Test func countsAHighValenceFan() {
        let spokes = 100
        var positions: [SIMD3<Float>] = [.zero]
        for i in 0..<spokes {
            let a = 2 * Float.pi * Float(i) / Float(spokes)
            positions.append(SIMD3(cos(a), sin(a), 0))
        }
        var tris: [UInt32] = []
        for i in 0..<spokes { tris += [0, UInt32(1 + i), UInt32(1 + (i + 1) % spokes)] }
        tris += [0, 1, 2]  // a duplicate of the first triangle
        let mesh = Mesh(uncheckedPositions: positions, triangles: tris)
        let check = MeshCheck(mesh)
        #expect(check == Self.reference(mesh))
        // The copy adds a third use to spokes 0–1 and 0–2 and a same-direction second use to rim 1–2.
        #expect(
            check.duplicateTriangles == 1 && check.nonManifoldEdges == 2 && check.inconsistentEdges == 1
                && check.boundaryLoops == 1)
    }

    /// `inspect` answers at once on a polygon of 100 000 corners (read from OBJ as a strip of
    /// slivers whose boxes all overlap, which made the crossing search quadratic: 24 s): the
    /// search declines (nil, "not checked") instead of running; a scan is still searched.
    @Test func inspectionDeclinesAQuadraticCrossingSearch() throws {
        let n = 100_000
        var text = ""
        for i in 0..<n {
            let a = 2 * Double.pi * Double(i) / Double(n)
            text += "v \(cos(a) * 50) \(sin(a) * 50) 0\n"
        }
        text += "f " + (1...n).map(String.init).joined(separator: " ") + "\n"
        let polygon = try Mesh(bytes: Array(text.utf8), format: .obj)
        #expect(polygon.triangleCount == n - 2)
        let declined = MeshInspection(polygon, unit: .mm)
        #expect(declined.selfIntersectingTriangles == nil)
        #expect(declined.text.contains("self-intersecting:    not checked"))
        #expect(declined.json.serialized().contains("\"selfIntersectingTriangles\":null"))
        // The ICT face's lips cross: the search runs and finds them.
        let face = MeshInspection(try ictFixture())
        #expect((face.selfIntersectingTriangles ?? 0) > 0)
    }
}
