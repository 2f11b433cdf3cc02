import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanKit

/// `verticesBase64` written with legal JSON escapes (`\/` as PHP's json_encode writes it, `\uXXXX`)
/// reads as the same floats as the plain text, in small and default read chunks.
@Suite struct CaptureEscapeTests {
    private func frames(_ text: String, chunkSize: Int) throws -> [[Float]] {
        let path = NSTemporaryDirectory() + "facescan-escape-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { unlink(path) }
        let r = try CaptureReader(path: path, chunkSize: chunkSize)
        try r.readHeader()
        var f = Frame()
        var out: [[Float]] = []
        while try r.nextFrame(&f) { out.append(f.xyz) }
        return out
    }

    @Test func escapedBase64ReadsLikePlain() throws {
        // Values chosen so the base64 text holds '/' and '+'.
        let xyz: [Float] = [0.1, -0.25, -0.4, 1e-3, 0.5, -0.41, -0.75, 0.2, -0.39]
        let bytes = xyz.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
        let plain = Data(bytes).base64EncodedString()
        var escaped = plain.replacingOccurrences(of: "/", with: "\\/")
        escaped = "\\u00" + String(plain.utf8.first!, radix: 16) + escaped.dropFirst()
        #expect(plain.contains("/") || plain.contains("+"))
        func doc(_ b64: String) -> String {
            #"{"format":"facescan-capture","version":1,"topology":{"triangleIndices":[0,1,2]},"frames":[{"verticesBase64":""#
                + b64 + #""},{"verticesBase64":""# + b64 + #""}]}"#
        }
        for chunk in [1100, 1 << 20] {
            let a = try frames(doc(plain), chunkSize: chunk), b = try frames(doc(escaped), chunkSize: chunk)
            #expect(a.count == 2 && a[0] == xyz)
            #expect(b == a, "chunk \(chunk)")
        }
        // An escape that decodes to a byte outside base64 is still refused, naming the frame.
        let bad = doc(plain).replacingOccurrences(
            of: "\"verticesBase64\":\"" + plain, with: "\"verticesBase64\":\"\\u0021" + plain.dropFirst())
        #expect(throws: InputError.self) { try frames(bad, chunkSize: 1 << 20) }
    }
}
