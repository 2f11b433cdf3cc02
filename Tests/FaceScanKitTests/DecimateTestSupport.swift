@testable import FaceScanKit
import Foundation
import Testing

/// Meshes drawn or generated in code for the decimation tests, and the checks they share.
enum DecimateFixtures {
    /// Directory of the committed fixture files (located from this source file, no resources).
    static let fixtures: String = {
        let file = String(#filePath)
        let dir = file[..<(file.lastIndex(of: "/") ?? file.endIndex)]
        return dir + "/Fixtures"
    }()

    /// The MediaPipe canonical face (Apache-2.0, see Fixtures/mediapipe-LICENSE), in metres.
    static func mediaPipeFace() throws -> Mesh {
        try Mesh.read(path: fixtures + "/mediapipe-canonical-face.obj").scaled(by: 0.01)
    }

    /// The ICT-FaceKit neutral face area (MIT, see Fixtures/ict-LICENSE), in metres.
    static func ictNeutral() throws -> Mesh {
        try Mesh.read(path: fixtures + "/ict-neutral.obj")
    }

    /// The ARKit-sized face of scripts/ict-arkit-topology.json (1 220 of the ICT face's 9 409
    /// vertices and their triangles) with the positions of `dense` (the ICT neutral fixture or a
    /// mesh on its topology).
    static func arkitSizedFace(on dense: Mesh) throws -> Mesh {
        let file = String(#filePath)
        let tests = file[..<(file.range(of: "/Tests/")?.lowerBound ?? file.endIndex)]
        let data = try Data(contentsOf: URL(fileURLWithPath: tests + "/scripts/ict-arkit-topology.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let keep = try #require(json["denseVertex"] as? [Int]), tris = try #require(json["triangles"] as? [Int])
        return try Mesh(positions: keep.map { dense.positions[$0] }, triangles: tris.map { UInt32($0) })
    }

    /// ```
    ///        3
    ///       /|\
    ///      / | \      a closed tetrahedron, outward winding
    ///     0--|--2
    ///      \ | /
    ///       \|/
    ///        1
    /// ```
    static let tetrahedron = Mesh(
        uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)],
        triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])

    /// An `n × n` vertex grid in the plane z = 0 (spacing 1), two CCW triangles per cell,
    /// optionally with a z height per vertex.
    ///
    /// ```
    ///  6---7---8
    ///  | / | / |     n = 3: the border is 0 1 2 5 8 7 6 3, vertex 4 is the only interior one
    ///  3---4---5
    ///  | / | / |
    ///  0---1---2
    /// ```
    static func grid(_ n: Int, height: (Int, Int) -> Float = { _, _ in 0 }) -> Mesh {
        var p: [SIMD3<Float>] = []
        var uv: [SIMD2<Float>] = []
        for j in 0..<n {
            for i in 0..<n {
                p.append(SIMD3(Float(i), Float(j), height(i, j)))
                uv.append(SIMD2(Float(i), Float(j)) / Float(n - 1))
            }
        }
        var t: [UInt32] = []
        for j in 0..<(n - 1) {
            for i in 0..<(n - 1) {
                let a = UInt32(j * n + i), b = a + 1, c = a + UInt32(n), d = c + 1
                t += [a, b, d, a, d, c]
            }
        }
        return Mesh(uncheckedPositions: p, triangles: t, uvs: uv)
    }

    /// A closed cube `[-1, 1]³` whose faces are `n × n` grids sharing their border vertices;
    /// outward winding.
    static func cube(_ n: Int) -> Mesh {
        var index: [SIMD3<Int32>: UInt32] = [:]
        var p: [SIMD3<Float>] = []
        var t: [UInt32] = []
        func vertex(_ q: SIMD3<Int32>) -> UInt32 {
            if let i = index[q] { return i }
            let i = UInt32(p.count)
            index[q] = i
            p.append(SIMD3<Float>(Float(q.x), Float(q.y), Float(q.z)) * (2 / Float(n)) - 1)
            return i
        }
        // Each face: origin corner and two in-face axes with u × v pointing outward.
        let m = Int32(n)
        let faces: [(SIMD3<Int32>, SIMD3<Int32>, SIMD3<Int32>)] = [
            (SIMD3(0, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 0, 0)),  // z = 0, normal -z
            (SIMD3(0, 0, m), SIMD3(1, 0, 0), SIMD3(0, 1, 0)),  // z = n, normal +z
            (SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1)),  // y = 0, normal -y
            (SIMD3(0, m, 0), SIMD3(0, 0, 1), SIMD3(1, 0, 0)),  // y = n, normal +y
            (SIMD3(0, 0, 0), SIMD3(0, 0, 1), SIMD3(0, 1, 0)),  // x = 0, normal -x
            (SIMD3(m, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)),  // x = n, normal +x
        ]
        for (o, u, v) in faces {
            for j in 0..<m {
                for i in 0..<m {
                    let a = vertex(o &+ u &* i &+ v &* j), b = vertex(o &+ u &* (i + 1) &+ v &* j)
                    let c = vertex(o &+ u &* i &+ v &* (j + 1)), d = vertex(o &+ u &* (i + 1) &+ v &* (j + 1))
                    t += [a, b, d, a, d, c]
                }
            }
        }
        return Mesh(uncheckedPositions: p, triangles: t)
    }

    /// A unit sphere: an octahedron midpoint-subdivided `levels` times, projected, then every
    /// vertex moved radially by up to ±`noise` (seeded).
    static func bumpySphere(levels: Int, noise: Float, seed: UInt64) -> Mesh {
        var m = Mesh(
            uncheckedPositions: [
                SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1),
            ],
            triangles: [0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5])
        for _ in 0..<levels { m = Subdivision.midpoint(m) }
        var rng = MeshRNG(seed: seed)
        for i in m.positions.indices {
            let p = m.positions[i]
            let r = 1 + noise * (2 * rng.nextUnit() - 1)
            m.positions[i] = p / (p * p).sum().squareRoot() * r
        }
        return m
    }

    /// Unit normal of output triangle `t`.
    static func normal(_ m: Mesh, _ t: Int) -> SIMD3<Float> { m.faceNormal(t) }

    /// Smallest corner angle of each triangle of `m`, degrees (double precision).
    static func cornerAngles(_ m: Mesh) -> [Double] {
        (0..<m.triangleCount).map { t in
            let (a, b, c) = m.triangle(t)
            let p = [a, b, c].map { SIMD3<Double>(m.positions[Int($0)]) }
            var smallest = 180.0
            for i in 0..<3 {
                let u = p[(i + 1) % 3] - p[i], v = p[(i + 2) % 3] - p[i]
                let cosine = (u * v).sum() / ((u * u).sum() * (v * v).sum()).squareRoot()
                smallest = min(smallest, acos(max(-1, min(1, cosine))) * 180 / .pi)
            }
            return smallest
        }
    }

    static func smallestAngleDegrees(_ m: Mesh) -> Double { cornerAngles(m).min() ?? 0 }

    /// Centroid of triangle `t`.
    static func centroid(_ m: Mesh, _ t: Int) -> SIMD3<Float> {
        let (a, b, c) = m.triangle(t)
        return (m.positions[Int(a)] + m.positions[Int(b)] + m.positions[Int(c)]) / 3
    }

    /// Triangles of `result` whose normal points away (dot ≤ 0) from the input surface's normal
    /// near them: the normal of the input triangle whose centroid is nearest the triangle's
    /// (searched in a uniform grid of cells, ring by ring).
    static func flippedTriangles(_ result: Mesh, against input: Mesh) -> Int {
        let centres = (0..<input.triangleCount).map { centroid(input, $0) }
        let (lo, hi) = input.bounds
        let cell = max((hi - lo).max() / 48, 1e-9)
        func key(_ p: SIMD3<Float>) -> SIMD3<Int32> { SIMD3<Int32>(((p - lo) / cell).rounded(.down)) }
        var cells: [SIMD3<Int32>: [Int]] = [:]
        for (i, c) in centres.enumerated() { cells[key(c), default: []].append(i) }
        var flipped = 0
        for t in 0..<result.triangleCount {
            let c = centroid(result, t)
            let k = key(c)
            var best = -1
            var bestD = Float.infinity
            var r: Int32 = 0
            // Search rings until one beyond the best distance found.
            while best < 0 || Float(r - 1) * cell < bestD.squareRoot() {
                for dx in -r...r {
                    for dy in -r...r {
                        for dz in -r...r where max(abs(dx), abs(dy), abs(dz)) == r {
                            for i in cells[k &+ SIMD3(dx, dy, dz)] ?? [] {
                                let d = ((centres[i] - c) * (centres[i] - c)).sum()
                                if d < bestD || (d == bestD && i < best) {
                                    bestD = d
                                    best = i
                                }
                            }
                        }
                    }
                }
                r += 1
                if r > 96 { break }
            }
            if best < 0 || (normal(result, t) * input.faceNormal(best)).sum() <= 0 { flipped += 1 }
        }
        return flipped
    }
}

/// A small seeded PRNG (MeshRNG) so the random meshes are the same on every run.
struct MeshRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func nextUnit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}
