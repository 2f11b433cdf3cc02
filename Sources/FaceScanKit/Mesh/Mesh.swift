/// An indexed triangle mesh: the one geometry type every stage shares.
///
/// - `positions`: one point per vertex, in the mesh's length unit (metres while the pipeline works,
///   millimetres or metres after ``Mesh/scaled(by:)`` at export).
/// - `triangles`: flat vertex indices, three per triangle, counter-clockwise seen from outside
///   (ARKit's winding), every index `< positions.count`.
/// - `uvs`: optional per-vertex texture coordinates, `uvs.count == positions.count` when present.
public struct Mesh: Sendable, Equatable {
    public var positions: [SIMD3<Float>]
    public var triangles: [UInt32]
    public var uvs: [SIMD2<Float>]?

    public init(positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]? = nil) {
        precondition(triangles.count % 3 == 0, "triangle index count must be a multiple of 3")
        precondition(uvs == nil || uvs!.count == positions.count, "uvs must be per vertex")
        self.positions = positions
        self.triangles = triangles
        self.uvs = uvs
    }

    /// A mesh from data you did not produce yourself: checks what ``init(positions:triangles:uvs:)``
    /// assumes — a whole number of triangles, every index below `positions.count`, one UV per
    /// vertex when present, finite coordinates — and throws ``FaceScanError/badInput(_:)`` naming
    /// the first problem instead of stopping the program.
    public init(validatingPositions positions: [SIMD3<Float>], triangles: [UInt32], uvs: [SIMD2<Float>]? = nil)
        throws(FaceScanError)
    {
        func bad(_ field: String, _ message: String) -> FaceScanError {
            .badInput(InputError(file: "mesh", field: field, message))
        }
        guard triangles.count % 3 == 0 else {
            throw bad("triangles", "\(triangles.count) indices is not a multiple of 3")
        }
        if let i = triangles.firstIndex(where: { Int($0) >= positions.count }) {
            throw bad(
                "triangles", "index \(triangles[i]) at position \(i) is out of range (\(positions.count) vertices)")
        }
        if let uvs, uvs.count != positions.count {
            throw bad("uvs", "has \(uvs.count) coordinates, expected one per vertex (\(positions.count))")
        }
        if let i = positions.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw bad("positions", "vertex \(i) is not finite")
        }
        self.init(positions: positions, triangles: triangles, uvs: uvs)
    }

    public var vertexCount: Int { positions.count }
    public var triangleCount: Int { triangles.count / 3 }

    /// The three vertex indices of triangle `t`.
    @inlinable
    public func triangle(_ t: Int) -> (UInt32, UInt32, UInt32) {
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
    public func scaled(by factor: Float) -> Mesh {
        var copy = self
        if factor != 1 {
            for i in copy.positions.indices { copy.positions[i] *= factor }
        }
        return copy
    }
}
