// The solid step on small random and degenerate surfaces: 2–200 vertices at extents from 1 mm to
// 2 m, snapped to a coarse lattice (so points repeat and line up), triangles picked by the bytes
// (repeated, flipped, degenerate). A part, when made, must be closed and clean; a refusal is
// fine. scripts/fuzz-reader gives each input a time limit (-timeout) that a solid step with a
// bounded cost stays far below, and a 1 GB memory limit.

import FaceScanKit

/// Byte layout: [vertex count, extent, options, then 3 lattice bytes per vertex, then triangles
/// as 3 index bytes each, the first byte's top bit flipping the triangle].
func fuzzSolid(_ bytes: [UInt8]) {
    guard bytes.count >= 3 else { return }
    var at = 3
    func next() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }
    let n = 2 + Int(bytes[0]) % 199
    // 1 mm .. 2 m, in millimetres.
    let extent = Float(pow10(Double(bytes[1]) / 255 * 3.301))
    let flags = bytes[2]
    var positions: [SIMD3<Float>] = []
    for _ in 0..<n {
        guard let x = next(), let y = next(), let z = next() else { break }
        positions.append(SIMD3(Float(x % 32), Float(y % 32), Float(z % 32)) * (extent / 31))
    }
    guard positions.count >= 2 else { return }
    var triangles: [UInt32] = []
    while let a = next(), let b = next(), let c = next(), triangles.count < 3 * 400 {
        let (i, j, k) = (
            UInt32(Int(a & 0x7f) % positions.count), UInt32(Int(b) % positions.count),
            UInt32(Int(c) % positions.count)
        )
        triangles += a & 0x80 == 0 ? [i, j, k] : [i, k, j]
    }
    guard !triangles.isEmpty, let mesh = try? Mesh(positions: positions, triangles: triangles) else { return }
    let options = SolidOptions(
        thickness: [1, 2, 5, 20][Int(flags & 3)], base: flags & 4 != 0, depth: [60, 5, 200, 1][Int(flags >> 3 & 3)],
        fit: flags & 32 != 0 ? SIMD3(180, 180, 180) : nil, align: flags & 64 == 0)
    let count: Int? = flags & 128 != 0 ? 300 + Int(bytes[1]) * 8 : nil
    guard let part = try? Solidify.part(mesh, options: options, unitInMillimetres: 1, vertexCount: count) else {
        return
    }
    let check = MeshCheck(part.mesh)
    precondition(check.isWatertight && check.isClean, "a part that is not closed and clean: \(check.summary)")
    if let count { precondition(part.mesh.vertexCount == count, "vertex count \(part.mesh.vertexCount) != \(count)") }
}

/// 10^x without Foundation.
func pow10(_ x: Double) -> Double {
    var r = 1.0, e = x
    while e >= 1 {
        r *= 10
        e -= 1
    }
    // 10^e for e in [0, 1): exp(e ln 10) by its series.
    let y = e * 2.302_585_092_994_046
    var term = 1.0, sum = 1.0
    for k in 1...20 {
        term *= y / Double(k)
        sum += term
    }
    return r * sum
}
