// The solid step on small random and degenerate surfaces: 2–200 vertices at extents from 1 mm to
// 2 m, snapped to a coarse lattice (so points repeat and line up), triangles picked by the bytes
// (repeated, flipped, degenerate). A part, when made, must be closed and clean; a refusal is
// fine. scripts/fuzz-reader gives each input a time limit (-timeout) that a solid step with a
// bounded cost stays far below, and a 1 GB memory limit.

import FaceScanKit

/// Byte layout: `Solidify.FuzzInput` (the decoding `facescan-bench fuzz-solids` shares).
func fuzzSolid(_ bytes: [UInt8]) {
    guard let input = Solidify.FuzzInput.decode(bytes) else { return }
    let count = input.vertexCount
    guard
        let part = try? Solidify.part(input.mesh, options: input.options, unitInMillimetres: 1, vertexCount: count)
    else {
        return
    }
    let check = MeshCheck(part.mesh)
    precondition(check.isWatertight && check.isClean, "a part that is not closed and clean: \(check.summary)")
    if let count { precondition(part.mesh.vertexCount == count, "vertex count \(part.mesh.vertexCount) != \(count)") }
}
