import Testing

@testable import FaceScanCore
@testable import FaceScanDecimate
@testable import FaceScanKit

/// `MeshTopology`: the edges with their sides and twins, the neighbours, the boundary loops and
/// the connected pieces, on small meshes whose answers are counted by hand.
@Suite struct TopologyTests {
    /// A `side` × `side` grid in the xy plane (unit spacing), without the two triangles of the
    /// cell whose lower-left vertex is (`holeX`, `holeY`).
    static func gridWithHole(side: Int, holeX: Int, holeY: Int) -> Mesh {
        var positions: [SIMD3<Float>] = []
        for y in 0..<side { for x in 0..<side { positions.append(SIMD3(Float(x), Float(y), 0)) } }
        let all = gridTriangles(side: side)
        let cell = 2 * (holeY * (side - 1) + holeX)
        let triangles = Array(all[0..<(3 * cell)] + all[(3 * cell + 6)...])
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    /// The ends of half-edge `h` of `t`.
    static func ends(_ t: [UInt32], _ h: Int) -> (UInt32, UInt32) { (t[h], t[h % 3 == 2 ? h - 2 : h + 1]) }

    @Test func gridWithAHole() {
        let mesh = Self.gridWithHole(side: 5, holeX: 2, holeY: 2)
        let topology = MeshTopology(mesh)
        // 4·5 rows + 5·4 columns + 16 diagonals, less the removed cell's diagonal.
        #expect(topology.edgeCount == 55)
        // The outer rim (16) and the hole (4).
        #expect(topology.boundaryEdgeCount == 20)
        var previous: (UInt32, UInt32) = (0, 0)
        for e in 0..<topology.edgeCount {
            let lo = topology.low[e], hi = topology.high[e]
            #expect(lo < hi)
            if e > 0 { #expect(previous < (lo, hi), "edges in (low, high) order") }
            previous = (lo, hi)
            let uses = Int(topology.uses[e])
            #expect(uses == 1 || uses == 2)
            for k in 0..<uses {
                let h = Int(topology.halves[Int(topology.halfStart[e]) + k])
                #expect(Int(topology.edgeOfHalf[h]) == e)
                let (a, b) = Self.ends(mesh.triangles, h)
                #expect((min(a, b), max(a, b)) == (lo, hi))
            }
        }
        // Twins: the other side of an interior edge, reversed; none on the boundary.
        var unpaired = 0
        for h in 0..<mesh.triangles.count {
            let g = Int(topology.twin[h])
            guard g >= 0 else {
                unpaired += 1
                #expect(topology.isBoundaryHalf(h))
                continue
            }
            #expect(!topology.isBoundaryHalf(h))
            #expect(Int(topology.twin[g]) == h)
            let (a, b) = Self.ends(mesh.triangles, h), (c, d) = Self.ends(mesh.triangles, g)
            #expect(a == d && b == c)
        }
        #expect(unpaired == 20)
        // Neighbours: sorted, unique; vertex 0 (a corner) has 1 and 5; the hole's corners are on
        // the boundary, the centre of a full 3 × 3 block is not.
        let adjacency = topology.neighbours()
        #expect(Array(adjacency.neighbors[Int(adjacency.offsets[0])..<Int(adjacency.offsets[1])]) == [1, 5])
        #expect(adjacency.isBoundary[12] && adjacency.isBoundary[18])
        #expect(!adjacency.isBoundary[6])
        // Loops: the rim counter-clockwise seen from +z, the hole clockwise.
        let loops = topology.boundaryLoops()
        #expect(loops.loops.count == 2)
        #expect(topology.boundaryPartCount() == 2)
        let rim = loops.rimIndex(mesh.positions)!
        #expect(loops.loops[rim].count == 16)
        #expect(BoundaryLoops.xyArea(loops.loops[rim], mesh.positions) == 16)
        let hole = loops.loops[1 - rim]
        #expect(Set(hole) == [12, 13, 17, 18])
        #expect(BoundaryLoops.xyArea(hole, mesh.positions) == -1)
        // One piece, open.
        let piece = topology.pieces()
        #expect(Set(piece).count == 1)
        #expect(topology.openPieces(piece)[piece[0]])
        // Rings (half-edge order) hold the same neighbours as the sorted CSR on this manifold mesh.
        let twin = (0..<mesh.triangles.count).map { topology.twin[$0] }
        let rings = MeshTopology.rings(triangles: mesh.triangles, twin: twin, vertexCount: mesh.vertexCount)
        for v in 0..<mesh.vertexCount {
            let ring = rings.neighbours[Int(rings.start[v])..<Int(rings.start[v + 1])].map { UInt32($0) }
            let sorted = Array(adjacency.neighbors[Int(adjacency.offsets[v])..<Int(adjacency.offsets[v + 1])])
            #expect(ring.sorted() == sorted, "vertex \(v)")
            #expect(rings.boundary[v] == adjacency.isBoundary[v], "vertex \(v)")
        }
        // What inspect reports comes from the same structure.
        let check = MeshCheck(mesh)
        #expect(check.boundaryEdges == 20 && check.boundaryLoops == 2)
    }

    @Test func nonManifoldFan() {
        // Three triangles on edge 0–1: the first two half-edges on it are twins, the third none.
        let positions: [SIMD3<Float>] = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]]
        let mesh = Mesh(uncheckedPositions: positions, triangles: [0, 1, 2, 1, 0, 3, 0, 1, 4])
        let topology = MeshTopology(mesh)
        #expect(topology.edgeCount == 7)
        #expect(topology.low[0] == 0 && topology.high[0] == 1 && topology.uses[0] == 3)
        #expect((0..<3).map { topology.halves[Int(topology.halfStart[0]) + $0] } == [0, 3, 6])
        #expect(topology.twin[0] == 3 && topology.twin[3] == 0 && topology.twin[6] == -1)
        // Every other edge is used once: 6 boundary edges, the shared one is not one.
        #expect(topology.boundaryEdgeCount == 6)
        #expect(!topology.isBoundaryHalf(6))
        #expect(MeshCheck(mesh).nonManifoldEdges == 1)
    }

    @Test func twoOpenPiecesAndAClosedOne() {
        var positions: [SIMD3<Float>] = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 0, 0], [6, 0, 0], [5, 1, 0]]
        positions += [[10, 0, 0], [11, 0, 0], [10, 1, 0], [10, 0, 1]]
        let tetrahedron: [UInt32] = [6, 8, 7, 6, 7, 9, 7, 8, 9, 8, 6, 9]
        let mesh = Mesh(uncheckedPositions: positions, triangles: [0, 1, 2, 3, 4, 5] + tetrahedron)
        let topology = MeshTopology(mesh)
        let piece = topology.pieces()
        #expect(Set(piece).count == 3)
        #expect(piece[0] == piece[2] && piece[3] == piece[5] && piece[6] == piece[9])
        #expect(piece[0] != piece[3])
        let open = topology.openPieces(piece)
        #expect(open[piece[0]] && open[piece[3]])
        #expect(!open[piece[6]])
        // The two triangles' rims; the tetrahedron has none.
        let loops = topology.boundaryLoops()
        #expect(loops.loops.map { $0.sorted() } == [[0, 1, 2], [3, 4, 5]])
        #expect(loops.opposite == [[2, 0, 1], [5, 3, 4]])
        #expect(topology.boundaryPartCount() == 2)
        for h in 6..<mesh.triangles.count { #expect(topology.twin[h] >= 6) }
    }

    @Test func emptyMesh() {
        for n in [0, 3] {
            let mesh = Mesh(uncheckedPositions: [SIMD3<Float>](repeating: .zero, count: n), triangles: [])
            let topology = MeshTopology(mesh)
            #expect(topology.edgeCount == 0 && topology.boundaryEdgeCount == 0)
            #expect(topology.boundaryLoops().loops.isEmpty)
            #expect(topology.boundaryPartCount() == 0)
            #expect(topology.pieces() == Array(0..<n))
            let adjacency = topology.neighbours()
            #expect(adjacency.vertexCount == n && adjacency.neighbors.isEmpty)
            let check = MeshCheck(mesh)
            #expect(check.boundaryLoops == 0 && check.boundaryEdges == 0)
        }
    }
}
