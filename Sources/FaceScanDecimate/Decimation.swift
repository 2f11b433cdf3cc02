import FaceScanCore

// Decimation and refinement to an exact vertex count: the entry point the pipeline calls.
//
// Recipe: drop degenerate triangles and unreferenced vertices → above the count, longest-edge
// bisection to exactly the target (``EdgeRefinement``); below, quadric edge-collapse decimation
// down to exactly the target (``QuadricSimplifier``) → compact. See those files for papers.

/// Decimates or refines a mesh to an exact number of vertices.
public enum Decimation {
    /// Largest target accepted (the presets go to 20 000): a capture refined to it, written as
    /// STL, OBJ and PNG, stays within the README's 5 s and 1 GB on two cores (1 000 000 took
    /// 7.4 s; docs/PERFORMANCE.md, *Limits*).
    public static let maximumTargetVertices = 500_000

    /// Smallest count decimation goes down to (a tetrahedron); lower targets are unreachable.
    public static let minimumVertices = 4

    /// The mesh with exactly `targetVertices` vertices, every one referenced by a triangle.
    ///
    /// Above the mesh's (referenced) vertex count, its longest edge is split again and again
    /// (one new vertex each, on the smooth curve its ends' normals define) until the count is
    /// reached: the input's vertices stay, no angle falls below half the input's smallest.
    /// Below, it is decimated with quadric
    /// edge collapses (boundaries keep their shape, no flipped, degenerate or duplicate triangle,
    /// no non-manifold edge). UVs, when present, follow. Deterministic: the same input gives the
    /// same output bytes.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` when `target` is outside
    ///   ``minimumVertices``…``maximumTargetVertices`` or the count cannot be reached; its message
    ///   names the smallest count this mesh can be decimated to, e.g. "cannot reach 12 vertices:
    ///   the smallest reachable count for this mesh is 57".
    /// `threads`: 1 keeps all work on the calling thread; with more, large meshes (32 768 triangles
    /// and up) use two, for the duration of the call. The result is the same bytes for any value.
    ///
    /// - Complexity: about O(t log t) for t triangles (passes shrink geometrically).
    public static func simplify(_ mesh: Mesh, targetVertices target: Int, threads: Int = 2) throws(FaceScanError)
        -> Mesh
    {
        guard (minimumVertices...maximumTargetVertices).contains(target) else {
            throw .badSetting(
                UsageError(
                    "targetVertices must be from \(minimumVertices) to \(maximumTargetVertices), found \(target)"))
        }
        do {
            return try simplify(mesh, exactly: target, threads: Swift.min(Swift.max(threads, 1), 64))
        } catch {
            if Cancellation.requested { throw .cancelled }
            throw .badSetting(error)
        }
    }

    /// ``simplify(_:targetVertices:threads:)`` with the narrow error, for callers in this package
    /// that name the input in the message themselves.
    package static func simplify(_ mesh: Mesh, exactly target: Int, threads: Int = 2) throws(UsageError) -> Mesh {
        try Cancellation.check()
        // Coordinates near the float limits: the work is done at a working size (an exact power of
        // two, Mesh+Magnitude.swift) and the result scaled back, finite or refused.
        let k = Mesh.workingExponent(mesh.largestMagnitude)
        let result = try simplifyAtWorkingSize(mesh.scaled(byPowerOfTwo: -k), exactly: target, threads: threads)
            .scaled(byPowerOfTwo: k)
        if let v = result.firstNonFiniteVertex {
            throw UsageError(
                "cannot reach \(target) vertices: vertex \(v) of the result would not fit 32-bit floats (the coordinates reach \(mesh.largestMagnitude)); scale the mesh down first"
            )
        }
        return result
    }

    /// ``simplify(_:exactly:threads:)`` for a mesh whose coordinates are at most ``Mesh/workingMagnitude``.
    private static func simplifyAtWorkingSize(_ mesh: Mesh, exactly target: Int, threads: Int) throws(UsageError)
        -> Mesh
    {
        // 1. Only triangles with three distinct corners, and the vertices they use, count.
        let work = referencedOnly(withoutDegenerateTriangles(mesh))
        guard work.triangleCount > 0 else {
            throw UsageError("cannot reach \(target) vertices: the mesh has no triangle with three distinct corners")
        }
        if target == work.vertexCount { return work }
        guard target <= maximumTargetVertices else {
            throw UsageError(
                "cannot reach \(target) vertices: the largest supported target is \(maximumTargetVertices)")
        }
        // 2. Above the count: longest-edge bisection adds exactly one vertex per split.
        if target > work.vertexCount {
            try requireManifold(work)
            let refined = EdgeRefinement.refine(work, to: target)
            try Cancellation.check()
            guard refined.vertexCount == target else {
                throw UsageError(
                    "cannot reach \(target) vertices: refinement stopped at \(refined.vertexCount) (no edge left to split)"
                )
            }
            return refined
        }
        // 3. Decimate to exactly the target, or report where the collapses stop.
        var simplifier = QuadricSimplifier(work, threads: threads)
        // Locked vertices (a clean mesh has none) may sit on non-manifold edges or repeated
        // triangles, which collapses around them would multiply: refuse those meshes.
        if simplifier.hasLockedVertices { try requireManifold(work) }
        let reached = simplifier.decimate(to: target, floor: minimumVertices)
        try Cancellation.check()
        guard reached == target else {
            throw UsageError(
                "cannot reach \(target) vertices: the smallest reachable count for this mesh is \(reached)")
        }
        return simplifier.mesh()
    }

    /// `mesh` (clean: edge-manifold, no degenerate or repeated triangle, every vertex referenced)
    /// decimated to `target` vertices, or as close as collapses allow, with the vertices flagged
    /// in `keep` left where they are; a pass that makes fewer than `stall` of the collapses left
    /// goes on at any cost (see `QuadricSimplifier.decimate(to:floor:stall:)`).
    package static func simplify(
        _ mesh: Mesh, toward target: Int, keeping keep: [Bool], stall: Double = 0, threads: Int = 1
    ) -> Mesh {
        var simplifier = QuadricSimplifier(mesh, threads: threads)
        simplifier.lock(keep)
        _ = simplifier.decimate(to: target, floor: minimumVertices, stall: stall)
        return simplifier.mesh()
    }

    /// Refuses a mesh with an edge shared by more than two triangles or a repeated triangle.
    static func requireManifold(_ mesh: Mesh) throws(UsageError) {
        let check = MeshCheck(mesh)
        guard check.nonManifoldEdges == 0 && check.duplicateTriangles == 0 else {
            throw UsageError(
                "cannot decimate or refine this mesh: \(check.nonManifoldEdges) edges shared by more than two "
                    + "triangles and \(check.duplicateTriangles) repeated triangles (repair it first)")
        }
    }

    /// `mesh` without its triangles that repeat a corner (they have no area and no orientation;
    /// refinement cannot split them).
    static func withoutDegenerateTriangles(_ mesh: Mesh) -> Mesh {
        let t = mesh.triangles
        var first = 0
        while first < t.count && !repeatsACorner(t, first) { first += 3 }
        guard first < t.count else { return mesh }
        // Triangles before the first bad one as they are, then the good ones after it.
        var kept = Array(t[0..<first])
        kept.reserveCapacity(t.count - 3)
        for i in stride(from: first + 3, to: t.count, by: 3) where !repeatsACorner(t, i) {
            kept.append(contentsOf: t[i..<(i + 3)])
        }
        var out = mesh
        out.triangles = kept
        return out
    }

    /// Whether the triangle at `triangles[i..<i + 3]` uses one vertex twice.
    @inline(__always)
    static func repeatsACorner(_ triangles: [UInt32], _ i: Int) -> Bool {
        triangles[i] == triangles[i + 1] || triangles[i + 1] == triangles[i + 2] || triangles[i] == triangles[i + 2]
    }

    /// `mesh` without the vertices no triangle uses (indices renumbered in order).
    package static func referencedOnly(_ mesh: Mesh) -> Mesh {
        let n = mesh.vertexCount
        var used = [Bool](repeating: false, count: n)
        for i in mesh.triangles { used[Int(i)] = true }
        if !used.contains(false) { return mesh }
        var remap = [UInt32](repeating: 0, count: n)
        var positions: [SIMD3<Float>] = []
        var uvs: [SIMD2<Float>] = []
        for v in 0..<n where used[v] {
            remap[v] = UInt32(positions.count)
            positions.append(mesh.positions[v])
            if let u = mesh.uvs { uvs.append(u[v]) }
        }
        return Mesh(
            uncheckedPositions: positions, triangles: mesh.triangles.map { remap[Int($0)] },
            uvs: mesh.uvs == nil ? nil : uvs)
    }
}
