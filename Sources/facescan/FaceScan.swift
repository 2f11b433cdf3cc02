import ArgumentParser
import FaceScanKit
import FacescanTools

#if canImport(Glibc)
import Glibc
#endif

@main
struct FaceScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facescan",
        abstract: "Turn a recorded face-tracking capture into a print-ready mesh.",
        discussion: """
            Exit codes: 0 success, 1 I/O or internal error, 2 bad input or usage, \
            3 no frame passed the quality gate.
            """,
        version: FaceScanKit.version,
        subcommands: [
            ProcessCommand.self, RenderCommand.self, ConvertCommand.self, InspectCommand.self, CompareCommand.self,
            RegressCommand.self, BatchCommand.self, SimplifyCommand.self, SolidifyCommand.self,
        ])

    /// Runs the command line and maps every failure to facescan's exit codes (usage errors → 2).
    /// Every error is one line on standard error; `--help` and `--version` print in full on
    /// standard output. SIGINT, SIGTERM and SIGHUP remove the temporary files of unfinished
    /// outputs before the process dies (``Interrupts``).
    static func main() {
        Interrupts.install()
        if let script = Completions.fishScriptRequested(CommandLine.arguments) {
            print(script)
            return
        }
        do {
            try checkSubcommandName()
            var command = try parseAsRoot()
            try command.run()
            // Reports printed on standard output must have arrived (a full disk, a closed pipe).
            if fflush(nil) != 0 {
                throw IOFailure(path: "-", "write to standard output failed: \(systemErrorText())")
            }
        } catch {
            if let failure = ExitStatus.failure(error) {
                Console.error("facescan: \(GateHint.message(failure))")
                posixExit(ExitStatus.of(failure))
            }
            let code = exitCode(for: error)
            if code == .success {
                let message = fullMessage(for: error)
                if !message.isEmpty { print(message) }
                // --help and --version: output that did not arrive is a failure (closed stdout, full disk).
                if fflush(nil) != 0 {
                    Console.error("facescan: write to standard output failed: \(systemErrorText())")
                    posixExit(1)
                }
                posixExit(0)
            }
            let message = withSuggestion(oneLineMessage(message(for: error)))
            if !message.isEmpty { Console.error("facescan: \(message)") }
            posixExit(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    /// A first argument that is neither an option nor a subcommand is a usage error, with the
    /// nearest subcommand suggested (`proces` → `process`).
    static func checkSubcommandName() throws {
        guard let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-") else { return }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return }
        let hint = Suggestions.nearest(first, in: names).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError("unknown command '\(first)'\(hint) (commands: \(names.dropLast().joined(separator: ", ")))")
    }

    /// An unknown option that ArgumentParser found no suggestion for gets one when it is a prefix
    /// or a near miss of the subcommand's options (`--output` → `--output-dir`).
    static func withSuggestion(_ message: String) -> String {
        guard message.hasPrefix("Unknown option '--"), !message.contains("Did you mean"),
            let end = message.dropFirst(16).firstIndex(of: "'")
        else { return message }
        let option = String(message[message.index(message.startIndex, offsetBy: 16)..<end])
        let args = CommandLine.arguments.dropFirst()
        let sub = args.first.flatMap { name in configuration.subcommands.first { $0.configuration.commandName == name }
        }
        let help = sub.map { helpMessage(for: $0) } ?? helpMessage()
        let options = Suggestions.longOptions(inHelp: help).filter { $0 != "--help" && $0 != option }
        guard let near = Suggestions.nearest(option, in: options) else { return message }
        return message + ". Did you mean '\(near)'?"
    }

    /// `text` on one line: its non-empty lines, trimmed, joined by "; ".
    static func oneLineMessage(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { line in line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed() }
            .map { String($0) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}

/// Standard-error output for the commands.
enum Console {
    static func error(_ line: String) {
        raw(line.hasSuffix("\n") ? line : line + "\n")
    }

    /// Writes text to standard error as is (progress lines use `\r`).
    static func raw(_ text: String) {
        var bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { return }
            off += n
        }
    }

    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
