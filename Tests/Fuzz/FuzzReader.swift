// libFuzzer harness over the capture reader (built by scripts/fuzz-reader, not by SwiftPM).
// Compiled together with Sources/FaceScanKit/{Capture,Support,Gate}/*.swift and Pipeline/Report.swift
// into one module, so internal API is visible.
//
// Each input is read twice: from a regular file (seekable: frames-first documents are re-read by
// seeking) in small read chunks (1100…1376 bytes, so tokens straddle refills) with every frame parsed, and from a pipe on standard input (non-seekable: spooled to a
// temporary file when needed) parsing one frame and skipping the rest, as `--max-frames 1` does.
// Thrown InputErrors are the expected outcome for bad input and are ignored; anything else (a trap,
// an ASan report, a broken invariant below) is a crash.

#if canImport(Glibc)
import Glibc
#endif

private let inputPath: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/facescan-fuzz-\(getpid()).json"
}()

/// Checks what a successful read promises (FORMAT.md).
private func checkInvariants(_ reader: CaptureReader, _ frame: Frame) {
    guard let n = reader.vertexCount else { return }
    precondition(frame.xyz.count == 3 * n, "frame has \(frame.xyz.count) coordinates, vertex count \(n)")
    precondition(frame.xyz.allSatisfy { $0.isFinite }, "non-finite coordinate accepted")
    if let m = frame.metadata.distance { precondition(m.isFinite && m >= 0, "bad distance \(m)") }
    if let a = frame.metadata.ambientIntensity { precondition(a.isFinite && a >= 0, "bad light \(a)") }
    for v in [frame.metadata.jawOpen, frame.metadata.mouthSmileLeft, frame.metadata.mouthSmileRight, frame.metadata.browInnerUp] {
        if let v { precondition(v >= 0 && v <= 1, "blend shape \(v)") }
    }
    if let t = reader.topology {
        precondition(!t.triangles.isEmpty && t.triangles.count % 3 == 0, "bad triangle count")
        precondition(t.triangles.allSatisfy { Int($0) < n }, "triangle index out of range accepted")
        if let uv = t.textureCoordinates { precondition(uv.count == 2 * n, "uv count") }
    }
}

private func readAll(_ path: String, maxFrames: Int, chunkSize: Int) {
    do {
        let reader = try CaptureReader(path: path, chunkSize: chunkSize)
        try reader.readHeader()
        var frame = Frame()
        var n = 0
        while n < maxFrames, try reader.nextFrame(&frame) {
            precondition(frame.index == n, "frame index \(frame.index), expected \(n)")
            checkInvariants(reader, frame)
            n += 1
        }
        _ = try reader.skipRemainingFrames()
        try reader.finish()
        if n > 0 { precondition(reader.topology != nil, "frames without topology") }
    } catch {
        // Bad input: expected.
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // 1. Regular file, every frame parsed.
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0)
    var off = 0
    while off < size {
        let w = write(fd, data + off, size - off)
        precondition(w > 0)
        off += w
    }
    close(fd)
    // Small read chunks (varying with the input) so that tokens straddle buffer refills.
    readAll(inputPath, maxFrames: Int.max, chunkSize: 1100 + size % 277)

    // 2. A pipe on standard input, one frame parsed, the rest skipped (inputs that fit the pipe).
    if size <= 60_000 {
        var p: [Int32] = [0, 0]
        precondition(pipe(&p) == 0)
        var o = 0
        while o < size {
            let w = write(p[1], data + o, size - o)
            precondition(w > 0)
            o += w
        }
        close(p[1])
        let saved = dup(0)
        dup2(p[0], 0)
        close(p[0])
        readAll("-", maxFrames: 1, chunkSize: 1 << 20)
        dup2(saved, 0)
        close(saved)
    }
    return 0
}
