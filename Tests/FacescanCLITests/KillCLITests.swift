import FaceScanKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL (no handler runs) at pseudo-random moments of `process` (a seeded generator, so the
/// same fractions of a run are tried on every run of the test): after the next run into the
/// directory, the set of outputs is entirely the old one or entirely the new one, and no
/// temporary file or journal is left.
@Suite(.serialized) struct KillCLITests {
    private func digest(_ dir: String, _ names: [String]) -> [Data?] {
        names.map { FileManager.default.contents(atPath: dir + "/" + $0) }
    }

    @Test func outputSetIsAllOldOrAllNewAfterSIGKILL() throws {
        let captures = sampleCaptures()
        let a = try #require(captures.first { $0.dir.hasSuffix("/mediapipe") } ?? captures.first)
        let b = try #require(captures.first { $0.dir.hasSuffix("/ict-neutral") } ?? captures.last)
        #expect(a.capture != b.capture)
        let out = tempDir()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let names = ["face.stl", "face.obj", "face.png", "face.ply"]
        func run(_ capture: String, name: String = "face") throws -> Int32 {
            try runFacescan([
                "process", capture, "--output-dir", out, "--name", name, "--formats", "stl,obj,png,ply",
                "--thumbnail-size", "256",
            ]).status
        }
        // The two complete sets, each written once from scratch.
        #expect(try run(b.capture) == 0)
        let setB = digest(out, names)
        let started = Date()
        #expect(try run(a.capture) == 0)
        let fullRun = Date().timeIntervalSince(started)
        let setA = digest(out, names)
        #expect(
            setA.allSatisfy { $0 != nil } && zip(setA, setB).allSatisfy { $0 != $1 },
            "the two sets must differ in every file")

        var g = SplitMix64(seed: 39)
        var outcomes = (old: 0, new: 0)
        for round in 0..<6 {
            let before = digest(out, names)
            let next = before == setA ? b.capture : a.capture
            let pid = try Spawn.start(
                facescanBinary,
                [
                    "process", next, "--output-dir", out, "--name", "face", "--formats", "stl,obj,png,ply",
                    "--thumbnail-size", "256",
                ])
            // Anywhere from the start to a little after a whole run takes.
            usleep(UInt32.random(in: 10_000...max(20_000, UInt32(fullRun * 1.2e6)), using: &g))
            kill(pid, SIGKILL)
            _ = Spawn.rawWait(pid)
            // The next run into the directory finishes or undoes what the killed one left.
            #expect(try run(b.capture, name: "other\(round)") == 0)
            let after = digest(out, names)
            let isOld = after == before, isNew = after == (next == a.capture ? setA : setB)
            #expect(isOld || isNew, "round \(round): a mixed set")
            if isNew && !isOld { outcomes.new += 1 } else { outcomes.old += 1 }
            let hidden = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter {
                $0.hasPrefix(".")
            }
            #expect(hidden.isEmpty, "round \(round): left behind \(hidden)")
        }
        print("SIGKILL rounds: \(outcomes.old) old sets, \(outcomes.new) new sets")
    }
}
