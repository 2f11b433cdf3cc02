import Foundation
import Testing

/// `make install` / `make uninstall` into a temporary prefix, and the installed man page read by
/// man(1). Uses the release binary and man page `make test` builds before the tests (`make
/// release man`); install is run with both marked up to date (`make -o release -o man`), so the
/// test never builds inside the checkout while `swift test` holds it.
@Suite(.serialized) struct InstallCLITests {
    static let release = packageRoot + "/.build/release/facescan"
    static let manPage = packageRoot + "/.build/man/facescan.1"

    func run(_ path: String, _ args: [String], cwd: String? = nil, env: [String: String] = [:]) throws -> (
        status: Int32, out: String, err: String
    ) {
        let r = try runProgram(
            path, args, cwd: cwd, environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// What the test needs and is missing: the release binary and man page (`make test` builds
    /// them first) and man(1).
    static let missing: [String] = {
        let fm = FileManager.default
        var missing: [String] = []
        if !fm.isExecutableFile(atPath: release) { missing.append(release + " (make release)") }
        if !fm.fileExists(atPath: manPage) { missing.append(manPage + " (make man)") }
        if !fm.isExecutableFile(atPath: "/usr/bin/man") {
            missing.append("/usr/bin/man (make test-deps installs man-db)")
        }
        return missing
    }()

    @Test(
        .enabled(
            if: Tool.inCI || missing.isEmpty,
            "the release binary, its man page or man(1) is missing (make test builds them first)"))
    func installIntoAPrefixThenUninstall() throws {
        try #require(Self.missing.isEmpty, "missing with CI set: \(Self.missing.joined(separator: ", "))")
        let fm = FileManager.default
        let prefix = tempDir() + "/prefix with space"
        let make = try run(
            "/usr/bin/make", ["-C", packageRoot, "-o", "release", "-o", "man", "install", "PREFIX=\(prefix)"])
        #expect(make.status == 0, "\(make.out)\(make.err)")
        let bin = prefix + "/bin/facescan"
        let files = [
            bin, prefix + "/share/man/man1/facescan.1", prefix + "/share/bash-completion/completions/facescan",
            prefix + "/share/zsh/site-functions/_facescan", prefix + "/share/fish/vendor_completions.d/facescan.fish",
        ]
        for f in files { #expect(fm.fileExists(atPath: f), "\(f) not installed") }

        // The installed binary runs and is the release build.
        let v = try run(bin, ["--version"])
        let rv = try run(Self.release, ["--version"])
        #expect(v.status == 0 && !v.out.isEmpty && v.out == rv.out)
        let help = try run(bin, ["batch", "--help"])
        #expect(help.status == 0 && help.out.contains("--resume"))

        // man reads the page: NAME, the subcommands and their options.
        let page = try run(
            "/usr/bin/man", ["-l", prefix + "/share/man/man1/facescan.1"],
            env: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"])
        #expect(page.status == 0, "\(page.err)")
        for word in ["facescan", "NAME", "process", "batch", "--output-dir", "--resume", "--recursive", "inspect"] {
            #expect(page.out.contains(word), "man page lacks \(word)")
        }
        // Every output format, 3mf too; no help text mangled (Greek letters once left "(Taubin |").
        let words = page.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("3mf (lib3mf)"), "man page's --formats lacks 3mf")
        #expect(words.contains("uncertainty.png"), "man page's --formats lacks uncertainty.png")
        #expect(page.out.contains("Taubin smoothing passes (0 disables)"))
        // The bash completion script is valid bash and completes the subcommands.
        let bash = try run(
            "/bin/bash",
            [
                "-c",
                "source \"$1\" && COMP_WORDS=(facescan pro) COMP_CWORD=1 && _facescan && echo \"${COMPREPLY[@]}\"", "-",
                prefix + "/share/bash-completion/completions/facescan",
            ])
        #expect(bash.status == 0 && bash.out.contains("process"), "\(bash.out)\(bash.err)")

        let un = try run("/usr/bin/make", ["-C", packageRoot, "uninstall", "PREFIX=\(prefix)"])
        #expect(un.status == 0, "\(un.err)")
        for f in files { #expect(!fm.fileExists(atPath: f), "\(f) left after uninstall") }
    }
}
