import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a capture in format v1 (FORMAT.md) — a JSON document or an NDJSON stream, from a file
/// or standard input (`-`), told apart by content — one frame at a time.
///
/// Usage: ``readHeader()``, then ``nextFrame(_:)`` until it returns false (or
/// ``skipRemainingFrames()``), then ``finish()``. The header (format, version, settings, topology)
/// is always complete before the first frame: when a JSON document puts `frames` before a header
/// key, the frames are skipped once and re-read (standard input is first buffered to an unlinked
/// temporary file). Memory is O(vertices + triangles), independent of the frame count.
///
/// Every error is an ``InputError`` naming the file, the frame index and the field.
package final class CaptureReader {
    /// Largest accepted vertex count per frame (the README's limits): a dense topology at this
    /// count, 8 or more frames (the outlier test's warm-up) and the smoothing's per-pass state
    /// stay under 1 GB and 5 s on two cores (docs/PERFORMANCE.md, *Limits*); bigger frames are
    /// refused as soon as they pass it.
    public static let maxVertices = 500_000
    /// Largest accepted triangle-index count (three per triangle: 1 000 000 triangles, twice
    /// ``maxVertices``, what a surface of that many vertices has).
    public static let maxTriangleIndices = 3 * 1_000_000
    /// Largest capture read, in bytes (256 MiB): its frames are parsed in constant memory, but
    /// each costs time, so a larger capture is refused from its size (a regular file) or as soon
    /// as a stream passes it.
    public static let maxBytes = 256 << 20
    /// The message for a topology over ``maxTriangleIndices`` (the reader's and a session's).
    package static let tooManyTriangles =
        "more than \(CaptureReader.spaced(maxTriangleIndices / 3)) triangles, facescan's limit for a capture"
    /// The message for a frame over ``maxVertices`` (the reader's and a session's).
    package static let tooManyVertices =
        "more than \(CaptureReader.spaced(maxVertices)) vertices, facescan's limit for a capture frame"
    /// The message for a capture over ``maxBytes``.
    static let tooLarge = "larger than \(maxBytes >> 20) MiB, facescan's limit for a capture"

    /// `n` with a space between groups of three digits (500 000), as the docs write counts.
    static func spaced(_ n: Int) -> String {
        var digits = Array(String(n))
        var i = digits.count - 3
        while i > 0 {
            digits.insert(" ", at: i)
            i -= 3
        }
        return String(digits)
    }

    /// The input's name as messages give it: its path, or a name for standard input (`-`).
    public let name: String
    private let json: JSONReader
    /// The capture's `settings` object as written: checked as JSON only, its keys resolved
    /// by the pipeline.
    package private(set) var settings = RawSettings()
    /// The capture's `topology` (triangles, optional UVs), once ``readHeader()`` has read it; nil before.
    public private(set) var topology: Topology?
    /// Fixed by the first frame.
    public private(set) var vertexCount: Int?
    /// Frames parsed so far (the index of the next frame).
    public private(set) var framesSeen = 0

    private enum Mode {
        case header
        case documentFrames(deferred: Bool, first: Bool)
        case ndjson, trailer, done
    }
    private var mode = Mode.header
    private var formatSeen = false
    private var versionSeen = false
    private var settingsSeen = false
    /// Offset just past the document's closing brace (known when the frames were deferred).
    private var documentEnd: Int64 = 0
    /// `nextFrameText(into:)` answered `.here`: the separator before that frame is consumed.
    private var pendingHere = false
    /// Reads the frames this reader parses itself.
    private let frames: FrameParser

    /// How messages name the input at `path`: `<stdin>` for `-`.
    public static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Opens `path` (`-` for standard input).
    public convenience init(path: String) throws(IOFailure) {
        try self.init(path: path, chunkSize: 1 << 20)
    }

    /// Opens `path` reading `chunkSize` bytes at a time (tests and the fuzzer use small chunks to
    /// exercise refills).
    init(path: String, chunkSize: Int) throws(IOFailure) {
        if path == "-" {
            name = Self.displayName(path)
            json = JSONReader(fd: 0, name: name, ownsFD: false, chunkSize: chunkSize)
            frames = FrameParser(json)
        } else {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw IOFailure(path: path, "cannot open: \(systemErrorText())") }
            var st = stat()
            if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw IOFailure(path: path, "is a directory")
            }
            json = JSONReader(fd: fd, name: path, ownsFD: true, chunkSize: chunkSize)
            frames = FrameParser(json)
            name = path
            if st.st_mode & S_IFMT == S_IFREG { declaredSize = Int64(st.st_size) }
        }
        json.byteLimit = (Int64(Self.maxBytes), Self.tooLarge)
    }

    /// The size of a regular file or of bytes in memory (refused before reading when over ``maxBytes``).
    private var declaredSize: Int64? = nil

    /// Reads a capture held in memory; `name` stands for the file in messages (e.g. `capture.json`).
    public convenience init(bytes: [UInt8], name: String) {
        self.init(bytes: bytes, name: name, chunkSize: 1 << 20)
    }

    /// Reads a capture from any sequence of bytes (`Data`, a slice, …), copied once.
    public convenience init(bytes: some Sequence<UInt8>, name: String) {
        self.init(bytes: Array(bytes), name: name, chunkSize: 1 << 20)
    }

    /// Reads `bytes` `chunkSize` at a time (tests use small chunks to exercise refills).
    init(bytes: [UInt8], name: String, chunkSize: Int) {
        self.name = name
        json = JSONReader(source: ByteSource(bytes: bytes), name: name, chunkSize: chunkSize)
        frames = FrameParser(json)
        declaredSize = Int64(bytes.count)
        json.byteLimit = (Int64(Self.maxBytes), Self.tooLarge)
    }

    // MARK: header

    /// Reads the header keys up to the first frame (see the type's documentation).
    public func readHeader() throws(InputError) {
        if let declaredSize, declaredSize > Int64(Self.maxBytes) { throw InputError(file: name, Self.tooLarge) }
        guard let c = try json.peek() else {
            throw InputError(file: name, "empty input: expected a facescan capture (JSON object)")
        }
        guard c == UInt8(ascii: "{") else {
            throw InputError(
                file: name, "not a facescan capture: expected a JSON object, found \(JSONReader.describe(c))")
        }
        try json.expect(UInt8(ascii: "{"), "'{'")
        var framesOffset: Int64?
        var seen: Set<String> = []
        if !(try json.consume(UInt8(ascii: "}"))) {
            repeat {
                let key = try json.readString()
                do throws(InputError) {
                    try json.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
                } catch {
                    throw InputError(file: name, field: key, error.message)
                }
                if Self.headerKeys.contains(key) {
                    // A second copy would silently replace the first (or, for `frames`, hide it).
                    guard seen.insert(key).inserted else { throw InputError(file: name, field: key, "appears twice") }
                }
                if key == "frames" {
                    if formatSeen && versionSeen && settingsSeen && topology != nil {
                        try startDocumentFrames(deferred: false)
                        return
                    }
                    if !json.seekable { try json.spoolToTemporaryFile() }
                    framesOffset = json.offset
                    try skipFramesArray()
                } else {
                    try member(key)
                }
            } while !(try json.nextOrClose(UInt8(ascii: "}")))
        }
        documentEnd = json.offset
        try checkHeader()
        if let off = framesOffset {
            try json.seek(to: off)
            try startDocumentFrames(deferred: true)
            return
        }
        // No `frames` key: an NDJSON stream (frames follow, one per line) or a capture without frames.
        if try json.atEnd() {
            mode = .done
        } else if try json.peek() == UInt8(ascii: "{") {
            mode = .ndjson
        } else {
            // What follows the header is the first NDJSON frame's place: the message names frame 0.
            let c = try json.peek() ?? 0
            let what = c == 0xEF ? "a UTF-8 byte-order mark" : JSONReader.describe(c)
            throw InputError(
                file: name, frame: 0,
                "at byte \(json.offset): expected a frame object after the header line, found \(what) (one JSON object per line, nothing before it)"
            )
        }
    }

    private static let headerKeys: Set<String> = ["format", "version", "settings", "topology", "frames"]

    /// `s` in quotes for a message, cut short when long.
    package static func quoted(_ s: String) -> String {
        s.count <= 64 ? "\"\(s)\"" : "\"\(s.prefix(64))\"… (\(s.utf8.count) bytes)"
    }

    private func startDocumentFrames(deferred: Bool) throws(InputError) {
        try checkHeader()
        do throws(InputError) {
            try json.expect(UInt8(ascii: "["), "an array of frames")
        } catch {
            throw InputError(file: name, field: "frames", error.message)
        }
        mode = .documentFrames(deferred: deferred, first: true)
    }

    private func checkHeader() throws(InputError) {
        guard formatSeen else {
            throw InputError(file: name, field: "format", "missing (expected \"facescan-capture\")")
        }
        guard versionSeen else { throw InputError(file: name, field: "version", "missing (expected 1)") }
        guard topology != nil else {
            throw InputError(file: name, field: "topology", "missing (required: triangleIndices)")
        }
    }

    /// Parses one top-level member other than `frames`.
    private func member(_ key: String) throws(InputError) {
        do throws(InputError) {
            switch key {
            case "format":
                guard try json.peek() == UInt8(ascii: "\"") else {
                    throw json.badValue("the string \"facescan-capture\"")
                }
                let v = try json.readString()
                guard v == "facescan-capture" else {
                    throw json.error("expected \"facescan-capture\", found \(Self.quoted(v))")
                }
                formatSeen = true
            case "version":
                let v = try json.readDouble()
                guard v == 1 else { throw json.error("unsupported version \(v) (this facescan reads version 1)") }
                versionSeen = true
            case "settings":
                settings = try RawSettings(json)
                settingsSeen = true
            case "topology":
                topology = try parseTopology()
            default:
                try json.skipValue()
            }
        } catch {
            throw error.at(field: key)
        }
    }

    private func parseTopology() throws(InputError) -> Topology {
        guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("an object") }
        try json.expect(UInt8(ascii: "{"), "'{'")
        var tris: [UInt32]?
        var uvs: [Float]?
        if !(try json.consume(UInt8(ascii: "}"))) {
            repeat {
                let key = try json.readString()
                try json.expect(UInt8(ascii: ":"), "':'")
                do throws(InputError) {
                    switch key {
                    case "triangleIndices":
                        tris = try readIndices()
                    case "textureCoordinates":
                        var f: [Float] = []
                        try json.readFloatArray(into: &f, limit: 2 * Self.maxVertices)
                        uvs = f
                    default:
                        try json.skipValue()
                    }
                } catch {
                    throw error.at(field: "topology.\(key)")
                }
            } while !(try json.nextOrClose(UInt8(ascii: "}")))
        }
        guard let tris else { throw InputError(file: name, field: "topology.triangleIndices", "missing") }
        return Topology(triangles: tris, textureCoordinates: uvs)
    }

    private func readIndices() throws(InputError) -> [UInt32] {
        guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of vertex indices") }
        try json.expect(UInt8(ascii: "["), "'['")
        var out: [UInt32] = []
        if try json.consume(UInt8(ascii: "]")) { throw json.error("empty: at least one triangle is required") }
        repeat {
            if let k = try json.readSmallInteger() {
                out.append(UInt32(k))
            } else {
                let v = try json.readDouble()
                guard v >= 0 else { throw json.error("negative index \(v) at position \(out.count)") }
                guard v == v.rounded(), v < Double(UInt32.max) else {
                    throw json.error("index \(v) at position \(out.count) is not an integer vertex index")
                }
                out.append(UInt32(v))
            }
            if out.count > Self.maxTriangleIndices {
                throw json.error(Self.tooManyTriangles)
            }
        } while !(try json.nextOrClose(UInt8(ascii: "]")))
        guard out.count % 3 == 0 else { throw json.error("\(out.count) indices is not a multiple of 3") }
        return out
    }

    // MARK: frames

    /// Reads the next frame into `frame` (its buffers are reused). Returns false after the last one.
    public func nextFrame(_ frame: inout Frame) throws(InputError) -> Bool {
        guard try advanceToFrame() else { return false }
        try parseFrame(&frame)
        if !deferImageProblems, let problem = frame.imageProblem { throw problem.error }
        return true
    }

    /// Whether ``nextFrame(_:)`` leaves a frame's image problem in ``Frame/imageProblem`` (the
    /// pipeline's choice: it throws it, or skips the image) instead of throwing it.
    package var deferImageProblems = false

    /// Moves past the separator before the next frame; false (the frames ended, the trailer or
    /// end of input checked) when none follows.
    private func advanceToFrame() throws(InputError) -> Bool {
        if pendingHere {
            pendingHere = false
            return true
        }
        switch mode {
        case .documentFrames(let deferred, let first):
            let closed = first ? try json.consume(UInt8(ascii: "]")) : try arrayNext()
            if closed {
                try endOfFrames(deferred: deferred)
                return false
            }
            mode = .documentFrames(deferred: deferred, first: false)
            return true
        case .ndjson:
            if try json.atEnd() {
                mode = .done
                return false
            }
            return true
        case .header, .trailer, .done:
            return false
        }
    }

    private func arrayNext(index: Int? = nil) throws(InputError) -> Bool {
        do throws(InputError) {
            return try json.nextOrClose(UInt8(ascii: "]"))
        } catch {
            throw InputError(file: name, frame: index ?? framesSeen, field: "frames", error.message)
        }
    }

    /// Skips every frame not yet read (checking only their JSON structure). Returns how many.
    public func skipRemainingFrames() throws(InputError) -> Int {
        var n = 0
        while try advanceToFrame() {
            try skipFrame(index: framesSeen)
            framesSeen += 1
            n += 1
        }
        return n
    }

    /// Skips the `frames` array during the header pass, checking each frame's JSON structure so an
    /// error still names the frame and field.
    private func skipFramesArray() throws(InputError) {
        guard try json.peek() == UInt8(ascii: "[") else {
            throw InputError(file: name, field: "frames", json.badValue("an array of frames").message)
        }
        try json.expect(UInt8(ascii: "["), "'['")
        if try json.consume(UInt8(ascii: "]")) { return }
        var index = 0
        repeat {
            try skipFrame(index: index)
            index += 1
        } while !(try arrayNext(index: index))
    }

    private func skipFrame(index: Int) throws(InputError) {
        try frames.skip(index: index)
    }

    private func endOfFrames(deferred: Bool) throws(InputError) {
        if deferred {
            // The rest of the document was read before the frames.
            try json.seek(to: documentEnd)
            mode = .done
            return
        }
        mode = .trailer
        // Members after `frames`.
        while !(try json.nextOrClose(UInt8(ascii: "}"))) {
            let key = try json.readString()
            try json.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
            if key == "frames" { throw InputError(file: name, field: "frames", "appears twice") }
            if key == "topology" || key == "settings" || key == "format" || key == "version" {
                // Already read before the frames; a second copy would change their meaning.
                throw InputError(file: name, field: key, "appears twice")
            }
            try member(key)
        }
        mode = .done
    }

    private func parseFrame(_ frame: inout Frame) throws(InputError) {
        let index = framesSeen
        framesSeen += 1
        let field = try frames.parse(&frame, index: index)
        try check(frame, field: field)
    }

    /// The checks of a parsed frame that depend on the frames before it (in capture order): the
    /// vertex count the first frame fixed, and the topology against it. `field`: the vertex
    /// field the frame used, as `FrameParser/parse(_:index:)` returned it.
    package func check(_ frame: Frame, field: String) throws(InputError) {
        do throws(InputError) {
            try checkVertexCount(frame.xyz.count)
        } catch {
            throw error.at(frame: frame.index, field: field)
        }
        if frame.index == 0 { try checkTopology() }
    }

    // MARK: frames parsed elsewhere

    /// What `nextFrameText(into:)` found.
    package enum FrameText {
        /// No frame follows (the frames ended; what follows them is read and checked).
        case end
        /// The text of frame `index`, at byte `offset` of the input, was copied out.
        case text(index: Int, offset: Int64)
        /// A frame follows whose end is not within one buffer: `nextFrame(_:)` reads it here.
        case here
    }

    /// Moves past the next frame and copies its text into `bytes` (replacing its contents), for a
    /// `FrameParser` on another thread; the caller then passes the parsed frame, in capture order,
    /// to `check(_:field:)`. Only the frame's braces and strings are looked at here.
    package func nextFrameText(into bytes: inout [UInt8]) throws(InputError) -> FrameText {
        guard try advanceToFrame() else { return .end }
        guard let (text, offset) = try json.objectText() else {
            pendingHere = true  // the separator before it is consumed
            return .here
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: text)
        json.skip(text.count)
        let index = framesSeen
        framesSeen += 1
        return .text(index: index, offset: offset)
    }

    /// `count` coordinates (a positive multiple of 3: the parser checked it) against the first frame's.
    private func checkVertexCount(_ count: Int) throws(InputError) {
        try Self.check(vertexCount: count / 3, fixed: vertexCount, file: name)
        if vertexCount == nil { vertexCount = count / 3 }
    }

    /// The first frame fixed the vertex count: check the topology against it.
    private func checkTopology() throws(InputError) {
        guard let n = vertexCount, let topo = topology else { return }
        try topo.check(vertexCount: n, file: name)
    }

    /// A frame's `n` vertices against the count the first frame `fixed` (nil: this is the first):
    /// the reader's check and a session's (`FaceScanSession.add`), one message.
    package static func check(vertexCount n: Int, fixed: Int?, file: String) throws(InputError) {
        guard let fixed, n != fixed else { return }
        throw InputError(file: file, "has \(n) vertices, but the first frame fixed the count at \(fixed)")
    }

    /// Reads whatever follows the frames and checks nothing but whitespace remains.
    public func finish() throws(InputError) {
        if case .documentFrames = mode { _ = try skipRemainingFrames() }
        if case .ndjson = mode { _ = try skipRemainingFrames() }
        if !(try json.atEnd()) {
            throw InputError(file: name, "unexpected content after the capture at byte \(json.offset)")
        }
    }
}

/// Parses frame objects: the reader's own (`CaptureReader`), or copies of frames' text on
/// other threads (`init(name:)`, `parse(_:at:index:into:)`), with the same code and the same
/// messages, byte offsets included. Not `Sendable`: a parser belongs to one thread.
package final class FrameParser {
    let name: String
    private let json: JSONReader
    private var scratchBytes: [UInt8] = []
    private var scratchText: [UInt8] = []

    init(_ json: JSONReader) {
        self.json = json
        name = json.name
    }

    /// A parser of frames' text copied out by `CaptureReader/nextFrameText(into:)` from the
    /// input `name` (as messages name it).
    package convenience init(name: String) {
        self.init(JSONReader(name: name))
    }

    /// Parses `text`, the text of frame `index` at byte `offset` of the input, into `frame`;
    /// returns the vertex field it used (for `CaptureReader/check(_:field:)`).
    package func parse(_ text: [UInt8], at offset: Int64, index: Int, into frame: inout Frame) throws(InputError)
        -> String
    {
        try json.reading(text, baseOffset: offset) { () throws(InputError) -> String in
            try parse(&frame, index: index)
        }
    }

    /// Checks `text`, the text of frame `index` at byte `offset`, as a frame that is skipped
    /// (its JSON structure only).
    package func skip(_ text: [UInt8], at offset: Int64, index: Int) throws(InputError) {
        try json.reading(text, baseOffset: offset) { () throws(InputError) in
            try skip(index: index)
        }
    }

    /// Skips one frame object without interpreting its values.
    func skip(index: Int) throws(InputError) {
        var field: String?
        do throws(InputError) {
            guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("a frame object") }
            try json.expect(UInt8(ascii: "{"), "'{'")
            if try json.consume(UInt8(ascii: "}")) { return }
            repeat {
                field = nil
                let key = try json.readString()
                field = key
                try json.expect(UInt8(ascii: ":"), "':'")
                try json.skipValue()
            } while !(try json.nextOrClose(UInt8(ascii: "}")))
        } catch {
            throw error.at(frame: index, field: field)
        }
    }

    /// Parses the frame object at the reader's position into `frame` (its buffers are reused) as
    /// frame `index`. Returns the vertex field it used (`vertices` or `verticesBase64`). Every
    /// check that needs no other frame is made here; the caller makes the others
    /// (`CaptureReader/check(_:field:)`).
    package func parse(_ frame: inout Frame, index: Int) throws(InputError) -> String {
        frame.index = index
        frame.metadata = FrameMetadata()
        frame.anchorTransform = nil
        frame.camera = nil
        frame.encodedImage = nil
        frame.imageProblem = nil
        var imageProblem: ImageProblem?
        func record(_ reason: BadImageReason, _ error: InputError, field f: String) {
            Self.record(reason, error, field: f, frame: index, into: &imageProblem)
        }
        // frame.xyz keeps its storage: the vertex readers replace its contents.
        var verticesField: String?
        var transformDistance: Double?
        var field: String?
        do throws(InputError) {
            guard let c = try json.peek() else { throw json.error("unexpected end of input (truncated?)") }
            guard c == UInt8(ascii: "{") else { throw json.badValue("a frame object") }
            try json.expect(UInt8(ascii: "{"), "'{'")
            if !(try json.consume(UInt8(ascii: "}"))) {
                repeat {
                    field = nil
                    let key = try json.readString()
                    field = key
                    try json.expect(UInt8(ascii: ":"), "':'")
                    if try json.peek() == UInt8(ascii: "n"), key != "vertices", key != "verticesBase64" {
                        _ = try json.readLiteral()  // null: treated as absent
                        continue
                    }
                    try parseMember(
                        key, into: &frame, field: &field, verticesField: &verticesField,
                        transformDistance: &transformDistance, imageProblem: &imageProblem)
                } while !(try json.nextOrClose(UInt8(ascii: "}")))
            }
            field = nil
            if frame.metadata.distance == nil { frame.metadata.distance = transformDistance }
            if frame.encodedImage != nil, frame.camera == nil {
                record(
                    .camera, InputError(file: name, "missing: a frame with an 'image' needs the 'camera' that took it"),
                    field: "camera")
            }
            if let imageProblem {
                frame.encodedImage = nil
                frame.camera = nil
                frame.imageProblem = imageProblem
            }
            guard let vf = verticesField else {
                field = "vertices"
                throw InputError(file: name, "missing: one of 'vertices' or 'verticesBase64' is required")
            }
            field = vf
            guard frame.xyz.count > 0, frame.xyz.count % 3 == 0 else {
                throw InputError(file: name, "has \(frame.xyz.count) coordinates, not a positive multiple of 3")
            }
            return vf
        } catch {
            throw error.at(frame: index, field: field)
        }
    }

    /// Keeps a frame's first image problem (its field named), to be thrown or skipped later.
    private static func record(
        _ reason: BadImageReason, _ error: InputError, field f: String, frame: Int, into problem: inout ImageProblem?
    ) {
        guard problem == nil else { return }
        problem = ImageProblem(reason: reason, error: error.at(frame: frame, field: f))
    }

    /// One member `key` of a frame object (its value at the reader's position) into `frame`:
    /// the vertices (naming the field used in `verticesField`), the transform (its distance in
    /// `transformDistance`), the metadata, the image and its camera (a problem with them kept in
    /// `imageProblem`); unknown keys are skipped.
    private func parseMember(
        _ key: String, into frame: inout Frame, field: inout String?, verticesField: inout String?,
        transformDistance: inout Double?, imageProblem: inout ImageProblem?
    ) throws(InputError) {
        switch key {
        case "vertices":
            guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of numbers") }
            try json.readFloatArray(
                into: &frame.xyz, limit: 3 * CaptureReader.maxVertices,
                tooMany: CaptureReader.tooManyVertices)
            verticesField = key
        case "verticesBase64":
            guard try json.peek() == UInt8(ascii: "\"") else { throw json.badValue("a base64 string") }
            try readBase64Vertices(into: &frame.xyz)
            verticesField = key
        case "transform":
            guard try json.peek() == UInt8(ascii: "[") else {
                throw json.badValue("an array of 16 numbers")
            }
            let m = try json.readDoubleArray(limit: 16)
            guard m.count == 16 else {
                throw InputError(file: name, "has \(m.count) numbers, expected 16 (column-major 4×4)")
            }
            transformDistance = (m[12] * m[12] + m[13] * m[13] + m[14] * m[14]).squareRoot()
            frame.anchorTransform = m
        case "distance":
            let d = try json.readDouble()
            guard d >= 0 else { throw InputError(file: name, "negative distance \(d)") }
            frame.metadata.distance = d
        case "trackingState":
            guard try json.peek() == UInt8(ascii: "\"") else { throw json.badValue("a string") }
            let s = try json.readString(limit: 256)
            guard let t = TrackingState(rawValue: s) else {
                throw InputError(
                    file: name,
                    "unknown tracking state \(CaptureReader.quoted(s)) (expected normal, limited or notAvailable)"
                )
            }
            frame.metadata.tracking = t
        case "ambientIntensity":
            let v = try json.readDouble()
            guard v >= 0 else { throw InputError(file: name, "negative light estimate \(v)") }
            frame.metadata.ambientIntensity = v
        case "blendShapes":
            try parseBlendShapes(&frame.metadata, &field)
        case "timestamp":
            _ = try json.readDouble()
        case "ambientColorTemperature":
            let v = try json.readDouble()
            guard v >= 1000, v <= 40000 else {
                throw InputError(file: name, "colour temperature \(v) K is outside 1000…40000")
            }
            frame.metadata.ambientColorTemperature = v
        case "image":
            guard try json.peek() == UInt8(ascii: "\"") else { throw json.badValue("a base64 string") }
            let (bytes, problem) = try readBase64Image()
            frame.encodedImage = bytes
            if let problem { Self.record(.corrupt, problem, field: "image", frame: frame.index, into: &imageProblem) }
        case "camera":
            let (camera, problem) = try parseCamera(&field)
            frame.camera = camera
            if let problem {
                Self.record(problem.reason, problem.error, field: "camera", frame: frame.index, into: &imageProblem)
            }
        default:
            try json.skipValue()
        }
    }

    /// Reads a `verticesBase64` string into `xyz`. Fast path: the text in place in the read
    /// buffer, its closing quote looked for first where the previous frame's length (16
    /// characters per vertex) puts it, decoded straight into the floats. Text the fast decoder
    /// refuses is read again up to its real closing quote (it may have ended earlier) and goes
    /// through the checked decoder, which names the problem. Text with escapes, or too long for
    /// the buffer, is read as a JSON string (escapes decoded) first.
    private func readBase64Vertices(into xyz: inout [Float]) throws(InputError) {
        let limit = (3 * CaptureReader.maxVertices * 4 + 2) / 3 * 4
        try json.expect(UInt8(ascii: "\""), "a string")
        var expected = !xyz.isEmpty && xyz.count % 3 == 0 ? xyz.count / 3 * 16 : -1
        scratchText.removeAll(keepingCapacity: true)
        while let text = try json.rawStringBodyInBuffer(expectedCount: expected) {
            if text.count <= limit, json.decodeBase64Floats(text, into: &xyz) { return }
            if expected >= 0 {
                json.unreadRawString(text)
                expected = -1
                continue
            }
            if text.contains(0x5C) {
                // JSON escapes (`\/` as PHP writes it, `\u0041`): read as a JSON string below.
                json.unreadRawString(text)
                break
            }
            guard text.count <= limit else { throw json.error(CaptureReader.tooManyVertices) }
            scratchText.append(contentsOf: text)
            return try decodeBase64Checked(into: &xyz)
        }
        do throws(InputError) {
            try json.readStringBody(into: &scratchText, limit: limit)
        } catch {
            // Past the limit (the body is read up to one byte more): the vertex limit, named.
            if scratchText.count > limit { throw json.error(CaptureReader.tooManyVertices) }
            throw error
        }
        try decodeBase64Checked(into: &xyz)
    }

    /// Decodes the base64 text in `scratchText` into `xyz`, or throws naming the problem.
    private func decodeBase64Checked(into xyz: inout [Float]) throws(InputError) {
        if let problem = Base64.decode(scratchText, into: &scratchBytes) {
            throw InputError(file: name, "invalid base64: \(problem)")
        }
        guard scratchBytes.count % 4 == 0 else {
            throw InputError(file: name, "decodes to \(scratchBytes.count) bytes, not a whole number of float32 values")
        }
        let n = scratchBytes.count / 4
        xyz.removeAll(keepingCapacity: true)
        xyz.reserveCapacity(n)
        let decoded = scratchBytes  // once: no access to the class's property per byte
        let bytes = decoded.flat
        for i in 0..<n {
            let o = 4 * i
            let bits =
                UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
            xyz.append(Float(bitPattern: bits))
        }
        if let bad = xyz.firstIndex(where: { !$0.isFinite }) {
            throw InputError(file: name, "value \(bad) is not finite (\(xyz[bad]))")
        }
    }

    /// Largest `image` string accepted (base64 characters): 64 MiB, far above any camera frame's JPEG.
    static let maxImageBase64 = 64 << 20

    /// Reads an `image` string (base64) into its bytes; the image itself is decoded later.
    /// Throws what is wrong with the JSON; returns what is wrong with the base64 (the frame's
    /// image problem) instead of the bytes.
    private func readBase64Image() throws(InputError) -> (bytes: [UInt8]?, problem: InputError?) {
        try json.expect(UInt8(ascii: "\""), "a string")
        scratchText.removeAll(keepingCapacity: true)
        try json.readStringBody(into: &scratchText, limit: Self.maxImageBase64)
        var bytes: [UInt8] = []
        if let problem = Base64.decode(scratchText, into: &bytes) {
            return (nil, InputError(file: name, "invalid base64: \(problem)"))
        }
        guard !bytes.isEmpty else { return (nil, InputError(file: name, "is empty")) }
        return (bytes, nil)
    }

    /// Reads a `camera` object (`intrinsics`, `imageResolution`, `transform`), checked: throws
    /// what is wrong with the JSON; returns what is wrong with the camera (its field named: the
    /// frame's image problem) instead of the camera.
    private func parseCamera(_ field: inout String?) throws(InputError) -> (
        FrameCamera?, (reason: BadImageReason, error: InputError)?
    ) {
        guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("a camera object") }
        try json.expect(UInt8(ascii: "{"), "'{'")
        var intrinsics: [Double]?
        var resolution: [Double]?
        var transform: [Double]?
        if !(try json.consume(UInt8(ascii: "}"))) {
            repeat {
                let key = try json.readString(limit: 256)
                field = "camera.\(key)"
                try json.expect(UInt8(ascii: ":"), "':'")
                switch key {
                case "intrinsics":
                    guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of 9 numbers") }
                    intrinsics = try json.readDoubleArray(limit: 9)
                case "imageResolution":
                    guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of 2 numbers") }
                    resolution = try json.readDoubleArray(limit: 2)
                case "transform":
                    guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of 16 numbers") }
                    transform = try json.readDoubleArray(limit: 16)
                default:
                    try json.skipValue()
                }
            } while !(try json.nextOrClose(UInt8(ascii: "}")))
        }
        field = "camera"
        // A resolution of whole numbers beyond the largest side is an oversized image; any other
        // fault is the camera's.
        let oversized = resolution.map { r in r.contains { $0 == $0.rounded() && $0 > Double(FrameCamera.maximumSide) }
        }
        guard let intrinsics else {
            return (
                nil,
                (
                    .camera,
                    InputError(
                        file: name, field: "camera.intrinsics",
                        "missing: the camera's intrinsics (9 numbers) are required with an image")
                )
            )
        }
        guard let r = resolution, r.count == 2, r.allSatisfy({ $0 == $0.rounded() && $0 >= 1 && $0 <= 1e6 }) else {
            return (
                nil,
                (
                    oversized == true ? .oversized : .camera,
                    InputError(
                        file: name, field: "camera.imageResolution", "missing or not two whole numbers [width, height]")
                )
            )
        }
        do throws(InputError) {
            return (try FrameCamera(checking: intrinsics, Int(r[0]), Int(r[1]), transform, file: name), nil)
        } catch {
            return (nil, (oversized == true ? .oversized : .camera, error))
        }
    }

    private func parseBlendShapes(_ meta: inout FrameMetadata, _ field: inout String?) throws(InputError) {
        guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("an object of blend-shape coefficients") }
        try json.expect(UInt8(ascii: "{"), "'{'")
        if try json.consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try json.readString(limit: 256)
            field = "blendShapes.\(key)"
            try json.expect(UInt8(ascii: ":"), "':'")
            let v = try json.readDouble()
            guard v >= 0 && v <= 1 else { throw InputError(file: name, "coefficient \(v) is outside 0…1") }
            meta.blendShapes[key] = v
            switch key {
            case "jawOpen": meta.jawOpen = v
            case "mouthSmileLeft": meta.mouthSmileLeft = v
            case "mouthSmileRight": meta.mouthSmileRight = v
            case "browInnerUp": meta.browInnerUp = v
            case "eyeBlinkLeft", "eyeBlink_L": meta.eyeBlinkLeft = v
            case "eyeBlinkRight", "eyeBlink_R": meta.eyeBlinkRight = v
            default: break
            }
        } while !(try json.nextOrClose(UInt8(ascii: "}")))
        field = "blendShapes"
    }

}
