import Foundation
import Testing

// readelf and ldd: ELF platforms (Linux) only.
#if os(Linux)
/// A package outside this one, depending on it by path with `traits: []`, as an app would that
/// wants none of the optional C libraries: it must build, run the whole library (live frames
/// with verdicts, in-memory capture → mesh → STL/OBJ/PNG bytes, typed errors), and its binary
/// must link neither libpng nor libassimp nor lib3mf — while the default build links libpng and
/// opens assimp and lib3mf on first use (dlopen), so it needs neither at start-up.
///
/// The consumer is the `consumer` program of the Examples package (Examples/Sources/Consumer),
/// which depends on this one with `traits: []`. `make test` builds that package once (`make
/// examples`, before `swift test`) and names the binary in `FACESCAN_CONSUMER_BIN`; without it
/// the test builds a package of its own around the same source in a temporary directory (one
/// debug build of FaceScanKit, about 2 minutes on 2 cores). Skipped, with the reason, only where
/// neither is possible (no `swift` on PATH); under `CI` that is a failure instead.
@Suite(.serialized) struct ConsumerBuildTests {
    static let swift: String? = Tool.path("swift")
    /// The consumer `make examples` built, when `make test` names it.
    static let prebuilt: String? = ProcessInfo.processInfo.environment["FACESCAN_CONSUMER_BIN"]
    static let source = packageRoot + "/Examples/Sources/Consumer/main.swift"

    /// The C libraries the optional traits bring, as their sonames start.
    static let optionalLibraries = ["libpng", "libassimp", "lib3MF"]

    @Test(
        .enabled(
            if: prebuilt != nil || swift != nil || Tool.inCI,
            "no swift on PATH and no FACESCAN_CONSUMER_BIN: the consumer package cannot be built"),
        .timeLimit(.minutes(20)))
    func consumerWithoutTraitsBuildsRunsAndLinksNoOptionalLibrary() throws {
        let binary: String
        if let prebuilt = Self.prebuilt {
            binary = prebuilt
            try #require(
                FileManager.default.isExecutableFile(atPath: binary),
                "FACESCAN_CONSUMER_BIN names \(binary), which is not an executable (make examples builds it)")
        } else {
            binary = try Self.buildConsumer()
        }
        let out = try run(binary, [], cwd: tempDir())
        #expect(out.status == 0, "consumer failed:\n\(out.output)")
        let lines = Set(out.output.split(separator: "\n").map(String.init))
        for expected in [
            "too close: rejected, Move back — too close", "dark: rejected, Need better lighting",
            "live: complete 5/5", "live mesh: 100 vertices", "capture mesh: 100 vertices",
            "stl: binary, triangles match", "obj: vertices match", "png: signature, 64x64",
            "ply: unavailable", "3mf: unavailable", "png decode: unavailable",
            "index past the end: badInput triangles", "huge index: badInput triangles",
            "nan position: badInput positions", "size 0: badSetting RenderOptions.size",
            "supersample 0: badSetting RenderOptions.supersample", "target -1: badSetting -",
            "gate nan: badSetting ScanSettings.gate.maxDistance",
            "thickness -2: badSetting ScanSettings.solid.thickness", "int16 topology: badInput triangleIndices",
            "localized: ScanSettings.maxFrames must be at least 1, found 0",
            "settings json: round trip", "cancel: cancelled", "progress: done",
        ] {
            #expect(lines.contains(expected), "missing line '\(expected)' in:\n\(out.output)")
        }
        #expect(!out.output.contains("FAILED"), "\(out.output)")

        let needed = try Self.neededLibraries(binary)
        #expect(
            needed.contains { $0.hasPrefix("libc.so") || $0.hasPrefix("libswiftCore") },
            "readelf found no NEEDED entries: \(needed)")
        for lib in Self.optionalLibraries {
            #expect(!needed.contains { $0.hasPrefix(lib) }, "\(binary) needs \(lib): \(needed)")
        }
        let ldd = try run("/usr/bin/env", ["ldd", binary], cwd: "/")
        #expect(ldd.status == 0, "ldd failed: \(ldd.output)")
        for lib in Self.optionalLibraries {
            #expect(!ldd.output.contains(lib), "ldd lists \(lib):\n\(ldd.output)")
        }
    }

    /// Builds a package of its own (the Examples consumer's source, this package by path with
    /// `traits: []`) in a temporary directory; the binary's path.
    static func buildConsumer() throws -> String {
        let swift = try #require(swift, "no swift on PATH: the consumer build must run with CI set")
        let dir = tempDir()
        try FileManager.default.createDirectory(
            atPath: dir + "/Sources/consumer", withIntermediateDirectories: true)
        try manifest(dependingOn: packageRoot).write(
            toFile: dir + "/Package.swift", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: source, toPath: dir + "/Sources/consumer/main.swift")
        let started = Date()
        let build = try run(
            swift, ["build", "--package-path", dir, "--scratch-path", dir + "/.build"], cwd: dir)
        let seconds = Date().timeIntervalSince(started)
        print(
            "ConsumerBuildTests: consumer debug build (traits: []) took \(Int(seconds.rounded())) s"
        )
        try #require(build.status == 0, "consumer build failed:\n\(build.output.suffix(6000))")
        return dir + "/.build/debug/consumer"
    }

    @Test func defaultBuildLinksLibPNGAndOpensTheOthersOnUse() throws {
        let needed = try Self.neededLibraries(facescanBinary)
        #expect(needed.contains { $0.hasPrefix("libpng") }, "\(facescanBinary) does not need libpng: \(needed)")
        // assimp and lib3mf are opened by Sources/CAssimp/lazy.c and Sources/CLib3MF/lazy.c on the
        // first call (start-up cost); that they then work is what the format tests check.
        for lib in ["libassimp", "lib3MF"] {
            #expect(!needed.contains { $0.hasPrefix(lib) }, "\(facescanBinary) needs \(lib) at start-up: \(needed)")
        }
    }

    /// The `NEEDED` entries of an ELF binary's dynamic section (`readelf -d`).
    static func neededLibraries(_ binary: String) throws -> [String] {
        let r = try run("/usr/bin/env", ["readelf", "-d", binary], cwd: "/")
        try #require(r.status == 0, "readelf -d \(binary) failed: \(r.output)")
        // 0x0000000000000001 (NEEDED)             Shared library: [libpng16.so.16]
        return r.output.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["),
                let close = line.lastIndex(of: "]")
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    static func manifest(dependingOn root: String) -> String {
        """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "consumer",
            platforms: [.macOS(.v15), .iOS(.v18)],
            dependencies: [.package(path: "\(root)", traits: [])],
            targets: [
                .executableTarget(name: "consumer", dependencies: [.product(name: "FaceScanKit", package: "\(URL(fileURLWithPath: root).lastPathComponent)")]),
            ]
        )

        """
    }
}

/// Runs `executable` with `args` in `cwd`; standard output, then standard error.
private func run(_ executable: String, _ args: [String], cwd: String) throws -> (
    status: Int32, output: String
) {
    let r = try runProgram(executable, args, cwd: cwd)
    return (r.status, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
}
#endif
