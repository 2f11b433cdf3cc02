import FaceScanCore
import Foundation
import Testing

/// The library's own writing (`AtomicFile`): whole files, old ones kept on failure, only
/// regular files replaced, no temporary left.
@Suite struct AtomicFileTests {
    @Test func writeReplacesAndRefusesSymlinks() throws {
        let dir = makeTempDir()
        try AtomicFile.write(Array("one".utf8), to: dir + "/a.obj")
        try AtomicFile.write(Array("two".utf8), to: dir + "/a.obj")
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.stl", withDestinationPath: dir + "/a.obj")
        #expect(throws: IOFailure.self) { try AtomicFile.write([1], to: dir + "/link.stl") }
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.obj", "link.stl"])
    }

    @Test func aSetThatFailsReplacesNothing() throws {
        let dir = makeTempDir()
        writeText("previous", to: dir + "/face.stl")
        #expect(mkfifo(dir + "/face.obj", 0o644) == 0)
        // The second file cannot be written (a FIFO is there): the first is not replaced either.
        #expect(throws: IOFailure.self) {
            try AtomicFile.writeSet([(dir + "/face.stl", Array("new".utf8)), (dir + "/face.obj", [1])])
        }
        #expect(try String(contentsOfFile: dir + "/face.stl", encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["face.obj", "face.stl"])
        try AtomicFile.writeSet([(dir + "/face.stl", Array("new".utf8)), (dir + "/face.png", [2])])
        #expect(try String(contentsOfFile: dir + "/face.stl", encoding: .utf8) == "new")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["face.obj", "face.png", "face.stl"])
    }

    @Test func nonRegularTargetsAreRefused() throws {
        let dir = makeTempDir()
        #expect(mkfifo(dir + "/fifo.stl", 0o644) == 0)
        for (path, word) in [(dir + "/fifo.stl", "FIFO"), ("/dev/null", "device")] {
            do {
                try AtomicFile.write([1], to: path)
                Issue.record("\(path) was replaced")
            } catch {
                #expect(error.description.contains(word), "\(error)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["fifo.stl"])
    }
}
