import Testing

@testable import FaceScanKit

/// The odd surfaces whose solid step had no bounded cost (issue 46): each gives a clean part or a
/// typed refusal. Their speed is measured in docs/PERFORMANCE.md (*Solid step: bounded cost*),
/// not here.
@Suite struct SolidBoundedTests {
    /// A `nx` × `ny` grid over 150 × 200 mm, z from `height(u, v)` (u, v in [−½, ½]), in mm.
    func grid(_ nx: Int, _ ny: Int, _ height: (Double, Double) -> Double) -> Mesh {
        var positions: [SIMD3<Float>] = []
        var triangles: [UInt32] = []
        for j in 0..<ny {
            for i in 0..<nx {
                let u = Double(i) / Double(nx - 1) - 0.5, v = Double(j) / Double(ny - 1) - 0.5
                positions.append(SIMD3(Float(u * 150), Float(v * 200), Float(height(u, v))))
            }
        }
        for j in 0..<(ny - 1) {
            for i in 0..<(nx - 1) {
                let a = UInt32(j * nx + i), b = a + 1, c = a + UInt32(nx), d = c + 1
                triangles += [a, b, d, a, d, c]
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    func expectClean(_ part: Solidify.Part, _ label: String) {
        let c = MeshCheck(part.mesh)
        #expect(c.isWatertight && c.isClean, "\(label): \(c.summary)")
        #expect(MeshInspection.signedVolume(part.mesh) > 0, "\(label)")
    }

    /// The 4 × 4 bowl of the issue: a shell and a relief, and as a 40-vertex part.
    @Test func coarseBowlBecomesAPart() throws {
        let bowl = grid(4, 4) { u, v in 50 - 100 * (u * u + v * v) }
        for base in [false, true] {
            let part = try Solidify.makePart(bowl, options: SolidOptions(base: base), unitInMillimetres: 1)
            expectClean(part, "base \(base)")
        }
        do throws(SolidError) {
            let part = try Solidify.makePart(bowl, options: SolidOptions(), unitInMillimetres: 1, vertexCount: 40)
            expectClean(part, "40 vertices")
            #expect(part.mesh.vertexCount == 40)
        } catch {
            // A refusal is typed and names no flag.
            #expect(!error.message.contains("--"), "\(error.message)")
        }
    }

    /// One triangle as a shell: a part, closed and clean.
    @Test func singleTriangleBecomesAShell() throws {
        let triangle = Mesh(
            uncheckedPositions: [SIMD3(0, 0, 0), SIMD3(100, 0, 0), SIMD3(0, 100, 10)], triangles: [0, 1, 2])
        expectClean(try Solidify.makePart(triangle, options: SolidOptions(), unitInMillimetres: 1), "triangle")
    }

    /// Options are checked once, by their API names, fitMargin included.
    @Test func optionsAreNamedByTheirAPINames() {
        for (options, name) in [
            (SolidOptions(thickness: -1), "SolidOptions.thickness"), (SolidOptions(depth: 0), "SolidOptions.depth"),
            (SolidOptions(fitMargin: -1), "SolidOptions.fitMargin"),
            (SolidOptions(fit: SIMD3(10, 10, 10), fitMargin: 10), "SolidOptions.fit"),
        ] {
            #expect(throws: FaceScanError.self) { try options.validate() }
            do {
                _ = try Solidify.part(grid(3, 3) { _, _ in 0 }, options: options, unitInMillimetres: 1)
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.description.hasPrefix(name), "\(error.description)")
            }
        }
    }
}
