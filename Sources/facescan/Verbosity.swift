import ArgumentParser

/// `-q/--quiet` and `-v/--verbose`, shared by every command.
struct Verbosity: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print nothing on standard error but errors (no progress, summary or warning).")
    var quiet = false

    @Flag(
        name: [.short, .long],
        help: "Print more on standard error: what was read and written, and the settings in force.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    /// A warning on standard error (`facescan: warning: …`) unless quiet.
    func warn(_ text: String) {
        if !quiet { Console.error("facescan: warning: \(text)") }
    }

    /// A note on standard error with --verbose only.
    func note(_ text: String) {
        if verbose { Console.error("facescan: \(text)") }
    }
}
