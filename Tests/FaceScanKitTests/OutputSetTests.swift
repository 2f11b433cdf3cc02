import FaceScanCore
import Foundation
import Testing

@testable import FacescanTools

#if canImport(Glibc)
import Glibc
#endif

/// The command line's output sets (FacescanTools/Output): staging inside a locked staging
/// directory, commit, abort, and what the next run makes of what a killed process left.
@Suite struct OutputSetTests {
    private func names(_ dir: String) -> [String] { (directoryEntries(dir) ?? []).sorted() }

    private func contents(_ path: String) -> String? {
        (try? FileBytes.read(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    private func write(_ path: String, _ text: String) { writeText(text, to: path) }

    /// A record as a killed process leaves it: each temporary with the size and CRC-32 of `bytes`.
    private func record(_ entries: [(temp: String, final: String, bytes: String)], complete: Bool = true) -> [UInt8] {
        var r = OutputSet.header
        for e in entries {
            r += Array(e.temp.utf8) + [0] + Array(e.final.utf8) + [0]
            r += Array("\(e.bytes.utf8.count)".utf8) + [0] + Array("\(CRC32.checksum(Array(e.bytes.utf8)))".utf8) + [0]
        }
        return complete ? r + OutputSet.endMark : r
    }

    @Test func stagedFilesLiveInTheLockedStagingDirectoryUntilCommit() throws {
        let dir = makeTempDir()
        let a = OutputSet(), b = OutputSet()
        try a.stage(Array("first\n".utf8), to: dir + "/a.txt")
        try a.stage(Array("more\n".utf8), to: dir + "/c.txt")
        try b.stage(Array("second\n".utf8), to: dir + "/b.txt")
        // One staging directory for the output directory, holding the three temporaries.
        let hidden = names(dir)
        #expect(hidden.count == 1 && StagingArea.isStagingName(hidden[0]), "\(hidden)")
        #expect(names(dir + "/" + hidden[0]).count == 3)
        #expect(Interrupts.listed().areas.contains(dir + "/" + hidden[0]))
        // Locked: a recovery run now leaves it alone.
        StagingArea.recover(dir)
        #expect(names(dir + "/" + hidden[0]).count == 3)
        try a.commit()
        b.abort()
        #expect(names(dir) == [hidden[0], "a.txt", "c.txt"])
        #expect(names(dir + "/" + hidden[0]).isEmpty)
        #expect(contents(dir + "/a.txt") == "first\n" && contents(dir + "/c.txt") == "more\n")
        #expect(a.files.isEmpty)
    }

    @Test func aFailedRenameLosesOnlyThatFile() throws {
        let dir = makeTempDir()
        let t = OutputSet()
        try t.stage([4, 5], to: dir + "/target")
        #expect(mkdir(dir + "/target", 0o755) == 0)
        #expect(throws: IOFailure.self) { try t.commit() }
        #expect(names(dir).filter { !StagingArea.isStagingName($0) } == ["target"])
        rmdir(dir + "/target")
    }

    @Test func setsOnManyThreadsCommitTogether() async throws {
        let dir = makeTempDir()
        let tasks = 8, files = 5
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let keep = OutputSet(), drop = OutputSet()
                    for f in 0..<files { try keep.stage([UInt8(task), UInt8(f)], to: "\(dir)/t\(task)-\(f)") }
                    try drop.stage([9], to: "\(dir)/dropped\(task)")
                    drop.abort()
                    try keep.commit()
                }
            }
            try await group.waitForAll()
        }
        let expected = (0..<tasks).flatMap { t in (0..<files).map { "t\(t)-\($0)" } }.sorted()
        #expect(names(dir).filter { !StagingArea.isStagingName($0) } == expected)
        // A group commit of several sets: each set's files, all in place.
        let sets = (0..<3).map { _ in OutputSet() }
        for (k, s) in sets.enumerated() {
            try s.stage(Array("x\(k)".utf8), to: "\(dir)/g\(k).a")
            try s.stage(Array("y\(k)".utf8), to: "\(dir)/g\(k).b")
        }
        #expect(OutputSet.commit(sets).allSatisfy { $0 == nil })
        for k in 0..<3 { #expect(contents("\(dir)/g\(k).a") == "x\(k)" && contents("\(dir)/g\(k).b") == "y\(k)") }
    }

    @Test func aCommittedRecordIsRolledForward() throws {
        let dir = makeTempDir()
        // Killed mid-commit: a.stl already renamed, b.obj and c.png still in the staging directory.
        let area = dir + "/.facescan-Dead01"
        #expect(mkdir(area, 0o700) == 0)
        write(dir + "/a.stl", "new a")
        write(dir + "/b.obj", "old b")
        write(dir + "/c.png", "old c")
        write(area + "/7-1", "new b")
        write(area + "/7-2", "new c")
        try Data(record([("7-0", "a.stl", "new a"), ("7-1", "b.obj", "new b"), ("7-2", "c.png", "new c")]))
            .write(to: URL(fileURLWithPath: area + "/7.set"))
        StagingArea.recover(dir)
        #expect(names(dir) == ["a.stl", "b.obj", "c.png"])
        #expect(contents(dir + "/b.obj") == "new b" && contents(dir + "/c.png") == "new c")
    }

    @Test func aRecordWhoseTemporariesAreNotWholeIsRolledBack() throws {
        let dir = makeTempDir()
        let area = dir + "/.facescan-Dead02"
        #expect(mkdir(area, 0o700) == 0)
        write(dir + "/a.stl", "old a")
        write(dir + "/b.obj", "old b")
        write(area + "/3-0", "new a")
        write(area + "/3-1", "new")  // cut short by a power cut: not what the record says
        try Data(record([("3-0", "a.stl", "new a"), ("3-1", "b.obj", "new b")])).write(
            to: URL(fileURLWithPath: area + "/3.set"))
        StagingArea.recover(dir)
        #expect(names(dir) == ["a.stl", "b.obj"])
        #expect(contents(dir + "/a.stl") == "old a" && contents(dir + "/b.obj") == "old b")
    }

    @Test func uncommittedAndEmptyStagingDirectoriesAreRemoved() throws {
        let dir = makeTempDir()
        for (name, body) in [(".facescan-Dead03", true), (".facescan-Dead04", false)] {
            #expect(mkdir(dir + "/" + name, 0o700) == 0)
            if body {
                write(dir + "/\(name)/1-0", "half")
                try Data(record([("1-0", "a.stl", "half a")], complete: false)).write(
                    to: URL(fileURLWithPath: dir + "/\(name)/1.set"))
            }
        }
        write(dir + "/a.stl", "old a")
        write(dir + "/.facescan-other", "not ours")  // not a staging directory's name
        write(dir + "/.facescan-123456.tmp", "the library's")
        try OutputSet.write(Array("fresh".utf8), to: dir + "/other.txt")
        #expect(
            names(dir).filter { !Interrupts.listed().areas.contains(dir + "/" + $0) } == [
                ".facescan-123456.tmp", ".facescan-other", "a.stl", "other.txt",
            ])
        #expect(contents(dir + "/a.stl") == "old a")
    }

    @Test func recordParsing() {
        let good = record([("t1", "f1", "abc")])
        #expect(OutputSet.parse(good)?.map { "\($0.temp)>\($0.final):\($0.size)" } == ["t1>f1:3"])
        #expect(OutputSet.parse(Array(good.dropLast())) == nil)
        #expect(OutputSet.parse([]) == nil)
        #expect(OutputSet.parse(record([("t1", "../f1", "abc")])) == nil)
    }

    @Test func crc32IsZlibs() {
        // zlib.crc32(b"123456789") == 0xCBF43926, the check value of CRC-32/ISO-HDLC.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var slow: UInt32 = 0xFFFF_FFFF
        for b in long {
            slow ^= UInt32(b)
            for _ in 0..<8 { slow = slow & 1 != 0 ? 0xEDB8_8320 ^ (slow >> 1) : slow >> 1 }
        }
        #expect(CRC32.checksum(long) == ~slow)
    }
}
