import ArgumentParser
import FaceScanKit

@main
struct FaceScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facescan",
        abstract: "Turn a recorded face-tracking capture into a print-ready mesh.",
        version: FaceScanKit.version,
        subcommands: [ProcessCommand.self, SimplifyCommand.self])
}
