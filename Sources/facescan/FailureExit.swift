import ArgumentParser
import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a command body; a ``FaceScanFailure`` is printed as `facescan: <description>` on
/// standard error and becomes the process exit code.
func exitingOnFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as any FaceScanFailure {
        let line = Array("facescan: \(failure.description)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        throw ExitCode(failure.exitCode)
    }
}
