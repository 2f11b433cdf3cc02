import ArgumentParser
import FaceScanKit
import FacescanTools
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes batch's result lines (each whole, with one write, as soon as it is known), the progress
/// line on a terminal, and the summary; on a signal, the summary of what finished.
final class BatchReporter: Sendable {
    private struct State {
        var done = 0, failed = 0, skipped = 0, skippedByOther = 0, processed = 0
        var firstFailure: Int32?
        var writeError: String?
        var progressShown = false
        var stopped = false
    }

    let total: Int
    let json: Bool
    let verbosity: Verbosity
    let progress: Bool
    let stdoutIsTerminal: Bool
    let startMs = Stopwatch.nowMs()
    private let state = Mutex(State())

    /// Inputs left out as not captures (``Batch/Inputs/ignored``), for the summary.
    let skippedInputs: Int

    init(total: Int, json: Bool, verbosity: Verbosity, skippedInputs: Int = 0) {
        self.skippedInputs = skippedInputs
        self.total = total
        self.json = json
        self.verbosity = verbosity
        progress = !verbosity.quiet && Console.stderrIsTerminal
        stdoutIsTerminal = isatty(1) != 0
    }

    func start() {
        state.withLock { s in drawProgress(&s) }
    }

    /// One capture's line (in input order).
    func emit(_ o: Batch.Outcome) {
        let line = Self.line(o, json: json) + "\n"
        state.withLock { s in
            guard !s.stopped else { return }
            s.done += 1
            if o.doneByOther {
                s.skippedByOther += 1
            } else if o.skipped {
                s.skipped += 1
            } else {
                s.processed += 1
            }
            if o.exitStatus != 0 {
                s.failed += 1
                if s.firstFailure == nil { s.firstFailure = o.exitStatus }
            }
            if s.progressShown && stdoutIsTerminal { clearProgress(&s) }
            if s.writeError == nil, let e = AtomicFile.writeAll(Array(line.utf8), to: 1) { s.writeError = e }
            if verbosity.verbose, let r = o.report, o.exitStatus == 0 {
                if s.progressShown { clearProgress(&s) }
                Console.error(Summary.text(r))
            }
            drawProgress(&s)
        }
    }

    static func line(_ o: Batch.Outcome, json: Bool) -> String {
        if json {
            var members: [(String, JSONValue)] = [("input", .string(o.input)), ("exitCode", .int(Int(o.exitStatus)))]
            if let e = o.error { members.append(("error", .string(e))) }
            if let stored = o.storedReport {
                members.append(("skipped", .bool(true)))
                members.append(("report", stored))
            } else if let r = o.report {
                members.append(("report", r.json))
            }
            return JSONValue.object(members).serialized()
        }
        if o.skipped {
            return o.doneByOther
                ? "SKIP \(o.input): done by another facescan batch into the same directory"
                : "SKIP \(o.input): done earlier (\(o.name).report.json and its outputs are whole)"
        }
        if let r = o.report, o.exitStatus == 0 {
            return
                "OK   \(o.input): \(r.frames.accepted)/\(r.frames.read) frames, \(r.mesh.outputVertices) vertices, \(Summary.ms(r.timingsMs.total))"
        }
        return "FAIL \(o.input): exit \(o.exitStatus): \(o.failure.map(GateHint.message) ?? "")"
    }

    /// After the last capture: the summary, and the exit code.
    func finish() throws {
        let (text, failure, writeError) = state.withLock { s in
            if s.progressShown { clearProgress(&s) }
            return (summary(s), s.firstFailure, s.writeError)
        }
        if !verbosity.quiet { Console.error(text) }
        if let writeError { throw IOFailure(path: "-", "write to standard output failed: \(writeError)") }
        if let failure { throw ExitCode(failure) }
    }

    /// On SIGINT, SIGTERM or SIGHUP (from the stopping thread, ``Interrupts``, once the outputs
    /// of unfinished captures are removed): no line after this one, the summary printed; the
    /// process exits 128 + signal.
    func stop(signal: Int32) -> Never {
        let text = state.withLock { s in
            s.stopped = true
            if s.progressShown { clearProgress(&s) }
            return "facescan: batch interrupted by \(Self.signalName(signal)) after \(s.done)/\(total) captures: "
                + counts(s)
                + (s.done < total ? "; outputs of unfinished captures removed" : "")
        }
        if !verbosity.quiet { Console.error(text) }
        _exit(128 + signal)
    }

    private func counts(_ s: State) -> String {
        var parts = ["\(s.done - s.failed - s.skipped - s.skippedByOther) done", "\(s.failed) failed"]
        if s.skipped > 0 { parts.append("\(s.skipped) skipped (--resume)") }
        if s.skippedByOther > 0 { parts.append("\(s.skippedByOther) done by another batch") }
        return parts.joined(separator: ", ")
    }

    private func summary(_ s: State) -> String {
        var text =
            "facescan: batch: \(s.done) capture\(s.done == 1 ? "" : "s") in \(Self.clock(Stopwatch.nowMs() - startMs)): "
            + counts(s)
        if skippedInputs > 0 {
            text +=
                "; \(skippedInputs) input\(skippedInputs == 1 ? "" : "s") skipped, not captures\(verbosity.verbose ? "" : " (-v lists them)")"
        }
        return text
    }

    private func drawProgress(_ s: inout State) {
        guard progress else { return }
        var text = "[\(s.done)/\(total)]"
        if s.failed > 0 { text += " \(s.failed) failed" }
        let remaining = total - s.done
        if s.processed > 0 && remaining > 0 {
            let perCapture = (Stopwatch.nowMs() - startMs) / Double(s.processed)
            text += "\(s.failed > 0 ? "," : "") ETA \(Self.clock(perCapture * Double(remaining)))"
        }
        Console.raw("\r" + text + "\u{1B}[K")
        s.progressShown = true
    }

    private func clearProgress(_ s: inout State) {
        Console.raw("\r\u{1B}[K")
        s.progressShown = false
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ ms: Double) -> String {
        guard ms.isFinite, abs(ms) < 1e15 else { return "?:??" }
        let t = Int((ms / 1000).rounded())
        let (h, m, sec) = (t / 3600, (t / 60) % 60, t % 60)
        let ss = sec < 10 ? "0\(sec)" : "\(sec)"
        if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
        return "\(m):\(ss)"
    }

    static func signalName(_ sig: Int32) -> String {
        switch sig {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(sig)"
        }
    }
}
