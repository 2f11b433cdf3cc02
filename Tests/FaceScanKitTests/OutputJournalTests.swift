import Testing

@testable import FaceScanKit

#if canImport(Glibc)
import Glibc
@testable import FaceScanCore
#endif

/// What a killed process leaves (a journal, its temporaries) and what the next transaction into
/// the directory makes of it; outputs that are not regular files.
@Suite struct OutputJournalTests {
    private func freshDirectory(_ name: String) -> String {
        var template = Array("/tmp/facescan-journal-\(getpid())-\(name)-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    private func removeDirectory(_ dir: String) {
        for n in (directoryEntries(dir) ?? []) { unlink(dir + "/" + n) }
        rmdir(dir)
    }

    private func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0)
        _ = OutputTransaction.writeAll(bytes, to: fd)
        close(fd)
    }

    private func contents(_ path: String) -> String? {
        (try? FileBytes.read(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A journal as a killed process leaves it: `entries` written when `committed`.
    private func journal(_ dir: String, _ id: String, committed: Bool, _ entries: [(String, String)]) {
        var bytes: [UInt8] = []
        if committed {
            bytes = OutputJournal.header
            for (t, f) in entries { bytes += Array(t.utf8) + [0] + Array(f.utf8) + [0] }
            bytes += OutputJournal.endMark
        }
        write("\(dir)/.facescan-\(id).journal", bytes)
    }

    private func age(_ path: String, seconds: Int) {
        var times = [
            timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0),
        ]
        utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func committedJournalIsRolledForward() throws {
        let dir = freshDirectory("forward")
        defer { removeDirectory(dir) }
        // Killed mid-commit: a.stl already renamed, b.obj and c.png still temporaries.
        write(dir + "/a.stl", Array("new a".utf8))
        write(dir + "/b.obj", Array("old b".utf8))
        write(dir + "/c.png", Array("old c".utf8))
        write(dir + "/.facescan-AbC123-b.obj", Array("new b".utf8))
        write(dir + "/.facescan-AbC123-c.png", Array("new c".utf8))
        journal(
            dir, "AbC123", committed: true,
            [
                (".facescan-AbC123-a.stl", "a.stl"), (".facescan-AbC123-b.obj", "b.obj"),
                (".facescan-AbC123-c.png", "c.png"),
            ])
        OutputJournal.recover(dir)
        #expect((directoryEntries(dir) ?? []).sorted() == ["a.stl", "b.obj", "c.png"])
        #expect(contents(dir + "/b.obj") == "new b")
        #expect(contents(dir + "/c.png") == "new c")
    }

    @Test func uncommittedJournalIsRolledBack() throws {
        let dir = freshDirectory("back")
        defer { removeDirectory(dir) }
        write(dir + "/a.stl", Array("old a".utf8))
        write(dir + "/.facescan-XyZ789-a.stl", Array("half".utf8))
        journal(dir, "XyZ789", committed: false, [])
        OutputJournal.recover(dir)
        #expect((directoryEntries(dir) ?? []) == ["a.stl"])
        #expect(contents(dir + "/a.stl") == "old a")
    }

    @Test func liveJournalIsLeftAlone() throws {
        let dir = freshDirectory("live")
        defer { removeDirectory(dir) }
        let t = OutputTransaction()
        try t.stage(Array("x".utf8), to: dir + "/x.txt")
        let before = (directoryEntries(dir) ?? []).sorted()
        #expect(before.count == 2, "\(before)")
        OutputJournal.recover(dir)  // the journal is locked by this process's transaction
        #expect((directoryEntries(dir) ?? []).sorted() == before)
        try t.commit()
        #expect((directoryEntries(dir) ?? []) == ["x.txt"])
    }

    @Test func orphanTemporariesGoOnlyWhenStale() throws {
        let dir = freshDirectory("orphan")
        defer { removeDirectory(dir) }
        write(dir + "/.facescan-Orph01-a.stl", [1])
        write(dir + "/.facescan-Orph02-b.stl", [2])
        write(dir + "/.facescan-Orph03.new", [])
        write(dir + "/.other-file", [3])
        age(dir + "/.facescan-Orph01-a.stl", seconds: 60)
        age(dir + "/.facescan-Orph03.new", seconds: 60)
        OutputJournal.recover(dir)
        #expect((directoryEntries(dir) ?? []).sorted() == [".facescan-Orph02-b.stl", ".other-file"])
    }

    @Test func firstTransactionIntoADirectoryCleansUp() throws {
        let dir = freshDirectory("first")
        defer { removeDirectory(dir) }
        write(dir + "/.facescan-Dead00-out.stl", Array("half".utf8))
        journal(dir, "Dead00", committed: false, [])
        try OutputTransaction.write(Array("fresh".utf8), to: dir + "/other.txt")
        #expect((directoryEntries(dir) ?? []) == ["other.txt"])
    }

    @Test func journalParsing() {
        let good = OutputJournal.header + Array("t1\u{0}f1\u{0}".utf8) + OutputJournal.endMark
        #expect(OutputJournal.parse(good)?.map { "\($0.temp)>\($0.final)" } == ["t1>f1"])
        #expect(OutputJournal.parse(Array(good.dropLast())) == nil)
        #expect(OutputJournal.parse([]) == nil)
        let escape = OutputJournal.header + Array("t1\u{0}../f1\u{0}".utf8) + OutputJournal.endMark
        #expect(OutputJournal.parse(escape) == nil)
    }

    @Test func nonRegularTargetsAreRefused() throws {
        let dir = freshDirectory("kinds")
        defer { removeDirectory(dir) }
        #expect(mkfifo(dir + "/fifo.stl", 0o644) == 0)
        for (path, word) in [(dir + "/fifo.stl", "FIFO"), ("/dev/null", "device")] {
            do {
                try OutputTransaction.write([1], to: path)
                Issue.record("\(path) was replaced")
            } catch {
                #expect(error.description.contains(word), "\(error)")
            }
        }
        var st = stat()
        #expect(lstat(dir + "/fifo.stl", &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
        #expect((directoryEntries(dir) ?? []) == ["fifo.stl"])
    }
}
