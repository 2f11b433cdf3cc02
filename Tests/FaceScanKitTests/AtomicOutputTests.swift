import Foundation
import Testing

@testable import FaceScanKit

@Suite struct AtomicOutputTests {
    @Test func failedTransactionLeavesNothingAndKeepsOldFile() throws {
        let dir = makeTempDir()
        let keep = dir + "/face.stl"
        writeText("previous", to: keep)
        let t = OutputTransaction()
        try t.stage(Array("new".utf8), to: keep)
        // A second output fails (its directory is missing): the whole transaction is abandoned.
        #expect(throws: IOFailure.self) { try t.stage([1], to: dir + "/missing/face.obj") }
        t.abort()
        #expect(try String(contentsOfFile: keep, encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["face.stl"])
    }

    @Test func commitReplacesAndRefusesSymlinks() throws {
        let dir = makeTempDir()
        try OutputTransaction.write(Array("one".utf8), to: dir + "/a.obj")
        try OutputTransaction.write(Array("two".utf8), to: dir + "/a.obj")
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.stl", withDestinationPath: dir + "/a.obj")
        #expect(throws: IOFailure.self) { try OutputTransaction.write([1], to: dir + "/link.stl") }
        #expect(try String(contentsOfFile: dir + "/a.obj", encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.obj", "link.stl"])
    }
}
