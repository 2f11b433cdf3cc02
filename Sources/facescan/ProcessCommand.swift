import ArgumentParser
import FaceScanKit

struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "process", abstract: "Process a capture into STL, OBJ and PNG.")
    @Argument(help: "Capture file (JSON or NDJSON), or - for standard input.") var input: String
    func run() throws {}
}
