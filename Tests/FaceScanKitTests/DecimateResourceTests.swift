import FaceScanKit
import Foundation
import Testing

/// Nothing a decimation or a render starts outlives the call: no thread stays, and the scratch
/// memory goes back to the system (no cache). Run in a child process of its own (an exit test),
/// so that no other test's threads or memory move the counts.
@Suite("Decimation resources")
struct DecimateResourceTests {
    @Test func aLargeDecimationLeavesNoThreadAndNoMemoryBehind() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // The ICT face subdivided twice: about 150 000 vertices, two threads (from 4 096
            // triangles on), about 60 MB of scratch.
            let face = try! DecimateFixtures.ictNeutral()
            let big = Subdivision.midpoint(Subdivision.midpoint(face))
            guard big.vertexCount >= 140_000 else {
                FileHandle.standardError.write(Data("fixture too small: \(big.vertexCount) vertices\n".utf8))
                exit(4)
            }
            let threadsBefore = ProcessProbe.threadCount(), residentBefore = ProcessProbe.residentBytes()
            guard threadsBefore > 0, residentBefore > 0 else { exit(5) }
            do {
                let small = try! Decimation.simplify(big, targetVertices: 5_000, threads: 2)
                _ = try! Rasterizer.render(small, options: RenderOptions(size: 128, threads: 2))
            }
            let threadsAfter = ProcessProbe.threadCount(), residentAfter = ProcessProbe.residentBytes()
            let left = ProcessProbe.threadsNamed(ProcessProbe.sideThreadName)
            let grown = residentAfter - residentBefore
            FileHandle.standardError.write(
                Data(
                    ("threads \(threadsBefore) → \(threadsAfter) (\(left) facescan-side), "
                        + "resident \(residentBefore >> 20) → \(residentAfter >> 20) MiB\n").utf8))
            // A thread left running (a helper kept for the process) fails the first checks; a
            // scratch cache kept for the next call (tens of MB here) fails the last.
            guard left == 0 && threadsAfter <= threadsBefore else { exit(2) }
            guard grown < 16 << 20 else { exit(3) }
        }
        if let result { print(String(decoding: result.standardErrorContent, as: UTF8.self), terminator: "") }
    }
}

/// Counts of the calling process, from /proc (Linux).
enum ProcessProbe {
    /// Threads of this process (entries of /proc/self/task); -1 where there is no /proc.
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    /// The name `Parallel` gives its threads (kept here as a literal: the test must not trust the
    /// code it checks to name them).
    static let sideThreadName = "facescan-side"

    /// Threads of this process whose name (/proc/self/task/*/comm) is `name`.
    static func threadsNamed(_ name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    /// Resident memory of this process in bytes (/proc/self/statm's second field); 0 where
    /// there is no /proc.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
