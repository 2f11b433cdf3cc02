import Foundation
import Testing

@testable import FaceScanCapture
@testable import FaceScanKit

private func base64(_ values: [Float]) -> String {
    var bytes: [UInt8] = []
    for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    return Data(bytes).base64EncodedString()
}

/// Runs the fast decoder on `text`; nil when it declines (invalid, or not whole finite floats).
private func fastDecode(_ text: String, into out: inout [Float], vector: Bool = true) -> Bool {
    let bytes = Array(text.utf8)
    return Base64.decodeFloats(bytes.flat, into: &out, vector: vector)
}

@Suite struct Base64FastPathTests {
    /// Random float counts (every tail shape: 0…3 trailing quanta, both paddings) and random bit
    /// patterns, against Foundation's decoder; with the vector kernel and with the scalar loop.
    @Test(arguments: [true, false])
    func matchesFoundationOnRandomInput(vector: Bool) {
        var rng = TestRNG(seed: 42)
        var out: [Float] = [1, 2, 3]  // reused storage, wrong size at first
        for _ in 0..<400 {
            let n = Int.random(in: 1...200, using: &rng)
            let values = (0..<n).map { _ in Float.random(in: -1000...1000, using: &rng) }
            let text = base64(values)
            let reference = Data(base64Encoded: text)!
            let expected = reference.withUnsafeBytes { raw in
                (0..<n).map {
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
                }
            }
            #expect(fastDecode(text, into: &out, vector: vector), "length \(text.count)")
            #expect(out.map(\.bitPattern) == expected.map(\.bitPattern), "n = \(n)")
        }
    }

    /// Every rejection of the checked decoder is a rejection of the fast one (vector kernel and
    /// scalar loop), at every position.
    @Test(arguments: [true, false])
    func rejectsWhatTheCheckedDecoderRejects(vector: Bool) {
        var rng = TestRNG(seed: 7)
        let values = (0..<27).map { _ in Float.random(in: -1...1, using: &rng) }
        let good = Array(base64(values).utf8)  // 108 bytes: 144 characters, no padding
        var out: [Float] = []
        var scratch: [UInt8] = []
        var rejected = 0
        for position in 0..<good.count {
            for bad in [UInt8(ascii: "*"), UInt8(ascii: "="), UInt8(ascii: "\\"), 0x00, 0xC3, UInt8(ascii: " ")] {
                var text = good
                text[position] = bad
                let fast = Base64.decodeFloats(text.flat, into: &out, vector: vector)
                let problem = Base64.decode(text, into: &scratch)
                #expect(!fast, "accepted \(JSONReader.describe(bad)) at \(position)")
                if bad == UInt8(ascii: "=") && position == good.count - 1 {
                    // Valid padding, but 107 bytes: not whole float32 values.
                    #expect(problem == nil && scratch.count == 107)
                } else {
                    #expect(problem != nil, "checked decoder accepted \(JSONReader.describe(bad)) at \(position)")
                    // (Foundation is lenient about '=' followed by one more character.)
                    #expect(
                        Data(base64Encoded: Data(text)) == nil || bad == UInt8(ascii: "="),
                        "Foundation accepted \(JSONReader.describe(bad)) at \(position)")
                }
                if !fast { rejected += 1 }
            }
        }
        #expect(rejected == good.count * 6)
        // Padding in the wrong place or of the wrong form; lengths not a multiple of 4.
        let padded = base64([1.5, 2.5])  // 8 bytes: "…=" padding
        #expect(padded.hasSuffix("="))
        #expect(fastDecode(padded, into: &out, vector: vector) && out == [1.5, 2.5])
        for text in [
            String(padded.dropLast()) + "A", String(padded.dropLast(2)) + "=A", padded + "=", String(padded.dropLast()),
            "AAAA=AAA", "====", "", "AAAAAAA=",
        ] {
            #expect(!fastDecode(text, into: &out, vector: vector), "accepted \(text)")
        }
        // Non-finite values are declined (the checked path names them).
        for v: Float in [.infinity, -.infinity, .nan] {
            #expect(!fastDecode(base64([0, 1, v, 2, 3, 4]), into: &out, vector: vector))
            #expect(!fastDecode(base64([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, v]), into: &out, vector: vector))
            // Long enough for full vector steps (AVX2: 6 floats, SSSE3: 3), the bad value in each.
            for at in [0, 5, 6, 17, 40] {
                var values = (0..<48).map { Float($0) }
                values[at] = v
                #expect(!fastDecode(base64(values), into: &out, vector: vector), "value \(v) at \(at)")
            }
        }
    }

    /// Frames whose base64 straddles read-buffer refills, or is longer than the buffer, decode
    /// the same as number arrays; errors still name the frame and the field.
    @Test func readerDecodesAcrossChunksAndNamesErrors() throws {
        var rng = TestRNG(seed: 3)
        var b = CaptureBuilder()
        b.triangles = [0, 1, 2]
        var expected: [[Float]] = []
        for i in 0..<12 {
            let n = 3 * (i % 3 == 0 ? 800 : 40 + i)  // 9600 bytes of text and more: longer than the 4 KiB chunks
            let values = (0..<n).map { _ in Float.random(in: -0.2...0.2, using: &rng) }
            expected.append(values)
            b.frames.append("{\"distance\":0.4,\"verticesBase64\":\"\(base64(values))\"}")
        }
        // Vertex counts differ by design here: read frame by frame without the count check.
        let dir = makeTempDir()
        for chunk in [4096, 1 << 20] {
            for (i, values) in expected.enumerated() {
                var one = b
                one.frames = [b.frames[i], b.frames[i]]
                writeText(one.ndjson, to: dir + "/f.ndjson")
                let r = try CaptureReader(path: dir + "/f.ndjson", chunkSize: chunk)
                try r.readHeader()
                var f = Frame()
                for _ in 0..<2 {
                    #expect(try r.nextFrame(&f))
                    #expect(f.xyz == values, "frame \(i), chunk \(chunk)")
                }
                #expect(try !r.nextFrame(&f))
            }
        }
        // 8 bytes (2 floats): not a multiple of 12 bytes.
        let cases: [(String, String)] = [
            (base64([1, 2]), "multiple of 3"), (base64([1, 2, 3, 4]), "multiple of 3"),
            (String(base64([1, 2, 3]).dropLast(4)) + "AA*A", "invalid base64: invalid character '*'"),
            (String(base64([1, 2, 3]).dropLast(4)) + "A=AA", "misplaced padding"),
            (String(base64([1, 2, 3]).dropLast(1)), "not a multiple of 4"),
            (base64([1, 2, .nan]), "not finite"),
        ]
        for (text, message) in cases {
            var bad = CaptureBuilder()
            bad.triangles = [0, 1, 2]
            bad.frames = [
                "{\"verticesBase64\":\"\(base64([0, 0, 0, 1, 0, 0, 0, 1, 0]))\"}", "{\"verticesBase64\":\"\(text)\"}",
            ]
            writeText(bad.json, to: dir + "/bad.json")
            do {
                let r = try CaptureReader(path: dir + "/bad.json")
                try r.readHeader()
                var f = Frame()
                while try r.nextFrame(&f) {}
                Issue.record("no error for \(text)")
            } catch let error as InputError {
                #expect(
                    error.frame == 1 && error.field == "verticesBase64" && error.message.contains(message), "\(error)")
            }
        }
    }
}

@Suite struct IngestThreadTests {
    /// A capture with accepted, rejected and outlier frames, read with 1 and 2 ingest threads
    /// (and several frame limits): the same mean, standard errors and counts, to the bit.
    @Test func oneAndTwoThreadsAgreeBitForBit() throws {
        var rng = TestRNG(seed: 11)
        let n = 300
        let base = (0..<(3 * n)).map { _ in Double.random(in: -0.1...0.1, using: &rng) }
        var b = CaptureBuilder()
        b.triangles = [0, 1, 2, 1, 2, 3]
        for i in 0..<40 {
            let shift = i % 13 == 5 ? 0.01 : 0  // a few glitches for the outlier test
            let xyz = base.map { $0 + shift + Double.random(in: -1e-3...1e-3, using: &rng) }
            let distance = i % 7 == 3 ? 0.9 : 0.4  // some rejected by the gate
            let vertices =
                i % 2 == 0
                ? "\"vertices\":[\(xyz.map { "\(Float($0))" }.joined(separator: ","))]"
                : "\"verticesBase64\":\"\(base64(xyz.map { Float($0) }))\""
            b.frames.append("{\"distance\":\(distance),\(vertices)}")
        }
        let dir = makeTempDir()
        writeText(b.json, to: dir + "/c.json")
        writeText(b.ndjson, to: dir + "/c.ndjson")
        for file in ["c.json", "c.ndjson"] {
            for maxFrames in [1, 7, 8, 9, 20, 1000] {
                for reject in [true, false] {
                    var results: [(Average, Report)] = []
                    for threads in [1, 2] {
                        var o = PipelineOptions()
                        o.maxFrames = maxFrames
                        o.rejectOutliers = reject
                        o.ingestThreads = threads
                        var r = Report(input: dir + "/" + file)
                        results.append((try ingest(dir + "/" + file, o, report: &r), r))
                    }
                    let (a, ra) = results[0], (c, rc) = results[1]
                    #expect(a.mesh.positions.map { $0.x.bitPattern } == c.mesh.positions.map { $0.x.bitPattern })
                    #expect(a.mesh.positions.map { $0.z.bitPattern } == c.mesh.positions.map { $0.z.bitPattern })
                    #expect(a.standardErrors?.map(\.bitPattern) == c.standardErrors?.map(\.bitPattern))
                    #expect(ra.frames == rc.frames, "\(file) maxFrames \(maxFrames)")
                    #expect(ra.frames.accepted == min(maxFrames, 34))
                    if reject && maxFrames == 1000 { #expect(ra.frames.rejected.outlier > 0) }
                }
            }
        }
    }

    /// A bad frame after accepted ones: the same error with 2 threads (and no hang); with a
    /// frame limit reached before it, no error with either.
    @Test func errorsAreTheSameWithTwoThreads() throws {
        var b = CaptureBuilder()
        for i in 0..<30 {
            b.frames.append(CaptureBuilder.frame(vertices: CaptureBuilder.square.map { $0 + Double(i) * 1e-4 }))
        }
        b.frames[20] = "{\"verticesBase64\":\"AAA*\"}"
        let dir = makeTempDir()
        writeText(b.json, to: dir + "/e.json")
        var messages: [String] = []
        for threads in [1, 2] {
            var o = PipelineOptions()
            o.ingestThreads = threads
            o.maxFrames = 1000
            var r = Report(input: dir + "/e.json")
            do throws(FaceScanError) {
                _ = try ingest(dir + "/e.json", o, report: &r)
                Issue.record("no error with \(threads) threads")
            } catch {
                guard case .badInput(let e) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(e.frame == 20 && e.field == "verticesBase64")
                messages.append(e.description)
            }
            #expect(r.frames.read == 20)
            o.maxFrames = 20
            var r2 = Report(input: dir + "/e.json")
            let ok = try ingest(dir + "/e.json", o, report: &r2)
            #expect(ok.mesh.vertexCount == 4 && r2.frames.accepted == 20)
        }
        #expect(messages.count == 2 && messages[0] == messages[1])
    }

    /// Every bad input of the CLI tests, read with 1 and 2 threads, whole and in small chunks (a
    /// frame longer than the buffer is read in place), with and without a frame limit: the same
    /// message (frame, field, byte offset), or the same frames and mean to the bit.
    @Test func badInputsGiveTheSameOutcomeWithTwoThreads() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FacescanCLITests/BadInputs")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".ndjson") }.sorted()
        #expect(files.count > 50)
        var errors = 0
        for file in files {
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent(file)))
            for chunk in [1 << 20, 1200] {
                for maxFrames in [2, 1000] {
                    let one = ingestOutcome(bytes, name: file, chunk: chunk, threads: 1, maxFrames: maxFrames)
                    let two = ingestOutcome(bytes, name: file, chunk: chunk, threads: 2, maxFrames: maxFrames)
                    #expect(one == two, "\(file), chunk \(chunk), maxFrames \(maxFrames)")
                    if !one.hasPrefix("ok") { errors += 1 }
                }
            }
        }
        #expect(errors > 100)
    }

    /// Frames longer than the reader's buffer (read in place, between frames parsed on two
    /// threads) and shorter ones, number arrays and base64, JSON and NDJSON: the same outcome.
    @Test func framesLongerThanTheBufferAgree() {
        var rng = TestRNG(seed: 5)
        var b = CaptureBuilder()
        b.triangles = [0, 1, 2, 1, 2, 3]
        let n = 200
        for i in 0..<25 {
            // Number arrays (about 7 KB) are longer than a 5 000-byte buffer, base64 (3.2 KB) is not.
            let xyz = (0..<(3 * n)).map { k in Float(k % 3) * 0.01 + Float.random(in: -1e-3...1e-3, using: &rng) }
            let vertices =
                i % 3 == 1
                ? "\"verticesBase64\":\"\(base64(xyz))\""
                : "\"vertices\":[\(xyz.map { "\($0)" }.joined(separator: i % 2 == 0 ? "," : ", "))]"
            b.frames.append("{\"distance\":0.4,\(vertices)}")
        }
        // Also frames before the header (read after it, by seeking back) and a member after them.
        let framesFirst =
            "{\"frames\":[\(b.frames.joined(separator: ","))]," + b.header(includeFrames: false).dropFirst()
        let trailer = b.json.dropLast() + ",\"comment\":\"after the frames\"}"
        for text in [b.json, b.ndjson, framesFirst, String(trailer)] {
            for chunk in [1 << 20, 1200, 5000] {
                let bytes = Array(text.utf8)
                let one = ingestOutcome(bytes, name: "c", chunk: chunk, threads: 1, maxFrames: 1000)
                let two = ingestOutcome(bytes, name: "c", chunk: chunk, threads: 2, maxFrames: 1000)
                #expect(one == two, "chunk \(chunk)")
                #expect(one.hasPrefix("ok") && one.contains("accepted: 25"), "\(one.prefix(300))")
            }
        }
    }
}

/// Reads `bytes` `chunk` bytes at a time with `threads` ingest threads: the error's message, or
/// the frame counts and the mean's bits.
private func ingestOutcome(_ bytes: [UInt8], name: String, chunk: Int, threads: Int, maxFrames: Int) -> String {
    let reader = CaptureReader(bytes: bytes, name: name, chunkSize: chunk)
    var options = PipelineOptions()
    options.maxFrames = maxFrames
    do throws(FaceScanError) {
        var session = try FaceScanSession(reading: reader) { (s) throws(FaceScanError) in
            try ScanSettings.validated(options: options, capture: s, file: name)
        }
        try session.read(reader, threads: threads, progress: nil)
        let mean = try Stages.read(session)
        return "ok \(session.report.frames) \(mean.mesh.positions.map { $0.x.bitPattern })"
    } catch {
        return "\(error)"
    }
}

/// Nothing ingest starts outlives the read: after 2-thread ingests that end normally, at a frame
/// limit (frames still in flight) and at a bad frame, no parsing or folding thread is left. Run
/// in a child process of its own (an exit test), so that no other test's threads count.
@Suite struct IngestResourceTests {
    @Test func twoThreadIngestLeavesNoThreadBehind() async {
        await #expect(processExitsWith: .success) {
            var b = CaptureBuilder()
            for i in 0..<30 {
                b.frames.append(CaptureBuilder.frame(vertices: CaptureBuilder.square.map { $0 + Double(i) * 1e-4 }))
            }
            let good = b.json
            b.frames[20] = "{\"verticesBase64\":\"AAA*\"}"
            let dir = makeTempDir("ingestThreads")
            var outcomes: [Bool] = []
            for (text, maxFrames) in [(good, 1000), (good, 5), (b.json, 1000)] {
                writeText(text, to: dir + "/c.json")
                var o = PipelineOptions()
                o.ingestThreads = 2
                o.maxFrames = maxFrames
                var r = Report(input: dir + "/c.json")
                outcomes.append((try? ingest(dir + "/c.json", o, report: &r)) != nil)
            }
            guard outcomes == [true, true, false] else { exit(3) }
            guard ProcessProbe.threadsNamed(ProcessProbe.sideThreadName) == 0 else { exit(4) }
        }
    }
}

/// The read stage (`Stages.read`) over the capture at `path` with `o` over its settings, the
/// frame counts so far in `report` also when it fails.
private func ingest(_ path: String, _ o: PipelineOptions, report: inout Report) throws(FaceScanError) -> Average {
    let reader = try Pipeline.open(path)
    var session = try FaceScanSession(reading: reader) { (s) throws(FaceScanError) in
        try ScanSettings.validated(options: o, capture: s, file: reader.name)
    }
    defer { report.frames = session.report.frames }  // also when reading fails
    try session.read(reader, threads: o.ingestThreads ?? Pipeline.defaultIngestThreads, progress: nil)
    return try Stages.read(session)
}
