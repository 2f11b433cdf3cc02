// Meshes at the limits of 32-bit floats. A `Mesh` holds finite coordinates, but the stages square
// lengths, take cross products and sum quadrics in `Float`: at ±3.4e38 (`Float.greatestFiniteMagnitude`)
// an edge's length already overflows. The stages whose result does not depend on the mesh's scale
// (refinement, decimation, rendering, surface distance) therefore work on the mesh scaled by a power
// of two into ``Mesh/workingMagnitude`` and scale the result back: both scalings are exact, so a
// mesh already inside the range (every face, in metres or millimetres) is not scaled at all and gives
// the same bytes as before.

extension Mesh {
    /// The largest coordinate magnitude (2^24) the scale-free stages work at: squared lengths, areas
    /// and quadric sums of coordinates this size stay far inside `Float`'s range.
    package static let workingMagnitude: Float = 16_777_216

    /// The largest absolute coordinate (0 for a mesh without vertices).
    package var largestMagnitude: Float {
        var m: Float = 0
        for v in positions { m = Swift.max(m, Swift.max(abs(v.x), Swift.max(abs(v.y), abs(v.z)))) }
        return m
    }

    /// The power of two `k` such that the coordinates divided by `2^k` are at most
    /// ``workingMagnitude``; 0 when they are already.
    package static func workingExponent(_ largest: Float) -> Int {
        guard largest > workingMagnitude, largest.isFinite else { return 0 }
        return Int(largest.exponent) - Int(workingMagnitude.exponent) + 1
    }

    /// The mesh with every coordinate multiplied by `2^k` (exact, unless a coordinate leaves the
    /// range of normal floats); the mesh itself for `k == 0`. Coordinates may overflow for `k > 0`:
    /// check with ``firstNonFiniteVertex``.
    package func scaled(byPowerOfTwo k: Int) -> Mesh {
        guard k != 0 else { return self }
        var copy = self
        // 2^k as one factor when it is a normal float, else in two steps (k below -126).
        let first = Swift.max(-126, Swift.min(127, k))
        let f1 = Float(sign: .plus, exponent: first, significand: 1)
        let f2 = Float(sign: .plus, exponent: k - first, significand: 1)
        for i in copy.positions.indices { copy.positions[i] = copy.positions[i] * f1 * f2 }
        return copy
    }

    /// The mesh scaled by a power of two into ``workingMagnitude`` (itself when it is inside), for a
    /// stage whose result does not depend on the scale (a rendering fits the camera to the mesh).
    package var atWorkingMagnitude: Mesh { scaled(byPowerOfTwo: -Self.workingExponent(largestMagnitude)) }

    /// The index of the first vertex with a non-finite coordinate, or nil.
    package var firstNonFiniteVertex: Int? {
        positions.firstIndex { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }
    }
}
