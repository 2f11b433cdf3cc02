import Testing

@testable import FaceScanKit

/// The library on meshes whose coordinates reach ±3.4e38: every result is finite or an error.
@Suite struct FloatLimitTests {
    /// An octahedron of radius `r` (6 vertices, 8 triangles).
    static func octahedron(_ r: Float) throws(FaceScanError) -> Mesh {
        let p: [SIMD3<Float>] = [[r, 0, 0], [-r, 0, 0], [0, r, 0], [0, -r, 0], [0, 0, r], [0, 0, -r]]
        let t: [UInt32] = [0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5]
        return try Mesh(positions: p, triangles: t)
    }

    @Test func normalsAreUnitAtTheFloatLimit() throws {
        let m = try Self.octahedron(.greatestFiniteMagnitude)
        for n in m.vertexNormals() + (0..<m.triangleCount).map(m.faceNormal) {
            #expect(abs((n * n).sum() - 1) < 1e-5, "\(n)")
        }
        #expect(MeshCheck(m).degenerateTriangles == 0)
    }

    /// Refinement and decimation near the float limit give the mesh of the working size (an exact
    /// power of two smaller), scaled back.
    @Test func simplifyWorksAtTheWorkingSize() throws {
        let k = 103
        let big = try Self.octahedron(Float(sign: .plus, exponent: 126, significand: 1))
        let small = try Self.octahedron(Float(sign: .plus, exponent: 126 - k, significand: 1))
        #expect(Mesh.workingExponent(big.largestMagnitude) == k)
        let a = try Decimation.simplify(big, targetVertices: 40)
        let b = try Decimation.simplify(small, targetVertices: 40)
        #expect(a.vertexCount == 40 && a.firstNonFiniteVertex == nil)
        #expect(a == b.scaled(byPowerOfTwo: k))
        let c = try Decimation.simplify(a, targetVertices: 20)
        #expect(c == (try Decimation.simplify(b, targetVertices: 20)).scaled(byPowerOfTwo: k))
        // At ±3.4e38: finite, or refused when a new point would leave the float range.
        for target in [5, 40, 300] {
            let r = Result { () throws(FaceScanError) in
                try Decimation.simplify(try Self.octahedron(.greatestFiniteMagnitude), targetVertices: target)
            }
            switch r {
            case .success(let m): #expect(m.vertexCount == target && m.firstNonFiniteVertex == nil)
            case .failure(let e): #expect("\(e)".hasPrefix("cannot reach \(target) vertices"), "\(e)")
            }
        }
    }

    /// Every writer either writes the mesh or refuses; none writes a non-finite number.
    @Test(arguments: MeshFormat.allCases)
    func everyFormatWritesFiniteOrRefuses(_ format: MeshFormat) throws {
        let m = try Self.octahedron(.greatestFiniteMagnitude)
        for unit in [LengthUnit.mm, .m] {
            let r = Result { () throws(FaceScanError) in
                let bytes = try m.encoded(as: format, unit: unit)
                // USDZ is written only: USDZTests reads its points back (finite at this size too).
                guard format.isReadable else { return m }
                return try Mesh(bytes: bytes, format: format, unit: unit)
            }
            switch r {
            case .success(let back):
                #expect(back.firstNonFiniteVertex == nil && back.vertexCount == 6, "\(format) \(unit)")
            case .failure(.unavailable): break  // the format's library is not in this build
            case .failure(let e): #expect("\(e)".contains("scale the mesh down"), "\(format) \(unit): \(e)")
            }
        }
    }

    @Test func surfaceDistanceIsScaledBack() throws {
        let k = 100
        let a = try Self.octahedron(1), b = try Self.octahedron(1.01)
        let near = SurfaceDistance.symmetric(a, b, samplesPerMesh: 2000)
        let far = SurfaceDistance.symmetric(
            a.scaled(byPowerOfTwo: k), b.scaled(byPowerOfTwo: k), samplesPerMesh: 2000)
        let f = Double(sign: .plus, exponent: k, significand: 1)
        #expect(abs(far.rms / f - near.rms) <= 1e-6 * near.rms, "\(far.rms / f) vs \(near.rms)")
        #expect(far.max.isFinite && far.max > 0)
    }
}
