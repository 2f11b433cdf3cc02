import FaceScanKit
import Foundation

/// Writes captures with known ground truth for the benchmarks: the truth plus per-frame
/// distance-dependent sensor noise, a zero-mean low-frequency shape jitter along `jitter`, and a
/// share of bad frames — the kinds the gate sees (far, near, dark, limited tracking, expression)
/// and glitches it cannot see (a 3 mm shift, five times the noise).
struct SyntheticCapture {
    var truth: Mesh
    var jitter: [SIMD3<Float>]
    var frames = 120
    var noiseMm = 0.6
    var badShare = 0.25
    var glitchShare = 0.0
    var seed: UInt64 = 7
    var base64 = false

    /// Writes the capture; returns its size in bytes.
    func write(to path: String) -> Int {
        var rng = SplitMix64(seed: seed)
        var out = "{\"format\":\"facescan-capture\",\"version\":1,\"settings\":{},\"topology\":{\"triangleIndices\":["
        out += truth.triangles.map(String.init).joined(separator: ",") + "]},\"frames\":["
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var size = 0
        func put(_ s: String) {
            var s = s
            s.withUTF8 { size += Foundation.write(fd, $0.baseAddress, $0.count) }
        }
        put(out)
        let kinds = ["far", "near", "dark", "limited", "expression"]
        let yMax = truth.positions.map(\.y).max() ?? 0, yMin = truth.positions.map(\.y).min() ?? 0
        for f in 0..<frames {
            var kind = "good"
            if rng.nextUnit() < badShare {
                kind = kinds[Int(rng.nextUnit() * 5) % 5]
            } else if rng.nextUnit() < glitchShare {
                kind = rng.nextUnit() < 0.5 ? "shift" : "noisy"
            }
            var d = 0.32 + 0.16 * rng.nextUnit()
            if kind == "far" { d = 0.52 + 0.2 * rng.nextUnit() }
            if kind == "near" { d = 0.18 + 0.1 * rng.nextUnit() }
            let light = kind == "dark" ? 80 + 370 * rng.nextUnit() : 700 + 900 * rng.nextUnit()
            let sigma = Float(noiseMm * 1e-3 * (d / 0.4) * (d / 0.4) * (kind == "noisy" ? 5 : 1))
            let w = Float(rng.gaussian() * 0.04)
            var xyz: [Float] = []
            xyz.reserveCapacity(3 * truth.vertexCount)
            for (v, p) in truth.positions.enumerated() {
                var q = p + w * jitter[v]
                if kind == "expression" {
                    // Jaw drop: the lower face moves down and back.
                    let t = max(0, (yMin + 0.45 * (yMax - yMin) - p.y) / (yMax - yMin))
                    q += SIMD3(0, -0.03, -0.01) * t
                }
                if kind == "shift" { q.z += 0.003 }
                xyz += [
                    q.x + sigma * Float(rng.gaussian()), q.y + sigma * Float(rng.gaussian()),
                    q.z + sigma * Float(rng.gaussian()),
                ]
            }
            var fr = f == 0 ? "{" : ",{"
            fr += String(
                format: "\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,%.4f,%.4f,%.5f,1],", 0.02 * rng.gaussian(),
                0.02 * rng.gaussian(), -d)
            fr +=
                "\"trackingState\":\"\(kind == "limited" ? "limited" : "normal")\",\"ambientIntensity\":\(String(format: "%.1f", light)),"
            fr +=
                "\"blendShapes\":{\"jawOpen\":\(kind == "expression" ? 0.7 : 0.02),\"mouthSmileLeft\":0.05,\"mouthSmileRight\":0.05,\"browInnerUp\":0.01},"
            if base64 {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(4 * xyz.count)
                for v in xyz { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
                fr += "\"verticesBase64\":\"" + Data(bytes).base64EncodedString() + "\"}"
            } else {
                fr += "\"vertices\":[" + xyz.map { String(format: "%.6g", Double($0)) }.joined(separator: ",") + "]}"
            }
            put(fr)
        }
        put("]}")
        close(fd)
        return size
    }
}
