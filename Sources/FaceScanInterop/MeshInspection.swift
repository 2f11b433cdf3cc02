import FaceScanCore

/// What `facescan inspect` reports: topology from ``MeshCheck``, the bounding box, the triangles
/// that cross others and, for a watertight mesh, the enclosed volume.
public struct MeshInspection: Sendable, Equatable {
    /// Topology and validity counts (``MeshCheck``).
    public var check: MeshCheck
    /// Smallest x, y, z of the vertices, in ``unit``.
    public var boundsMin: SIMD3<Float>
    /// Largest x, y, z of the vertices, in ``unit``.
    public var boundsMax: SIMD3<Float>
    /// Enclosed volume in unit³ (positive for outward-facing triangles), or nil when the mesh is
    /// not watertight.
    public var volume: Double?
    /// Unit of the coordinates (the caller says; a mesh file does not record it).
    public var unit: LengthUnit
    /// Triangles that cross another triangle of the mesh (not sharing a vertex with it), as
    /// mesh checkers such as MeshLab count self-intersecting faces; nil when not checked: the
    /// indices or coordinates are unsound, or the triangles' boxes overlap so much that the
    /// search would be quadratic (`SelfIntersection.defaultBudget`; e.g. one polygon of 100 000
    /// corners cut into slivers).
    public var selfIntersectingTriangles: Int?

    /// Inspects `mesh`, whose coordinates are in `unit` (a mesh file does not record it).
    ///
    /// - Complexity: O(t log t) for t triangles (``MeshCheck``, the crossing search on a grid).
    public init(_ mesh: Mesh, unit: LengthUnit = .m) {
        check = MeshCheck(mesh)
        (boundsMin, boundsMax) = mesh.bounds
        volume = check.isWatertight ? MeshInspection.signedVolume(mesh) : nil
        self.unit = unit
        selfIntersectingTriangles = nil
        if check.outOfRangeTriangles == 0 && check.nonFiniteVertices == 0,
            let pairs = SelfIntersection.pairs(mesh, budget: SelfIntersection.defaultBudget)
        {
            var crossing = Set<Int32>()
            for p in pairs {
                crossing.insert(p.x)
                crossing.insert(p.y)
            }
            selfIntersectingTriangles = crossing.count
        }
    }

    /// Signed volume by the divergence theorem: Σ a · (b × c) / 6 over the triangles, in double
    /// precision. Meaningful for a closed, consistently wound mesh.
    public static func signedVolume(_ mesh: Mesh) -> Double {
        var v = 0.0
        for t in 0..<mesh.triangleCount {
            let (i, j, k) = mesh.triangle(t)
            let a = SIMD3<Double>(mesh.positions[Int(i)]), b = SIMD3<Double>(mesh.positions[Int(j)])
            let c = SIMD3<Double>(mesh.positions[Int(k)])
            v += (a * SIMD3(b.y * c.z - b.z * c.y, b.z * c.x - b.x * c.z, b.x * c.y - b.y * c.x)).sum()
        }
        return v / 6
    }

    /// Extent of the bounding box along x, y, z, in ``unit`` (infinite beyond 32-bit floats: see
    /// ``extent``).
    public var size: SIMD3<Float> { boundsMax - boundsMin }

    /// Extent of the bounding box along x, y, z, in ``unit``, in double precision: finite for any
    /// mesh (a box from -3.4e38 to 3.4e38 is 6.8e38 wide, beyond 32-bit floats).
    public var extent: SIMD3<Double> { SIMD3<Double>(boundsMax) - SIMD3<Double>(boundsMin) }

    /// ``size`` where it is finite (the shortest decimal of each 32-bit float), else ``extent``.
    private var sizeNumbers: [Double] {
        let s = size, e = extent
        return (0..<3).map { s[$0].isFinite ? Double("\(s[$0])") ?? e[$0] : e[$0] }
    }

    /// The inspection as `facescan inspect --json` prints it.
    public var json: JSONValue {
        // Each coordinate as the shortest decimal that reads back as the same Float.
        func num(_ f: Float) -> JSONValue { .double(Double("\(f)") ?? Double(f)) }
        func vec(_ v: SIMD3<Float>) -> JSONValue { .array([num(v.x), num(v.y), num(v.z)]) }
        let size = JSONValue.array(sizeNumbers.map { .double($0) })
        let fields: [(String, JSONValue)] = [
            ("vertices", .int(check.vertexCount)),
            ("triangles", .int(check.triangleCount)),
            ("units", .string(unit.rawValue)),
            ("boundingBox", .object([("min", vec(boundsMin)), ("max", vec(boundsMax)), ("size", size)])),
            ("boundaryLoops", .int(check.boundaryLoops)),
            ("boundaryEdges", .int(check.boundaryEdges)),
            ("nonManifoldEdges", .int(check.nonManifoldEdges)),
            ("inconsistentEdges", .int(check.inconsistentEdges)),
            ("degenerateTriangles", .int(check.degenerateTriangles)),
            ("duplicateTriangles", .int(check.duplicateTriangles)),
            ("selfIntersectingTriangles", selfIntersectingTriangles.map { .int($0) } ?? .null),
            ("watertight", .bool(check.isWatertight)),
            ("volume", volume.map { .double($0) } ?? .null),
            ("volumeCm3", volume.map { .double($0 * pow3(unit.millimetres) / 1000) } ?? .null),
        ]
        return .object(fields)
    }

    /// Human-readable lines.
    public var text: String {
        let u = unit.rawValue
        let f = size, e = extent
        let s = (0..<3).map { f[$0].isFinite ? "\(f[$0])" : "\(e[$0])" }
        func mm(_ i: Int) -> Double { (f[i].isFinite ? Double(f[i]) : e[i]) * unit.millimetres }
        var lines = [
            "vertices:             \(check.vertexCount)",
            "triangles:            \(check.triangleCount)",
            "bounding box:         min (\(boundsMin.x), \(boundsMin.y), \(boundsMin.z)) max (\(boundsMax.x), \(boundsMax.y), \(boundsMax.z)) \(u)",
            "size:                 \(s[0]) × \(s[1]) × \(s[2]) \(u) (\(fmt(mm(0))) × \(fmt(mm(1))) × \(fmt(mm(2))) mm)",
            "boundary loops:       \(check.boundaryLoops) (\(check.boundaryEdges) edges)",
            "non-manifold edges:   \(check.nonManifoldEdges)",
            "inconsistent edges:   \(check.inconsistentEdges)",
            "degenerate triangles: \(check.degenerateTriangles)",
            "self-intersecting:    "
                + (selfIntersectingTriangles.map { "\($0) triangles" }
                    ?? "not checked (the triangles' boxes overlap too much for the search)"),
            "watertight:           \(check.isWatertight ? "yes" : "no")",
        ]
        if let volume {
            lines.append("volume:               \(volume) \(u)³ (\(fmt(volume * pow3(unit.millimetres) / 1000)) cm³)")
        }
        return lines.joined(separator: "\n")
    }

    private func fmt(_ x: Double) -> String { String((x * 1000).rounded() / 1000) }
}

private func pow3(_ x: Double) -> Double { x * x * x }
