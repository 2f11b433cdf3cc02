import Foundation
import Testing

/// `compare` across length units.
@Suite struct CompareCLITests {
    /// A face in metres against the same face in millimetres: refused (exit 2) naming the
    /// per-file unit that fixes it, also with --units (which applies to both); with each file's
    /// unit given, the distance is the face's own (under a micrometre).
    @Test func compareAcrossUnits() throws {
        let dir = tempDir()
        let metres = try scaledFace(1, in: dir, name: "m.obj")
        let millimetres = try scaledFace(1000, in: dir, name: "mm.obj")
        let plain = try runFacescan(["compare", metres, millimetres, "--samples", "2000"])
        expectOneLine(plain, status: 2, "m.obj", "1000× apart", "--units-b mm")
        #expect(plain.stdout.isEmpty)
        let both = try runFacescan(["compare", metres, millimetres, "--samples", "2000", "--units", "mm"])
        expectOneLine(both, status: 2, "1000× apart", "--units-a m")
        let told = try runFacescan(["compare", metres, millimetres, "--samples", "2000", "--units-b", "mm", "--json"])
        #expect(told.status == 0 && told.stderr.isEmpty, "\(told.stderr)")
        let rms = try #require(told.json?["rmsUm"] as? Double)
        #expect(rms < 1, "\(told.stdout)")
        // The other way round: A in millimetres, B in metres.
        let swapped = try runFacescan([
            "compare", millimetres, metres, "--samples", "2000", "--units-a", "mm", "--units-b", "m", "--json",
        ])
        #expect(swapped.status == 0 && (swapped.json?["maxUm"] as? Double ?? 1e9) < 10, "\(swapped.stdout)")
        // Each unit stated yet sizes 1000× apart: done as told, with a warning.
        let stated = try runFacescan([
            "compare", metres, millimetres, "--samples", "200", "--units-a", "m", "--units-b", "m",
        ])
        #expect(stated.status == 0 && stated.stderr.contains("1000× apart"), "\(stated.stderr)")
    }
}
