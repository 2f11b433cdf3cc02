import FaceScanCore

extension Solidify {
    /// The `solid` fuzz target's byte layout, decoded (Tests/Fuzz/FuzzSolid.swift replays it, and
    /// `facescan-bench fuzz-solids` times its corpus with it: one decoding for both).
    ///
    /// Layout: `[vertex count, extent, options, then 3 lattice bytes per vertex, then triangles
    /// as 3 index bytes each, the first byte's top bit flipping the triangle]`. The vertices are
    /// points of a 32-point lattice scaled to the extent (1 mm to 2 m); the triangles are picked
    /// by the bytes (repeated, flipped, degenerate: the mesh is not checked beyond its indices).
    package struct FuzzInput: Sendable {
        /// The surface.
        package var mesh: Mesh
        /// The options the flags byte chose.
        package var options: SolidOptions
        /// The vertex count asked, when the flags byte asks one.
        package var vertexCount: Int?

        /// The input `bytes` encode; nil when they encode none (fewer than 3 bytes, fewer than
        /// 2 vertices, no triangle, or an index the mesh refuses).
        package static func decode(_ bytes: [UInt8]) -> FuzzInput? {
            guard bytes.count >= 3 else { return nil }
            var at = 3
            func next() -> UInt8? {
                guard at < bytes.count else { return nil }
                defer { at += 1 }
                return bytes[at]
            }
            let n = 2 + Int(bytes[0]) % 199
            let extent = Float(extentMillimetres(bytes[1]))
            var positions: [SIMD3<Float>] = []
            for _ in 0..<n {
                guard let x = next(), let y = next(), let z = next() else { break }
                positions.append(SIMD3(Float(x % 32), Float(y % 32), Float(z % 32)) * (extent / 31))
            }
            guard positions.count >= 2 else { return nil }
            var triangles: [UInt32] = []
            while let a = next(), let b = next(), let c = next(), triangles.count < 3 * 400 {
                let (i, j, k) = (
                    UInt32(Int(a & 0x7f) % positions.count), UInt32(Int(b) % positions.count),
                    UInt32(Int(c) % positions.count)
                )
                triangles += a & 0x80 == 0 ? [i, j, k] : [i, k, j]
            }
            guard !triangles.isEmpty, let mesh = try? Mesh(positions: positions, triangles: triangles) else {
                return nil
            }
            let (options, count) = options(flags: bytes[2], extentByte: bytes[1])
            return FuzzInput(mesh: mesh, options: options, vertexCount: count)
        }

        /// The options of a flags byte (wall, shell or relief, cut depth, fit, align, and a
        /// vertex count from the extent byte).
        package static func options(flags: UInt8, extentByte: UInt8) -> (SolidOptions, Int?) {
            let options = SolidOptions(
                thickness: [1, 2, 5, 20][Int(flags & 3)], base: flags & 4 != 0,
                depth: [60, 5, 200, 1][Int(flags >> 3 & 3)],
                fit: flags & 32 != 0 ? SIMD3(180, 180, 180) : nil, align: flags & 64 == 0)
            return (options, flags & 128 != 0 ? 300 + Int(extentByte) * 8 : nil)
        }

        /// The extent of an extent byte: 10^(byte / 255 · 3.301) mm, 1 mm to 2 m (10^x by its
        /// series, the same on every platform).
        package static func extentMillimetres(_ byte: UInt8) -> Double {
            let x = Double(byte) / 255 * 3.301
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
    }
}
