#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Neighbour weighting of the smoothing Laplacian.
public enum SmoothingWeights: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every neighbour counts the same (umbrella operator).
    case uniform
    /// Cotangent weights of the input surface (clamped at zero), which follow the surface's shape
    /// rather than its triangulation.
    case cotangent
}

/// Taubin λ|μ smoothing parameters.
package struct TaubinOptions: Sendable, Equatable {
    /// Passes; each is one shrinking step (λ) and one inflating step (μ).
    package var iterations = 2
    package var lambda = 0.5
    /// Negative, with |μ| slightly above λ so the pair passes low frequencies unchanged
    /// (pass-band k_PB = 1/λ + 1/μ ≈ 0.113).
    package var mu = -0.53
    package var weights = SmoothingWeights.uniform
    /// Move interior vertices along their (input) normal only: tangential motion removes no
    /// noise but lets vertices drift over features.
    package var normalOnly = false
    /// Per-vertex bound on how far a vertex may end up from where it started (mesh units), e.g.
    /// a few standard deviations of the estimated noise: smoothing then removes noise but cannot
    /// erode a feature (an ear, the nose tip) by more than that. nil: unbounded.
    package var displacementLimit: [Float]?
    /// Per-vertex height scale (mesh units) of a bilateral range weight: a neighbour whose offset
    /// along the vertex normal is h counts exp(−h²/2s²) as much, so detail standing well above the
    /// noise level (s ≈ a couple of standard errors) is not averaged away. nil: plain weights.
    package var featureScale: [Float]?
    package init(iterations: Int = 2, weights: SmoothingWeights = .uniform) {
        self.iterations = iterations
        self.weights = weights
    }
}

/// Taubin's non-shrinking smoothing (G. Taubin, "A signal processing approach to fair surface
/// design", SIGGRAPH 1995).
///
/// Interior vertices move toward the weighted mean of their neighbours (by λ), then away from it
/// (by μ). On an open surface a boundary vertex is smoothed along the boundary only (its two
/// boundary neighbours), so the rim and the eye/mouth openings do not curl inward; boundary vertices
/// with other than two boundary neighbours (pinch points) and corners of the boundary (where it
/// turns by more than ``cornerAngleDegrees``) stay fixed, so corners are not rounded off.
/// - Complexity: O(iterations · edges); memory O(vertices + edges).
package enum Taubin {
    package static func smooth(_ mesh: Mesh, adjacency: Adjacency, options: TaubinOptions) -> Mesh {
        guard options.iterations > 0, mesh.vertexCount > 0 else { return mesh }
        let op = Operator(mesh, adjacency: adjacency, options: options)
        var out = mesh
        op.run(from: mesh.positions.map { SIMD3<Double>($0) }, passes: options.iterations) { pass, p in
            guard pass == options.iterations else { return }
            for v in 0..<p.count { out.positions[v] = SIMD3<Float>(p[v]) }
        }
        return out
    }

    /// The smoothing of one mesh, set up once (neighbour lists and weights, normals, bounds) and
    /// run from any start positions: the mesh's own, or the same positions plus a perturbation (the
    /// automatic smoothing measures the operator's response to noise this way, see `AutoSmoothing`).
    package struct Operator {
        let offsets: [Int32]
        let nbr: [UInt32]
        let wgt: [Double]
        let normals: [SIMD3<Double>]
        let featureScale: [Double]
        let limit: [Double]
        let constrain: Bool
        let normalOnly: Bool
        let isBoundary: [Bool]
        let lambda: Double
        let mu: Double

        package var vertexCount: Int { offsets.count - 1 }

        package init(_ mesh: Mesh, adjacency: Adjacency, options: TaubinOptions) {
            let n = mesh.vertexCount
            precondition(adjacency.vertexCount == n)
            // Per-vertex neighbour lists and weights (normalised to sum 1) in one CSR layout: interior
            // vertices use all neighbours, boundary vertices their boundary neighbours only.
            var offsets = [Int32](repeating: 0, count: n + 1)
            var nbr: [UInt32] = []
            var wgt: [Double] = []
            nbr.reserveCapacity(adjacency.neighbors.count)
            wgt.reserveCapacity(adjacency.neighbors.count)
            let cot = options.weights == .cotangent ? Taubin.cotangentWeights(mesh, adjacency) : nil
            for v in 0..<n {
                let start = nbr.count
                if adjacency.isBoundary[v] {
                    let lo = Int(adjacency.boundaryOffsets[v]), hi = Int(adjacency.boundaryOffsets[v + 1])
                    if hi - lo == 2
                        && !Taubin.isCorner(
                            mesh.positions, v, adjacency.boundaryNeighbors[lo], adjacency.boundaryNeighbors[lo + 1])
                    {
                        for k in lo..<hi {
                            nbr.append(adjacency.boundaryNeighbors[k])
                            wgt.append(0.5)
                        }
                    }
                } else {
                    let lo = Int(adjacency.offsets[v]), hi = Int(adjacency.offsets[v + 1])
                    var sum = 0.0
                    for k in lo..<hi {
                        let w = cot?[k] ?? 1
                        nbr.append(adjacency.neighbors[k])
                        wgt.append(w)
                        sum += w
                    }
                    if sum > 0 {
                        for k in start..<nbr.count { wgt[k] /= sum }
                    } else {
                        nbr.removeSubrange(start...)
                        wgt.removeSubrange(start...)
                    }
                }
                offsets[v + 1] = Int32(nbr.count)
            }
            self.offsets = offsets
            self.nbr = nbr
            self.wgt = wgt
            constrain = options.normalOnly || options.displacementLimit != nil
            normalOnly = options.normalOnly
            featureScale = options.featureScale.map { $0.map { 1 / (2 * Double($0) * Double($0) + 1e-300) } } ?? []
            normals = constrain || !featureScale.isEmpty ? mesh.vertexNormals().map { SIMD3<Double>($0) } : []
            limit =
                options.displacementLimit.map { $0.map { Double($0) } }
                ?? [Double](repeating: .infinity, count: constrain ? n : 0)
            precondition(limit.count == (constrain ? n : 0), "one displacement limit per vertex")
            isBoundary = adjacency.isBoundary
            lambda = options.lambda
            mu = options.mu
        }

        /// Positions being smoothed: the current ones, a scratch buffer, and where they started
        /// (the displacement bound is measured from there).
        package struct State {
            package fileprivate(set) var positions: [SIMD3<Double>]
            fileprivate var scratch: [SIMD3<Double>]
            fileprivate let origin: [SIMD3<Double>]
        }

        /// A state at `start` (one position per vertex), before any pass.
        package func start(_ start: [SIMD3<Double>]) -> State {
            precondition(start.count == vertexCount)
            return State(positions: start, scratch: start, origin: start)
        }

        /// One pass (a λ step and a μ step, each followed by the constraints): ``pass(_:carrying:)``
        /// carrying no directions.
        package func pass(_ s: inout State) {
            var none = Tangents(probes: 0, directions: [], scratch: [], origin: [])
            pass(&s, carrying: &none)
        }

        /// Directions carried along with a state (`pass(_:carrying:)`): for each of `probes`
        /// start directions d, J·d, the smoothing's derivative at the state's start in direction d
        /// (the operator linearised — bilateral weight, normal-only projection and displacement
        /// bound included), flat `vertex × probes + probe`.
        package struct Tangents {
            package let probes: Int
            package fileprivate(set) var directions: [SIMD3<Double>]
            fileprivate var scratch: [SIMD3<Double>]
            fileprivate let origin: [SIMD3<Double>]
        }

        /// Tangents starting at `directions` (flat `vertex × probes + probe`), before any pass.
        package func tangents(_ directions: [SIMD3<Double>], probes: Int) -> Tangents {
            precondition(probes >= 0 && directions.count == vertexCount * probes)
            return Tangents(probes: probes, directions: directions, scratch: directions, origin: directions)
        }

        /// One pass of `s` exactly as ``pass(_:)`` (the same positions, bit for bit), carrying
        /// `t` through its derivative: one bilateral weight per neighbour for the state and all
        /// its directions, where running the smoother again from perturbed starts costs one each.
        package func pass(_ s: inout State, carrying t: inout Tangents) {
            precondition(t.directions.count == vertexCount * t.probes)
            for f in [lambda, mu] {
                Taubin.step(
                    &s.positions, &s.scratch, &t.directions, &t.scratch, t.probes, offsets, nbr, wgt, f,
                    normals, featureScale)
                if constrain {
                    Taubin.project(
                        &s.positions, s.origin, &t.directions, t.origin, t.probes, normals, limit,
                        isBoundary, normalOnly)
                }
            }
        }

        /// Runs `passes` passes from `start`, calling `each(k, positions)` after pass k = 1…`passes`.
        package func run(
            from start: [SIMD3<Double>], passes: Int, each: (Int, [SIMD3<Double>]) -> Void
        ) {
            var s = self.start(start)
            guard passes > 0 else { return }
            for k in 1...passes {
                pass(&s)
                each(k, s.positions)
            }
        }
    }

    /// A boundary vertex whose boundary turns by more than this is a corner and is not moved.
    package static let cornerAngleDegrees = 30.0

    static func isCorner(_ p: [SIMD3<Float>], _ v: Int, _ a: UInt32, _ b: UInt32) -> Bool {
        let e1 = SIMD3<Double>(p[v] - p[Int(a)]), e2 = SIMD3<Double>(p[Int(b)] - p[v])
        let l = ((e1 * e1).sum() * (e2 * e2).sum()).squareRoot()
        guard l > 0 else { return true }
        return (e1 * e2).sum() / l < cos(cornerAngleDegrees * .pi / 180)
    }

    /// Applies the normal-only and displacement-limit constraints to every vertex of `p` (a
    /// boundary vertex moves along the boundary: its whole offset is bounded), with `dp` (`probes`
    /// directions per vertex, started at `dOrigin`; none for a plain pass) carried through their
    /// derivative: a clamped offset does not move with the input.
    private static func project(
        _ p: inout [SIMD3<Double>], _ origin: [SIMD3<Double>], _ dp: inout [SIMD3<Double>],
        _ dOrigin: [SIMD3<Double>], _ probes: Int, _ normals: [SIMD3<Double>],
        _ limit: [Double], _ boundary: [Bool], _ normalOnly: Bool
    ) {
        p.withUnsafeMutableBufferPointer { p in
            dp.withUnsafeMutableBufferPointer { dp in
                origin.withUnsafeBufferPointer { o in
                    dOrigin.withUnsafeBufferPointer { dOrigin in
                        normals.withUnsafeBufferPointer { nrm in
                            limit.withUnsafeBufferPointer { lim in
                                boundary.withUnsafeBufferPointer { b in
                                    for v in 0..<p.count {
                                        let d = p[v] - o[v]
                                        let base = v * probes
                                        if b[v] || !normalOnly {
                                            let len = (d * d).sum().squareRoot()
                                            if len > lim[v] {
                                                p[v] = o[v] + d * (lim[v] / len)
                                                for j in base..<base + probes {
                                                    let dd = dp[j] - dOrigin[j]
                                                    let radial = (d * dd).sum() / (len * len)
                                                    dp[j] = dOrigin[j] + (dd - radial * d) * (lim[v] / len)
                                                }
                                            }
                                        } else {
                                            let along = (d * nrm[v]).sum()
                                            p[v] = o[v] + min(max(along, -lim[v]), lim[v]) * nrm[v]
                                            let clamped = along > lim[v] || along < -lim[v]
                                            for j in base..<base + probes {
                                                let dd = dp[j] - dOrigin[j]
                                                dp[j] = clamped ? dOrigin[j] : dOrigin[j] + (dd * nrm[v]).sum() * nrm[v]
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One Laplacian step `p += f · (Σ wᵢ pᵢ − p)`, written through `q` then swapped. With
    /// `range` (1/2s² per vertex) the weights are multiplied by the bilateral range term and
    /// renormalised. `dp` (`probes` directions per vertex; none for a plain pass) is carried
    /// through the step's derivative, written through `dq`; the bilateral weights are computed
    /// once for `p` and differentiated for the directions.
    private static func step(
        _ p: inout [SIMD3<Double>], _ q: inout [SIMD3<Double>], _ dp: inout [SIMD3<Double>],
        _ dq: inout [SIMD3<Double>], _ probes: Int, _ offsets: [Int32],
        _ nbr: [UInt32], _ wgt: [Double], _ f: Double,
        _ normals: [SIMD3<Double>], _ range: [Double]
    ) {
        let bilateral = !range.isEmpty
        withUnsafeTemporaryAllocation(of: Double.self, capacity: probes) { dsum in
            p.withUnsafeBufferPointer { src in
                q.withUnsafeMutableBufferPointer { dst in
                    dp.withUnsafeBufferPointer { dsrc in
                        dq.withUnsafeMutableBufferPointer { ddst in
                            offsets.withUnsafeBufferPointer { off in
                                nbr.withUnsafeBufferPointer { nb in
                                    wgt.withUnsafeBufferPointer { w in
                                        normals.withUnsafeBufferPointer { nrm in
                                            range.withUnsafeBufferPointer { r in
                                                for v in 0..<src.count {
                                                    let lo = Int(off[v]), hi = Int(off[v + 1])
                                                    let base = v * probes
                                                    if lo == hi {
                                                        dst[v] = src[v]
                                                        for j in base..<base + probes { ddst[j] = dsrc[j] }
                                                        continue
                                                    }
                                                    var m = SIMD3<Double>.zero
                                                    if bilateral {
                                                        // The state exactly as in the plain step; each direction gets
                                                        // Σ (dw·x + w·dx) and Σ dw, with dw = w·(−2h·r)·dh.
                                                        for j in 0..<probes {
                                                            ddst[base + j] = .zero
                                                            dsum[j] = 0
                                                        }
                                                        var sum = 0.0
                                                        for k in lo..<hi {
                                                            let x = src[Int(nb[k])]
                                                            let h = ((x - src[v]) * nrm[v]).sum()
                                                            let wk = w[k] * exp(-h * h * r[v])
                                                            m += wk * x
                                                            sum += wk
                                                            let g = -2 * h * r[v] * wk
                                                            let nk = Int(nb[k]) * probes
                                                            for j in 0..<probes {
                                                                let dx = dsrc[nk + j]
                                                                let dw = g * ((dx - dsrc[base + j]) * nrm[v]).sum()
                                                                ddst[base + j] += dw * x + wk * dx
                                                                dsum[j] += dw
                                                            }
                                                        }
                                                        if sum > 0 {
                                                            m = m / sum
                                                            for j in 0..<probes {
                                                                let dm = (ddst[base + j] - dsum[j] * m) / sum
                                                                ddst[base + j] =
                                                                    dsrc[base + j] + f * (dm - dsrc[base + j])
                                                            }
                                                        } else {
                                                            m = src[v]
                                                            for j in 0..<probes { ddst[base + j] = dsrc[base + j] }
                                                        }
                                                    } else {
                                                        for k in lo..<hi { m += w[k] * src[Int(nb[k])] }
                                                        for j in 0..<probes {
                                                            var dm = SIMD3<Double>.zero
                                                            for k in lo..<hi {
                                                                dm += w[k] * dsrc[Int(nb[k]) * probes + j]
                                                            }
                                                            ddst[base + j] = dsrc[base + j] + f * (dm - dsrc[base + j])
                                                        }
                                                    }
                                                    dst[v] = src[v] + f * (m - src[v])
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        swap(&p, &q)
        swap(&dp, &dq)
    }

    /// `values` (`width` per vertex, flat) averaged over each vertex's one-ring and itself, `rounds` times.
    package static func ringAverage(_ values: [Double], width: Int, adjacency: Adjacency, rounds: Int) -> [Double] {
        let n = adjacency.vertexCount
        precondition(values.count == n * width)
        var a = values, b = values
        adjacency.offsets.withUnsafeBufferPointer { off in
            adjacency.neighbors.withUnsafeBufferPointer { nb in
                for _ in 0..<rounds {
                    a.withUnsafeBufferPointer { src in
                        b.withUnsafeMutableBufferPointer { dst in
                            for v in 0..<n {
                                let lo = Int(off[v]), hi = Int(off[v + 1]), base = v * width
                                let scale = 1 / Double(hi - lo + 1)
                                for k in 0..<width { dst[base + k] = src[base + k] }
                                for j in lo..<hi {
                                    let u = Int(nb[j]) * width
                                    for k in 0..<width { dst[base + k] += src[u + k] }
                                }
                                for k in 0..<width { dst[base + k] *= scale }
                            }
                        }
                    }
                    swap(&a, &b)
                }
            }
        }
        return a
    }

    /// Cotangent weight of every adjacency entry (v → neighbors[k]): ½(cot α + cot β) of the angles
    /// opposite the edge, clamped at 0.
    static func cotangentWeights(_ mesh: Mesh, _ adj: Adjacency) -> [Double] {
        var w = [Double](repeating: 0, count: adj.neighbors.count)
        func slot(_ a: Int, _ b: UInt32) -> Int? {
            var lo = Int(adj.offsets[a]), hi = Int(adj.offsets[a + 1])
            while lo < hi {
                let mid = (lo + hi) / 2
                if adj.neighbors[mid] < b { lo = mid + 1 } else { hi = mid }
            }
            return lo < Int(adj.offsets[a + 1]) && adj.neighbors[lo] == b ? lo : nil
        }
        let p = mesh.positions
        for t in 0..<mesh.triangleCount {
            let (i, j, k) = mesh.triangle(t)
            let corners = [(i, j, k), (j, k, i), (k, i, j)]
            for (o, a, b) in corners {
                // Angle at o, opposite edge a–b.
                let u = SIMD3<Double>(p[Int(a)] - p[Int(o)]), v = SIMD3<Double>(p[Int(b)] - p[Int(o)])
                let cr = SIMD3<Double>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                let s = (cr * cr).sum().squareRoot()
                guard s > 1e-300 else { continue }
                let c = (u * v).sum() / s
                if let ab = slot(Int(a), b) { w[ab] += 0.5 * c }
                if let ba = slot(Int(b), a) { w[ba] += 0.5 * c }
            }
        }
        for k in w.indices where !(w[k] > 0) { w[k] = 0 }
        return w
    }
}
