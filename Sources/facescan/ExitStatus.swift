import FaceScanKit
import FacescanTools

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

/// Exit 3's way out: the gate reason that rejected most frames and the option that relaxes it.
enum GateHint {
    static func text(_ report: Report) -> String {
        let r = report.frames.rejected
        let reasons: [(count: Int, hint: String)] = [
            (r.distance, "distance: --min-distance and --max-distance (metres) widen the accepted range"),
            (r.lighting, "lighting: --min-light (lumens) accepts darker frames"),
            (
                r.expression,
                "expression: --max-jaw-open, --max-smile and --max-brow-up (0 to 1) accept more expression"
            ),
            (r.tracking, "tracking: no option relaxes it (frames need trackingState normal); record again"),
        ]
        guard let most = reasons.max(by: { $0.count < $1.count }), most.count > 0 else { return "" }
        return "; most were rejected for \(most.hint)"
    }

    /// `failure`'s one-line message, with the hint for exit 3; the solid step's advice names
    /// the options by the command line's flags (`--thickness`, not `SolidOptions.thickness`).
    static func message(_ failure: FaceScanError) -> String {
        if case .noAcceptedFrames(let e) = failure { return "\(failure)" + text(e.report) }
        return SolidFlags.inFlags("\(failure)")
    }
}
