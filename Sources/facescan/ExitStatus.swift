import FaceScanKit

/// facescan's exit codes (README, `facescan --help`): 0 success, 1 I/O or internal error, 2 bad
/// input or usage, 3 no frame passed the quality gate. The library reports ``FaceScanError``; the
/// mapping to a process status lives here, in the command line alone.
enum ExitStatus {
    static func of(_ error: FaceScanError) -> Int32 {
        switch error {
        case .badInput, .badSetting: 2
        case .noAcceptedFrames: 3
        // A format or feature left out of this build cannot be honoured: a usage error.
        case .unavailable: 2
        case .io, .cancelled: 1
        }
    }

    /// `error` as a ``FaceScanError`` when FaceScanKit (or the CLI itself) raised it — the error
    /// type or one of its payloads — else nil (ArgumentParser's own errors, for instance).
    static func failure(_ error: any Error) -> FaceScanError? {
        switch error {
        case let e as FaceScanError: e
        case let e as InputError: .badInput(e)
        case let e as UsageError: .badSetting(e)
        case let e as IOFailure: .io(e)
        case let e as NoAcceptedFrames: .noAcceptedFrames(e)
        default: nil
        }
    }
}

extension Batch.Outcome {
    /// The capture's exit status as a single `process` run would end with it.
    var exitStatus: Int32 { failure.map(ExitStatus.of) ?? 0 }
}
