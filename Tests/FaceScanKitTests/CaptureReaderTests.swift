import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanKit

/// Reads every frame of a capture file.
private func readAll(_ path: String) throws -> (reader: CaptureReader, frames: [Frame]) {
    let r = try CaptureReader(path: path)
    try r.readHeader()
    var out: [Frame] = []
    var f = Frame()
    while try r.nextFrame(&f) { out.append(f) }
    try r.finish()
    return (r, out)
}

private func expectInputError(
    _ text: String, frame: Int? = nil, field: String? = nil, containing: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let dir = makeTempDir()
    let path = dir + "/bad.json"
    writeText(text, to: path)
    do {
        _ = try readAll(path)
        Issue.record("no error for \(text.prefix(80))", sourceLocation: sourceLocation)
    } catch let e as InputError {
        #expect(e.file == path, sourceLocation: sourceLocation)
        #expect(e.frame == frame, "\(e)", sourceLocation: sourceLocation)
        if let field { #expect(e.field == field, "\(e)", sourceLocation: sourceLocation) }
        if let containing { #expect(e.description.contains(containing), "\(e)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct CaptureReaderTests {
    @Test func readsDocumentAndNDJSONAlike() throws {
        var b = CaptureBuilder()
        b.uvs = [0, 0, 1, 0, 0, 1, 1, 1]
        b.settings = "{\"quality\":\"low\",\"maxFrames\":7,\"unknownKey\":[1,{\"a\":2}]}"
        b.frames = [
            CaptureBuilder.frame(vertices: CaptureBuilder.square),
            CaptureBuilder.frame(vertices: CaptureBuilder.square.map { $0 + 0.5 }),
        ]
        let dir = makeTempDir()
        writeText(b.json, to: dir + "/a.json")
        writeText(b.ndjson, to: dir + "/a.ndjson")
        let (r1, f1) = try readAll(dir + "/a.json")
        let (r2, f2) = try readAll(dir + "/a.ndjson")
        #expect(f1.count == 2)
        #expect(f1.map(\.xyz) == f2.map(\.xyz))
        #expect(f1[1].xyz[0] == 0.5)
        #expect(r1.topology == r2.topology)
        #expect(r1.topology?.triangles == [0, 1, 2, 2, 1, 3])
        #expect(r1.topology?.textureCoordinates?.count == 8)
        let s1 = try CaptureSettings(r1.settings)
        #expect(s1.quality == .low && s1.maxFrames == 7)
        #expect(r1.vertexCount == 4)
        let d = try #require(f1[0].metadata.distance)
        #expect(abs(d - 0.4) < 1e-12)
        #expect(f1[0].metadata.jawOpen == 0.1)
    }

    @Test func acceptsKeysInAnyOrderAndFramesFirst() throws {
        let frame = CaptureBuilder.frame(
            vertices: CaptureBuilder.square, extra: "\"zzz\":{\"nested\":[1,2,{\"x\":\"}\"}]},\"distance\":0.35")
        let text =
            "{\"frames\":[\(frame),\(frame)],\"unknown\":\"x\",\"topology\":{\"textureCoordinates\":[0,0,1,0,0,1,1,1],\"triangleIndices\":[0,1,2]},\"version\":1,\"settings\":{\"maxDistance\":0.6},\"format\":\"facescan-capture\"}"
        let dir = makeTempDir()
        writeText(text, to: dir + "/c.json")
        let (r, f) = try readAll(dir + "/c.json")
        #expect(f.count == 2)
        #expect(try CaptureSettings(r.settings).gate.maxDistance == 0.6)
        #expect(f[1].metadata.distance == 0.35)
        #expect(f[1].index == 1)
    }

    @Test func base64FramesEqualNumberFrames() throws {
        let values: [Float] = [0.0123, -0.5, 1e-7, 3.25, 0, 1, 2, 3, 4, 5, 6, 7]
        var bytes: [UInt8] = []
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        let b64 = Data(bytes).base64EncodedString()
        var b = CaptureBuilder()
        b.frames = [
            "{\"verticesBase64\":\"\(b64)\"}", "{\"vertices\":[\(values.map { "\($0)" }.joined(separator: ","))]}",
        ]
        let dir = makeTempDir()
        writeText(b.ndjson, to: dir + "/b.ndjson")
        let (_, f) = try readAll(dir + "/b.ndjson")
        #expect(f[0].xyz == values)
        #expect(f[1].xyz == values)
    }

    @Test func longArraysAcrossChunkBoundaries() throws {
        // 300 000 vertices: the vertex array spans several 1 MiB read chunks.
        let n = 300_000
        var rng = TestRNG(seed: 1)
        let xyz = (0..<(3 * n)).map { _ in Float.random(in: -0.1...0.1, using: &rng) }
        var b = CaptureBuilder()
        b.triangles = [0, 1, 2]
        b.frames = ["{\"vertices\":[\(xyz.map { "\($0)" }.joined(separator: ", "))]}"]
        let dir = makeTempDir()
        writeText(b.json, to: dir + "/big.json")
        let (_, f) = try readAll(dir + "/big.json")
        #expect(f[0].xyz == xyz)
    }

    @Test func badInputsNameFileFrameAndField() {
        var b = CaptureBuilder()
        b.frames = [CaptureBuilder.frame(vertices: CaptureBuilder.square)]
        let good = CaptureBuilder.frame(vertices: CaptureBuilder.square)
        func doc(_ frames: [String], topology: String = "{\"triangleIndices\":[0,1,2,2,1,3]}") -> String {
            "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":\(topology),\"frames\":[\(frames.joined(separator: ","))]}"
        }
        expectInputError("", containing: "empty")
        expectInputError("hello", containing: "expected a JSON object")
        expectInputError(String(b.json.dropLast(30)), frame: 0)
        expectInputError(b.json.replacingOccurrences(of: "facescan-capture", with: "other"), field: "format")
        expectInputError(
            b.json.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"), field: "version",
            containing: "version 2")
        expectInputError("{\"format\":\"facescan-capture\",\"version\":1,\"frames\":[\(good)]}", field: "topology")
        expectInputError(
            doc([good], topology: "{\"triangleIndices\":[0,1,7]}"), field: "topology.triangleIndices",
            containing: "out of range")
        expectInputError(
            doc([good], topology: "{\"triangleIndices\":[0,-1,2]}"), field: "topology.triangleIndices",
            containing: "negative")
        expectInputError(
            doc([good], topology: "{\"triangleIndices\":[0,1.5,2]}"), field: "topology.triangleIndices",
            containing: "integer")
        expectInputError(
            doc([good], topology: "{\"triangleIndices\":[0,1,2,3]}"), field: "topology.triangleIndices",
            containing: "multiple of 3")
        expectInputError(
            doc([good, CaptureBuilder.frame(vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0])]), frame: 1, field: "vertices",
            containing: "first frame")
        expectInputError(
            doc([CaptureBuilder.frame(vertices: [0, 0, 0, 1])]), frame: 0, field: "vertices",
            containing: "multiple of 3")
        expectInputError(
            doc([good, good.replacingOccurrences(of: "[0.0,0.0", with: "[NaN,0.0")]), frame: 1, field: "vertices")
        expectInputError(
            doc([good.replacingOccurrences(of: "[0.0,0.0", with: "[1e999,0.0")]), frame: 0, field: "vertices",
            containing: "out of range")
        expectInputError(
            doc([good.replacingOccurrences(of: "[0.0,0.0", with: "[\"0\",0.0")]), frame: 0, field: "vertices",
            containing: "found a string")
        expectInputError(
            doc(["{\"verticesBase64\":\"AAA*\"}"]), frame: 0, field: "verticesBase64", containing: "base64")
        expectInputError(doc(["{\"verticesBase64\":\"AAAAAA==\"}"]), frame: 0, field: "verticesBase64")
        expectInputError(
            doc([good.replacingOccurrences(of: "0,0,-0.4,1]", with: "0,-0.4]")]), frame: 0, field: "transform",
            containing: "16")
        expectInputError(
            doc([good.replacingOccurrences(of: "\"normal\"", with: "\"great\"")]), frame: 0, field: "trackingState",
            containing: "great")
        expectInputError(
            doc([good.replacingOccurrences(of: "\"jawOpen\":0.1", with: "\"jawOpen\":1.3")]), frame: 0,
            field: "blendShapes.jawOpen", containing: "0…1")
        expectInputError(doc(["{\"distance\":0.4}"]), frame: 0, field: "vertices", containing: "missing")
        expectInputError(doc([good]) + "garbage", containing: "unexpected content")
    }

    /// Small read chunks (tokens, escapes and skipped values straddling refills) read the same.
    @Test func smallReadChunksReadTheSame() throws {
        var b = CaptureBuilder()
        b.uvs = [0, 0, 1, 0, 0, 1, 1, 1]
        b.settings = "{\"quality\":\"low\",\"unknown\":[\"a\\u0041\\n\",{\"b\":[[],{},true,null,-1.5e-3]}]}"
        b.frames = (0..<40).map { i in
            CaptureBuilder.frame(
                vertices: CaptureBuilder.square.map { $0 + Double(i) * 0.001 },
                extra: "\"note\":\"frame \\\"\(i)\\\" \\ud83d\\ude00\",\"skip\":{\"k\":[1,2,{\"x\":\"}]\"}]}")
        }
        let dir = makeTempDir()
        for (file, text) in [("c.json", b.json), ("c.ndjson", b.ndjson)] {
            writeText(text, to: dir + "/" + file)
            let (_, whole) = try readAll(dir + "/" + file)
            #expect(whole.count == 40)
            for chunk in [1089, 1100, 1237, 1500] {
                let r = try CaptureReader(path: dir + "/" + file, chunkSize: chunk)
                try r.readHeader()
                var f = Frame()
                var xyz: [[Float]] = []
                while try r.nextFrame(&f) { xyz.append(f.xyz) }
                try r.finish()
                #expect(xyz == whole.map(\.xyz), "\(file), chunk \(chunk)")
            }
        }
    }

    /// Ignored values are still checked for well-formed JSON (matching brackets, `key: value`
    /// members, escapes), and duplicate top-level keys are refused.
    @Test func skippedValuesMustBeWellFormed() {
        let good = CaptureBuilder.frame(vertices: CaptureBuilder.square)
        func doc(extra: String) -> String {
            "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[0,1,2]},\(extra),\"frames\":[\(good)]}"
        }
        for bad in ["[1,2}", "{\"a\":1,\"b\"}", "[1,\"a\":2]", "{\"a\" 1}", "\"\\q\"", "\"\\u12\"", "[tru]", "{1:2}"] {
            expectInputError(doc(extra: "\"x\":" + bad), field: "x")
        }
        expectInputError(doc(extra: "\"format\":\"facescan-capture\""), field: "format", containing: "twice")
        expectInputError(
            "{\"frames\":[\(good)],\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[0,1,2]},\"frames\":[]}",
            field: "frames", containing: "twice")
    }
}
