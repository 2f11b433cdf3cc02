import Foundation

@testable import FaceScanKit

/// This test process's scratch directory, removed with everything in it when the process exits.
let testScratchRoot: String = {
    let root = FileManager.default.temporaryDirectory.path + "/facescan-tests-\(getpid())"
    try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testScratchRoot) }
    return root
}()

/// A fresh temporary directory for one test (inside ``testScratchRoot``).
func makeTempDir(_ tag: String = #function) -> String {
    let dir = "\(testScratchRoot)/\(UInt64.random(in: 0...UInt64.max))"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func writeText(_ text: String, to path: String) {
    try! text.write(toFile: path, atomically: false, encoding: .utf8)
}

/// Deterministic PRNG for tests.
typealias TestRNG = SplitMix64

/// A small capture writer for tests: one triangle pair (a unit square) and chosen frames.
struct CaptureBuilder {
    var triangles: [Int] = [0, 1, 2, 2, 1, 3]
    var uvs: [Double]? = nil
    var settings: String? = nil
    var frames: [String] = []

    static func frame(
        vertices: [Double],
        extra: String =
            "\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,-0.4,1],\"trackingState\":\"normal\",\"ambientIntensity\":1000,\"blendShapes\":{\"jawOpen\":0.1}"
    ) -> String {
        "{\"vertices\":[\(vertices.map { "\($0)" }.joined(separator: ","))]\(extra.isEmpty ? "" : "," + extra)}"
    }

    static let square: [Double] = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]

    func header(includeFrames: Bool) -> String {
        var parts = ["\"format\":\"facescan-capture\"", "\"version\":1"]
        if let settings { parts.append("\"settings\":\(settings)") }
        var topo = "\"triangleIndices\":[\(triangles.map(String.init).joined(separator: ","))]"
        if let uvs { topo += ",\"textureCoordinates\":[\(uvs.map { "\($0)" }.joined(separator: ","))]" }
        parts.append("\"topology\":{\(topo)}")
        if includeFrames { parts.append("\"frames\":[\(frames.joined(separator: ","))]") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    var json: String { header(includeFrames: true) }
    var ndjson: String { ([header(includeFrames: false)] + frames).joined(separator: "\n") + "\n" }
}

extension RGBAImage {
    /// Fraction of pixels with non-zero alpha.
    var coverage: Double {
        var n = 0
        var i = 3
        while i < pixels.count {
            if pixels[i] != 0 { n += 1 }
            i += 4
        }
        return Double(n) / Double(width * height)
    }

    /// The image flipped left to right.
    func mirrored() -> RGBAImage {
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let s = 4 * (y * width + x), d = 4 * (y * width + width - 1 - x)
                for k in 0..<4 { out[d + k] = pixels[s + k] }
            }
        }
        return RGBAImage(uncheckedWidth: width, height: height, pixels: out)
    }
}

/// The triangles of a `side` × `side` grid of vertices numbered row by row, two per cell,
/// counter-clockwise seen from +z.
func gridTriangles(side: Int) -> [UInt32] {
    var tris: [UInt32] = []
    for y in 0..<(side - 1) {
        for x in 0..<(side - 1) {
            let a = UInt32(y * side + x), b = a + 1, c = a + UInt32(side), d = c + 1
            tris += [a, b, c, c, b, d]
        }
    }
    return tris
}
