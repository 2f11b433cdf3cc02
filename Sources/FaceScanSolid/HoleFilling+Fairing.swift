#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Step 3 of a hole's patch (``HoleFilling``): bi-Laplacian fairing of the new vertices, the loop
/// and its ring of neighbours held.
extension HoleFilling.Patch {
    // MARK: 3. Fairing

    /// Solves K D⁻¹ K x = 0 on the new vertices (loop and one mesh ring fixed) by conjugate
    /// gradients, K = D − A the uniform graph Laplacian of the mesh with the patch added.
    mutating func fair() {
        let free = pos.count - n
        guard free > 0 else { return }
        // Local vertex set: new vertices, loop vertices, then the mesh ring around the loop.
        var localOf: [UInt32: Int32] = [:]
        for i in 0..<n where localOf[w[i]] == nil { localOf[w[i]] = Int32(i) }
        var ringPos: [SIMD3<Double>] = []
        var neighbourLists = [[Int32]](repeating: [], count: pos.count)
        for i in 0..<n where localOf[w[i]] == Int32(i) {
            let v = w[i]
            for k in Int(adjacency.offsets[Int(v)])..<Int(adjacency.offsets[Int(v) + 1]) {
                let u = adjacency.neighbors[k]
                if localOf[u] == nil {
                    localOf[u] = Int32(pos.count + ringPos.count)
                    ringPos.append(SIMD3<Double>(mesh.positions[Int(u)]))
                }
                neighbourLists[i].append(localOf[u]!)
            }
        }
        // Patch edges (a loop edge is already a mesh edge: skip duplicates).
        for t in tris {
            for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
                let ga = canonical(a, localOf), gb = canonical(b, localOf)
                if !neighbourLists[Int(ga)].contains(gb) { neighbourLists[Int(ga)].append(gb) }
                if !neighbourLists[Int(gb)].contains(ga) { neighbourLists[Int(gb)].append(ga) }
            }
        }
        let m = pos.count  // rows with a Laplacian: new and loop vertices
        var offsets = [Int32](repeating: 0, count: m + 1)
        var nbr: [Int32] = []
        for r in 0..<m {
            nbr.append(contentsOf: neighbourLists[r])
            offsets[r + 1] = Int32(nbr.count)
        }
        var x = pos + ringPos
        // Free unknowns are local ids n..<m. rhs b = −[K D⁻¹ K x_fixed]_free.
        var fixedOnly = x
        for r in n..<m { fixedOnly[r] = .zero }
        let b = applyOperator(fixedOnly, offsets, nbr, n: n, m: m).map { -$0 }
        // CG (three independent systems, one per coordinate, run side by side).
        var xf = Array(x[n..<m])
        var full = [SIMD3<Double>](repeating: .zero, count: x.count)
        func apply(_ v: [SIMD3<Double>]) -> [SIMD3<Double>] {
            for r in 0..<full.count { full[r] = .zero }
            for r in 0..<free { full[n + r] = v[r] }
            return applyOperator(full, offsets, nbr, n: n, m: m)
        }
        let ax = apply(xf)
        var r = (0..<free).map { b[$0] - ax[$0] }
        var p = r
        var rr = r.reduce(SIMD3<Double>.zero) { $0 + $1 * $1 }
        let b2 = b.reduce(SIMD3<Double>.zero) { $0 + $1 * $1 }
        let tol = 1e-20 * pointwiseMax(b2, SIMD3(repeating: 1e-30))
        for _ in 0..<HoleFilling.Constants.maxCGIterations {
            if all(rr .<= tol) { break }
            let ap = apply(p)
            var pap = SIMD3<Double>.zero
            for k in 0..<free { pap += p[k] * ap[k] }
            let alpha = SIMD3<Double>(
                pap.x > 0 ? rr.x / pap.x : 0, pap.y > 0 ? rr.y / pap.y : 0, pap.z > 0 ? rr.z / pap.z : 0)
            var rr2 = SIMD3<Double>.zero
            for k in 0..<free {
                xf[k] += alpha * p[k]
                r[k] -= alpha * ap[k]
                rr2 += r[k] * r[k]
            }
            let beta = SIMD3<Double>(
                rr.x > 0 ? rr2.x / rr.x : 0, rr.y > 0 ? rr2.y / rr.y : 0, rr.z > 0 ? rr2.z / rr.z : 0)
            for k in 0..<free { p[k] = r[k] + beta * p[k] }
            rr = rr2
        }
        for k in 0..<free where xf[k].x.isFinite && xf[k].y.isFinite && xf[k].z.isFinite {
            x[n + k] = xf[k]
            pos[n + k] = xf[k]
        }
    }

    /// Local id of a patch vertex in the fairing numbering (a repeated loop vertex maps to its
    /// first occurrence).
    private func canonical(_ a: Int32, _ localOf: [UInt32: Int32]) -> Int32 {
        Int(a) < n ? localOf[w[Int(a)]]! : a
    }

    /// [K D⁻¹ K x] on the free rows n..<m (returned 0-based), K = D − A over the rows 0..<m.
    private func applyOperator(_ x: [SIMD3<Double>], _ offsets: [Int32], _ nbr: [Int32], n: Int, m: Int) -> [SIMD3<
        Double
    >] {
        var y = [SIMD3<Double>](repeating: .zero, count: m)  // D⁻¹ K x on rows 0..<m
        for r in 0..<m {
            let lo = Int(offsets[r]), hi = Int(offsets[r + 1])
            guard hi > lo else { continue }
            var s = SIMD3<Double>.zero
            for k in lo..<hi { s += x[Int(nbr[k])] }
            y[r] = x[r] - s / Double(hi - lo)
        }
        var out = [SIMD3<Double>](repeating: .zero, count: m - n)
        for r in n..<m {
            let lo = Int(offsets[r]), hi = Int(offsets[r + 1])
            var s = SIMD3<Double>.zero
            for k in lo..<hi { s += y[Int(nbr[k])] }
            out[r - n] = Double(hi - lo) * y[r] - s
        }
        return out
    }
}
