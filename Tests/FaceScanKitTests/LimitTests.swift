import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanCore
@testable import FaceScanDecimate
@testable import FaceScanKit

/// The README's limits (issue 59): each is accepted at the limit and refused one past it, up
/// front, with a one-line message naming the file, the frame and the field where there is one.
/// What the limits cost (time and memory at each): docs/PERFORMANCE.md, *Limits*.
@Suite struct LimitTests {
    /// A one-triangle capture whose one frame has `vertices` vertices as base64 float32 (or as
    /// JSON numbers), every position 0 but the triangle's.
    static func capture(vertices: Int, base64: Bool) -> [UInt8] {
        var header = Array(
            "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[0,1,2]},\"frames\":["
                .utf8)
        if base64 {
            var floats = [Float](repeating: 0, count: 3 * vertices)
            floats[3] = 0.01
            floats[7] = 0.01
            let data = floats.withUnsafeBytes { Data($0) }
            header +=
                Array("{\"verticesBase64\":\"".utf8) + Array(data.base64EncodedString().utf8) + Array("\"}]}".utf8)
        } else {
            header += Array("{\"vertices\":[0,0,0,0.01,0,0,0,0.01,0".utf8)
            header.reserveCapacity(header.count + 2 * 3 * vertices + 8)
            for _ in 3..<vertices { header += [0x2C, 0x30, 0x2C, 0x30, 0x2C, 0x30] }  // ,0,0,0
            header += Array("]}]}".utf8)
        }
        return header
    }

    static func readFirstFrame(_ bytes: [UInt8], name: String = "cap.json") throws(InputError) -> Int {
        let reader = CaptureReader(bytes: bytes, name: name)
        try reader.readHeader()
        var frame = Frame()
        _ = try reader.nextFrame(&frame)
        return frame.xyz.count / 3
    }

    @Test(arguments: [true, false]) func frameVerticesAtTheLimitAndOnePast(base64: Bool) throws {
        let limit = CaptureReader.maxVertices
        #expect(try Self.readFirstFrame(Self.capture(vertices: limit, base64: base64)) == limit)
        do {
            _ = try Self.readFirstFrame(Self.capture(vertices: limit + 1, base64: base64))
            Issue.record("a frame of \(limit + 1) vertices was read")
        } catch {
            #expect(error.file == "cap.json" && error.frame == 0, "\(error)")
            #expect(error.field == (base64 ? "verticesBase64" : "vertices"), "\(error)")
            #expect(
                error.description.contains("more than 500 000 vertices, facescan's limit for a capture frame"),
                "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func triangleIndicesAtTheLimitAndOnePast() throws {
        let limit = CaptureReader.maxTriangleIndices / 3
        func topology(_ triangles: Int) -> [UInt8] {
            var text = Array(
                "{\"format\":\"facescan-capture\",\"version\":1,\"topology\":{\"triangleIndices\":[0,1,2".utf8)
            text.reserveCapacity(6 * triangles + 64)
            for _ in 1..<triangles { text += [0x2C, 0x30, 0x2C, 0x31, 0x2C, 0x32] }  // ,0,1,2
            return text + Array("]},\"frames\":[]}".utf8)
        }
        let reader = CaptureReader(bytes: topology(limit), name: "cap.json")
        try reader.readHeader()
        #expect(reader.topology?.triangles.count == 3 * limit)
        do {
            try CaptureReader(bytes: topology(limit + 1), name: "cap.json").readHeader()
            Issue.record("\(limit + 1) triangles were read")
        } catch {
            #expect(error.field == "topology.triangleIndices", "\(error)")
            #expect(
                error.description.contains("more than 1 000 000 triangles, facescan's limit for a capture"), "\(error)")
        }
    }

    /// Frames an app builds get the same limits from a `FaceScanSession` as the reader gives a
    /// capture file: a topology of one triangle more than the limit is refused at `init`, a frame
    /// of one vertex more at `add`, with the reader's message.
    @Test func sessionFramesAtTheLimitAndOnePast() throws {
        let limit = CaptureReader.maxTriangleIndices / 3
        let many = [UInt32](repeating: 0, count: 3 * limit) + [0, 1, 2]
        do {
            _ = try FaceScanSession(topology: Topology(triangles: many))
            Issue.record("a topology of \(limit + 1) triangles was accepted")
        } catch {
            #expect(error.description.contains("topology.triangleIndices"), "\(error)")
            #expect(error.description.contains("more than 1 000 000 triangles, facescan's limit"), "\(error)")
        }
        _ = try FaceScanSession(topology: Topology(triangles: Array(many.dropLast(3))))
        var session = try FaceScanSession(topology: Topology(triangles: [0, 1, 2]))
        var xyz = [Float](repeating: 0, count: 3 * (CaptureReader.maxVertices + 1))
        xyz[3] = 0.01
        xyz[7] = 0.01
        let meta = FrameMetadata(distance: 0.4, ambientIntensity: 1000)
        do {
            _ = try session.add(Frame(xyz: xyz, metadata: meta))
            Issue.record("a frame of \(CaptureReader.maxVertices + 1) vertices was accepted")
        } catch {
            #expect(error.description.contains("frame 0"), "\(error)")
            #expect(error.description.contains("more than 500 000 vertices, facescan's limit"), "\(error)")
        }
        // At the limit the frame is taken.
        _ = try session.add(Frame(xyz: Array(xyz.dropLast(3)), metadata: meta))
        #expect(session.vertexCount == CaptureReader.maxVertices)
    }

    /// A file of exactly 256 MiB is read (a small capture padded with spaces); one byte more is
    /// refused from its size before anything is read; a stream, as soon as it passes the limit.
    @Test func captureBytesAtTheLimitAndOnePast() throws {
        let dir = NSTemporaryDirectory() + "facescan-limit-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var bytes = Self.capture(vertices: 3, base64: false)
        bytes += [UInt8](repeating: 0x20, count: CaptureReader.maxBytes - bytes.count)
        let path = dir + "/limit.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let reader = try CaptureReader(path: path)
        try reader.readHeader()
        var frame = Frame()
        #expect(try reader.nextFrame(&frame) && frame.xyz.count == 9)
        #expect(try !reader.nextFrame(&frame))
        try reader.finish()
        // One byte more, as a file: refused up front, from its size.
        let over = dir + "/over.json"
        bytes.append(0x20)
        #expect(FileManager.default.createFile(atPath: over, contents: Data(bytes)))
        do {
            try CaptureReader(path: over).readHeader()
            Issue.record("a capture of \(bytes.count) bytes was read")
        } catch let error as InputError {
            #expect(error.file == over && error.frame == nil, "\(error)")
            #expect(error.description.contains("larger than 256 MiB, facescan's limit for a capture"), "\(error)")
        }
        // In memory: the same rule.
        do {
            try CaptureReader(bytes: bytes, name: "mem.json").readHeader()
            Issue.record("a capture of \(bytes.count) bytes in memory was read")
        } catch {
            #expect(error.description.contains("larger than 256 MiB"), "\(error)")
        }
    }

    @Test func targetVerticesAtTheLimitAndOnePast() throws {
        let limit = Decimation.maximumTargetVertices
        #expect(limit == 500_000)
        try ScanSettings(targetVertices: limit).validate()
        do {
            try ScanSettings(targetVertices: limit + 1).validate()
            Issue.record("\(limit + 1) vertices accepted")
        } catch {
            #expect(error.description.contains("targetVertices must be from 4 to 500000"), "\(error)")
        }
    }
}
