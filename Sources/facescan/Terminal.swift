import ArgumentParser
import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a terminal on a standard stream means for a command: nothing is waited on in silence,
/// and no binary bytes are written onto a screen.
enum Terminal {
    static var stdinIsTerminal: Bool { isatty(0) != 0 }
    static var stdoutIsTerminal: Bool { isatty(1) != 0 }

    /// Formats written as text (readable on a terminal); every other format is binary.
    static let textFormats: Set<FileFormat> = [.obj, .off, .dae, .x3d, .x]

    /// Refuses (exit 2) to write `format` (nil: OBJ, the default on standard output) to standard
    /// output when it is a terminal and the format is binary.
    static func refuseBinaryOutput(_ path: String, format: FileFormat?) throws {
        guard path == "-", stdoutIsTerminal else { return }
        let format = format ?? .obj
        guard !textFormats.contains(format) else { return }
        let f = format.name
        throw ValidationError(
            "refusing to write binary \(f.uppercased()) to a terminal: redirect standard output (> out.\(f)) or name an output file"
        )
    }

    /// Refuses (exit 2) to read `what` from standard input when it is a terminal: a capture or a
    /// mesh is not typed, it comes from a pipe or a file.
    static func refuseTerminalInput(_ path: String, what: String, example: String) throws {
        guard path == "-", stdinIsTerminal else { return }
        throw UsageError(
            "standard input is a terminal: - reads \(what) from a pipe or a redirection (\(example)); or name the file")
    }
}
