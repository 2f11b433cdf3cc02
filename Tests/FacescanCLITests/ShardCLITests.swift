import Foundation
import Testing

/// `batch --shard K/N`: shards count from 0, and shards started together share one output directory.
@Suite struct ShardCLITests {
    /// Shards that start at the same instant, all writing into one new output directory: every
    /// one creates it or finds it made by a sibling, and all finish. The processes wait on their
    /// standard input (the list of captures), which is written to all of them at once. (Before
    /// `EEXIST` from a sibling counted as success, about one round in five lost a shard here.)
    @Test func shardsStartingTogetherAllCreateTheOutputDirectory() throws {
        let root = tempDir()
        let count = 8
        var list = ""
        for i in 0..<count {
            let path = root + "/cap\(i).json"
            try smallCapture(frames: [goodMeta]).write(toFile: path, atomically: false, encoding: .utf8)
            list += path + "\n"
        }
        for round in 0..<8 {
            let out = root + "/out\(round)/"
            var children: [(Process, Pipe, Pipe)] = []
            for k in 0..<count {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: fastFacescanBinary)
                p.arguments = [
                    "batch", "-", "-o", out, "--shard", "\(k)/\(count)", "--formats", "stl", "-n", "144", "-q",
                ]
                let input = Pipe(), err = Pipe()
                p.standardInput = input
                p.standardOutput = FileHandle.nullDevice
                p.standardError = err
                try p.run()
                children.append((p, input, err))
            }
            usleep(200_000)  // every child is waiting on its list
            for (_, input, _) in children {
                try input.fileHandleForWriting.write(contentsOf: Data(list.utf8))
                try input.fileHandleForWriting.close()
            }
            for (k, (p, _, err)) in children.enumerated() {
                let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 0, "round \(round), shard \(k): \(message)")
            }
            let made = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter {
                $0.hasSuffix(".stl")
            }
            #expect(made.count == count, "round \(round): \(made)")
        }
    }

    /// --shard N/N (counting from 1) is refused saying that shards count from 0, with the Slurm line.
    @Test func shardsCountFromZero() throws {
        let dir = tempDir()
        try smallCapture(frames: [goodMeta]).write(toFile: dir + "/a.json", atomically: false, encoding: .utf8)
        let r = try runFacescan(["batch", dir + "/a.json", "--shard", "3/3", "-o", dir + "/o"])
        expectOneLine(r, status: 2, "shards count from 0", "0 to 2", "--array=0-2")
    }
}
