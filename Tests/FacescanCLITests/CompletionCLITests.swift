import Foundation
import Testing

/// The completion scripts (`--generate-completion-script bash|zsh|fish`, what `make install`
/// installs) complete file names for inputs (captures for `process`, meshes for the mesh
/// commands), directories for `-o`, and the values of `--formats` (a comma-separated list),
/// `--shard` (`K/N`) and `--units`, checked by driving each shell's completion in a directory of
/// known files. A shell that is not installed is reported as a skipped test, and is a failure when
/// `CI` is set (``Tool``).
@Suite(.serialized) struct CompletionCLITests {
    /// A directory holding captures, a mesh, a text file and a subdirectory; and the completion
    /// script for `shell` written into it.
    static func workspace(_ shell: String) throws -> (dir: String, script: String) {
        let dir = tempDir()
        for name in ["cap.json", "cap2.ndjson", "face.stl", "notes.txt"] {
            #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data()))
        }
        try FileManager.default.createDirectory(atPath: dir + "/outdir", withIntermediateDirectories: true)
        let r = try runFacescan(["--generate-completion-script", shell])
        #expect(r.status == 0 && !r.stdout.isEmpty, "\(r.stderr)")
        let script = dir + "/.completion." + shell
        try r.stdout.write(toFile: script, atomically: false, encoding: .utf8)
        return (dir, script)
    }

    /// Runs `executable` with `args` in `cwd`, facescan's directory first on PATH; its status and
    /// standard output.
    static func run(_ executable: String, _ args: [String], cwd: String) throws -> (status: Int32, out: String) {
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = (facescanBinary as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["HOME"] = cwd
        let r = try runProgram(executable, args, cwd: cwd, environment: env)
        return (r.status, String(decoding: r.stdout, as: UTF8.self))
    }

    /// bash: the script sourced, its function called as bash calls it (COMP_WORDS, COMP_CWORD,
    /// COMP_LINE, COMP_POINT set), COMPREPLY printed one per line.
    @Test(.enabled(if: Tool.available("bash"), "bash is not installed (make test-deps installs it)"))
    func bashCompletesFilesDirectoriesAndValues() throws {
        let bash = try Tool.require("bash")
        let (dir, script) = try Self.workspace("bash")
        func complete(_ words: [String]) throws -> Set<String> {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(script)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                COMPREPLY=()
                _facescan facescan "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try Self.run(bash, ["-c", program], cwd: dir)
            #expect(r.status == 0)
            return Set(r.out.split(separator: "\n").map(String.init))
        }
        #expect(try complete(["facescan", "process", "ca"]) == ["cap.json", "cap2.ndjson"])
        #expect(try complete(["facescan", "process", ""]) == ["cap.json", "cap2.ndjson", "outdir"])
        #expect(try complete(["facescan", "process", "cap.json", "-o", ""]) == ["outdir"])
        #expect(try complete(["facescan", "process", "cap.json", "--output-dir", "ou"]) == ["outdir"])
        #expect(try complete(["facescan", "inspect", "f"]) == ["face.stl"])
        #expect(try complete(["facescan", "batch", "n"]) == ["notes.txt"])
        #expect(try complete(["facescan", "process", "cap.json", "--units", ""]) == ["mm", "m"])
        let formats = try complete(["facescan", "process", "cap.json", "--formats", ""])
        #expect(formats.isSuperset(of: ["stl", "obj", "png", "glb", "3mf", "ply"]), "\(formats)")
        #expect(try complete(["facescan", "process", "cap.json", "--formats", "stl,o"]) == ["stl,obj"])
        #expect(try complete(["facescan", "convert", "face.stl", "x.glb", "--format", "gl"]) == ["glb"])
        // --shard: the form K/N counting from 0, never a file name.
        #expect(try complete(["facescan", "batch", ".", "--shard", ""]) == ["0/1", "0/2", "0/3", "0/4"])
        #expect(try complete(["facescan", "batch", ".", "--shard", "1"]) == ["1/2", "1/3", "1/4", "1/5"])
        #expect(try complete(["facescan", "batch", ".", "--shard", "2/1"]) == ["2/10"])
        #expect(try complete(["facescan", "batch", ".", "--shard", "c"]) == [])
    }

    /// fish: `complete -C` on the command line typed so far.
    @Test(.enabled(if: Tool.available("fish"), "fish is not installed (make test-deps installs it)"))
    func fishCompletesFilesAndDirectories() throws {
        let fish = try Tool.require("fish")
        let (dir, script) = try Self.workspace("fish")
        func complete(_ line: String) throws -> Set<String> {
            let r = try Self.run(fish, ["-c", "source '\(script)'; complete -C '\(line)'"], cwd: dir)
            #expect(r.status == 0)
            // Each candidate, then a tab and its description.
            return Set(r.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
        }
        #expect(try complete("facescan process ca") == ["cap.json", "cap2.ndjson"])
        #expect(try complete("facescan process cap.json -o ") == ["outdir/"])
        #expect(try complete("facescan inspect f") == ["face.stl"])
        #expect(try complete("facescan process cap.json --units ") == ["mm", "m"])
        // Custom completions: fish 3 refuses ArgumentParser's `commandline -tC`; facescan's
        // script asks for the word instead (Completions.fishScript).
        #expect(try complete("facescan process cap.json --formats stl,o") == ["stl,obj"])
        #expect(try complete("facescan batch . --formats gl") == ["glb"])
        #expect(try complete("facescan batch . --shard ") == ["0/1", "0/2", "0/3", "0/4"])
        #expect(try complete("facescan batch . --shard 2/1") == ["2/10"])
    }

    /// zsh: an interactive zsh on a terminal, the script on its fpath, TAB typed after each line.
    @Test(.enabled(if: Tool.available("zsh"), "zsh is not installed (make test-deps installs it)"))
    func zshCompletesFilesDirectoriesAndFormats() throws {
        let zsh = try Tool.require("zsh")
        let (dir, script) = try Self.workspace("zsh")
        let functions = dir + "/.zfunc"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: script, toPath: functions + "/_facescan")
        let child = try TerminalChild(["-f", "-i"], stdoutPath: nil, executable: zsh)
        defer {
            child.type(Array("\u{15}exit\n".utf8))
            _ = child.wait()
        }
        let bin = (facescanBinary as NSString).deletingLastPathComponent
        child.type(
            Array(
                "cd '\(dir)'; PATH='\(bin)':$PATH; fpath=('\(functions)' $fpath); autoload -Uz compinit; compinit -u -D; PS1='READY> '\n"
                    .utf8))
        #expect(child.waitFor("READY> "), "\(child.output)")
        // The line as zsh shows it after TAB: the word completed as far as it is unambiguous.
        func tab(_ line: String, shows expected: String) {
            let offset = child.output.utf8.count
            child.type(Array("\u{15}\(line)\t".utf8))
            #expect(
                child.waitFor(expected, after: offset, seconds: 10), "\(line): \(child.output.utf8.dropFirst(offset))")
        }
        tab("facescan process cap.", shows: "facescan process cap.json")
        tab("facescan process cap.json -o o", shows: "-o outdir")
        tab("facescan inspect f", shows: "facescan inspect face.stl")
        tab("facescan process cap.json --formats stl,o", shows: "--formats stl,obj")
        tab("facescan batch . --shard 2/1", shows: "--shard 2/10")
    }
}
