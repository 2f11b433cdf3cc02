import Testing

@testable import FaceScanKit

#if canImport(Glibc)
import Glibc
#endif

/// A fresh, empty directory under /tmp.
private func freshDirectory(_ name: String) -> String {
    var template = Array("/tmp/facescan-atomic-\(getpid())-\(name)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// The names in `dir`, sorted, without `.` and `..`.
private func names(in dir: String) -> [String] { (directoryEntries(dir) ?? []).sorted() }

/// Removes `dir` and the files in it.
private func removeDirectory(_ dir: String) {
    for n in names(in: dir) { unlink(dir + "/" + n) }
    rmdir(dir)
}

/// The contents of the file at `path`, or nil.
private func contents(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = [], buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n <= 0 { return out }
        out += buf[0..<n]
    }
}

/// The process-wide table of temporary files that SIGINT/SIGTERM/SIGHUP remove. Other suites
/// stage files in parallel, so these tests look only at their own paths in the table.
@Suite struct AtomicWriteTests {
    @Test func tableListsStagedFilesUntilCommitOrAbort() throws {
        let dir = freshDirectory("table")
        defer { removeDirectory(dir) }
        let a = OutputTransaction(), b = OutputTransaction()
        try a.stage(Array("first\n".utf8), to: dir + "/a.txt")
        try b.stage(Array("second\n".utf8), to: dir + "/b.txt")

        // Two hidden temporary files and a journal per transaction, all listed.
        let temps = names(in: dir).map { dir + "/" + $0 }
        #expect(temps.count == 4, "\(temps)")
        #expect(temps.filter { $0.hasSuffix("-a.txt") || $0.hasSuffix("-b.txt") }.count == 2, "\(temps)")
        #expect(temps.filter { $0.hasSuffix(".journal") }.count == 2, "\(temps)")
        #expect(temps.allSatisfy { $0.hasPrefix(dir + "/.facescan-") }, "\(temps)")
        let listed = Set(OutputTransaction.pendingTemporaryFiles())
        for t in temps { #expect(listed.contains(t), "\(t) not listed") }

        try a.commit()
        b.abort()
        let after = Set(OutputTransaction.pendingTemporaryFiles())
        for t in temps { #expect(!after.contains(t), "\(t) still listed") }
        #expect(after.allSatisfy { !$0.hasPrefix(dir + "/") }, "\(after)")
        #expect(names(in: dir) == ["a.txt"])
        #expect(contents(dir + "/a.txt") == Array("first\n".utf8))
    }

    @Test func deinitAndFailedCommitTakeFilesOffTheTable() throws {
        let dir = freshDirectory("deinit")
        defer { removeDirectory(dir) }
        do {
            let t = OutputTransaction()
            try t.stage([1, 2, 3], to: dir + "/dropped.bin")
            #expect(
                OutputTransaction.pendingTemporaryFiles().contains {
                    $0.hasPrefix(dir + "/.facescan-") && $0.hasSuffix("-dropped.bin")
                })
        }
        #expect(!OutputTransaction.pendingTemporaryFiles().contains { $0.hasPrefix(dir + "/") })
        #expect(names(in: dir).isEmpty)

        // A rename that fails (the target became a directory) removes the file and its entry.
        let t = OutputTransaction()
        try t.stage([4, 5], to: dir + "/target")
        #expect(mkdir(dir + "/target", 0o755) == 0)
        #expect(throws: IOFailure.self) { try t.commit() }
        #expect(!OutputTransaction.pendingTemporaryFiles().contains { $0.hasPrefix(dir + "/") })
        #expect(names(in: dir) == ["target"])
        rmdir(dir + "/target")
    }

    @Test func transactionsOnManyThreadsEachGetTheirOwnEntries() async throws {
        let dir = freshDirectory("threads")
        defer { removeDirectory(dir) }
        let tasks = 8, files = 10
        // Each task stages its files, checks that all of them are listed, then commits half and
        // aborts half (one transaction each).
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let keep = OutputTransaction(), drop = OutputTransaction()
                    for f in 0..<files {
                        try (f.isMultiple(of: 2) ? keep : drop).stage(
                            [UInt8(task), UInt8(f)], to: "\(dir)/t\(task)-\(f)")
                    }
                    let mine = OutputTransaction.pendingTemporaryFiles().filter {
                        $0.hasPrefix("\(dir)/.facescan-") && $0.contains("-t\(task)-")
                    }
                    try keep.commit()
                    drop.abort()
                    return mine.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(seen == Array(repeating: files, count: tasks))
        #expect(!OutputTransaction.pendingTemporaryFiles().contains { $0.hasPrefix(dir + "/") })
        let expected = (0..<tasks).flatMap { t in stride(from: 0, to: files, by: 2).map { "t\(t)-\($0)" } }.sorted()
        #expect(names(in: dir) == expected)
    }

    @Test func nameNearTheLengthLimitIsWritten() throws {
        let dir = freshDirectory("long")
        defer { removeDirectory(dir) }
        // 250 bytes: the usual ".<name>.XXXXXX" temporary name would pass the 255-byte limit.
        let name = String(repeating: "n", count: 246) + ".stl"
        let t = OutputTransaction()
        try t.stage(Array("solid\n".utf8), to: dir + "/" + name)
        try t.commit()
        #expect(names(in: dir) == [name])
        #expect(contents(dir + "/" + name) == Array("solid\n".utf8))
    }
}
