/// An indexed triangle mesh: the one geometry type every stage shares.
///
/// - `positions`: one point per vertex, in the mesh's length unit (metres while the pipeline works,
///   millimetres or metres after ``Mesh/scaled(by:)`` at export).
/// - `triangles`: flat vertex indices, three per triangle, counter-clockwise seen from outside
///   (ARKit's winding), every index `< positions.count`.
/// - `uvs`: optional per-vertex texture coordinates, `uvs.count == positions.count` when present.
///
/// A `Mesh` always keeps these invariants, and its coordinates are finite: the public
/// initializer ``init(positions:triangles:uvs:)`` checks them and throws
/// ``FaceScanError/badInput(_:)`` naming the first element that breaks them, and the storage
/// cannot be changed from outside the library. Every function that takes a `Mesh` can therefore
/// index it without checking again.
public struct Mesh: Sendable, Equatable {
    /// One point per vertex, in the mesh's length unit; every coordinate finite.
    public package(set) var positions: [SIMD3<Float>]
    /// Flat vertex indices, three per triangle, counter-clockwise seen from outside; every index
    /// below ``vertexCount``.
    public package(set) var triangles: [UInt32]
    /// Per-vertex texture coordinates (`u`, `v`), one per vertex when present.
    public package(set) var uvs: [SIMD2<Float>]?

    /// A mesh from data you did not produce yourself, checked: a whole number of triangles, every
    /// index below `positions.count`, one UV per vertex when present, finite coordinates.
    ///
    /// - Throws: ``FaceScanError/badInput(_:)`` naming the first problem, e.g. `mesh: field
    ///   'triangles': triangle 7 (index 21): vertex 1200 is out of range (1 000 vertices)`.
    /// - Complexity: O(vertices + triangles).
    public init(positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]? = nil)
        throws(FaceScanError)
    {
        if let problem = Self.problem(positions: positions, triangles: triangles, uvs: uvs) {
            throw .badInput(problem)
        }
        self.init(uncheckedPositions: positions, triangles: triangles, uvs: uvs)
    }

    /// The same as ``init(positions:triangles:uvs:)`` (its former name).
    public init(validatingPositions positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]? = nil)
        throws(FaceScanError)
    {
        try self.init(positions: positions, triangles: triangles, uvs: uvs)
    }

    /// A mesh the library built itself, whose invariants hold by construction: not checked
    /// beyond the counts (a broken invariant here is a bug of the library, and stops the program).
    package init(uncheckedPositions positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]? = nil) {
        precondition(triangles.count % 3 == 0, "triangle index count must be a multiple of 3")
        precondition(uvs == nil || uvs!.count == positions.count, "uvs must be per vertex")
        self.positions = positions
        self.triangles = triangles
        self.uvs = uvs
    }

    /// What breaks the invariants of a mesh made of these arrays, or nil: the first problem, as
    /// an ``InputError`` naming the element (triangle, corner and vertex index; or vertex).
    static func problem(positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]?, file: String = "mesh")
        -> InputError?
    {
        guard triangles.count % 3 == 0 else {
            return InputError(
                file: file, field: "triangles", "\(triangles.count) indices is not a multiple of 3")
        }
        let n = positions.count
        if let i = triangles.firstIndex(where: { Int($0) >= n }) {
            return InputError(
                file: file, field: "triangles",
                "triangle \(i / 3) (index \(i)): vertex \(triangles[i]) is out of range (\(n) vertices)")
        }
        if let uvs, uvs.count != n {
            return InputError(file: file, field: "uvs", "has \(uvs.count) coordinates, expected one per vertex (\(n))")
        }
        if let i = positions.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            return InputError(file: file, field: "positions", "vertex \(i) is not finite (\(positions[i]))")
        }
        if let uvs, let i = uvs.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite) }) {
            return InputError(file: file, field: "uvs", "vertex \(i) is not finite (\(uvs[i]))")
        }
        return nil
    }

    /// Number of vertices (`positions.count`).
    public var vertexCount: Int { positions.count }
    /// Number of triangles (`triangles.count / 3`).
    public var triangleCount: Int { triangles.count / 3 }

    /// The three vertex indices of triangle `t`, or nil when `t` is not in `0..<triangleCount`.
    public func triangle(at t: Int) -> (UInt32, UInt32, UInt32)? {
        guard t >= 0, t < triangleCount else { return nil }
        return (triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2])
    }

    /// The three vertex indices of triangle `t`, which must be in `0..<triangleCount` (the
    /// library's own loops).
    @inlinable @inline(__always)
    package func triangle(_ t: Int) -> (UInt32, UInt32, UInt32) {
        (triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2])
    }

    /// Axis-aligned bounds `(min, max)`; `(0, 0)` for an empty mesh.
    public var bounds: (min: SIMD3<Float>, max: SIMD3<Float>) {
        guard var lo = positions.first else { return (.zero, .zero) }
        var hi = lo
        for p in positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        return (lo, hi)
    }

    /// The same mesh with every position multiplied by `factor`.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `factor` is not finite and positive, or
    ///   ``FaceScanError/badInput(_:)`` when a scaled coordinate overflows 32-bit floats.
    public func scaled(by factor: Float) throws(FaceScanError) -> Mesh {
        guard factor.isFinite, factor > 0 else {
            throw .badSetting(UsageError("scale factor must be positive and finite, found \(factor)"))
        }
        let copy = scaledUnchecked(by: factor)
        if let i = copy.positions.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw .badInput(
                InputError(
                    file: "mesh", field: "positions", "vertex \(i) does not fit 32-bit floats once scaled by \(factor)")
            )
        }
        return copy
    }

    /// ``scaled(by:)`` without the checks, for the library's own callers that check the result.
    package func scaledUnchecked(by factor: Float) -> Mesh {
        var copy = self
        if factor != 1 {
            for i in copy.positions.indices { copy.positions[i] *= factor }
        }
        return copy
    }
}
