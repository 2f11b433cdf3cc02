import Synchronization

/// Where ``FaceScanSession/finish(progress:)`` is, for a progress display.
public struct FinishProgress: Sendable, Hashable, Codable {
    /// The steps of ``FaceScanSession/finish(progress:)``, in order.
    public enum Stage: String, Sendable, Hashable, Codable, CaseIterable {
        /// Averaging the accepted frames.
        case averaging
        /// Smoothing the mean face.
        case smoothing
        /// Decimating or refining to the vertex count (an open surface).
        case decimating
        /// Closing the face into a solid part (``ScanSettings/solid``), the longest step.
        case solidifying
        /// Converting to the output unit and scale.
        case scaling
        /// Done: the result is ready.
        case done
    }

    /// The step starting now.
    public var stage: Stage
    /// A rough share of the work done before this step, from 0 to 1 (steps weighted by their
    /// usual duration).
    public var fraction: Double

    /// Progress at `stage`, `fraction` of the way.
    public init(stage: Stage, fraction: Double) {
        self.stage = stage
        self.fraction = fraction
    }
}

/// What the steps of a finish report to and ask of their caller: progress, and whether to stop.
struct FinishControl {
    var progress: (@Sendable (FinishProgress) -> Void)?
    var isCancelled: (() -> Bool)?

    static var none: FinishControl { FinishControl() }

    /// Reports `stage` and throws `.cancelled` when the caller has stopped the work.
    func enter(_ stage: FinishProgress.Stage, solid: Bool) throws(FaceScanError) {
        if cancelled { throw .cancelled }
        let fractions: [FinishProgress.Stage: Double] =
            solid
            ? [.averaging: 0, .smoothing: 0.02, .decimating: 0.05, .solidifying: 0.1, .scaling: 0.98, .done: 1]
            : [.averaging: 0, .smoothing: 0.05, .decimating: 0.3, .solidifying: 0.9, .scaling: 0.95, .done: 1]
        progress?(FinishProgress(stage: stage, fraction: fractions[stage] ?? 0))
    }

    /// Whether the caller has stopped the work (or the task running it was cancelled).
    var cancelled: Bool { isCancelled?() == true || Cancellation.requested }
}

extension FaceScanSession {
    /// ``finish()`` as an `async` call that can be cancelled and watched. The work runs off the
    /// caller's executor (an actor owning the session stays free for ``add(_:)``), and this call
    /// throws ``FaceScanError/cancelled`` as soon as the task is cancelled, without waiting for
    /// the work to notice. The work itself checks between its steps and inside the long ones —
    /// refinement every 1 024 splits, decimation every pass, the solid's face frame every round,
    /// its distance field every 32nd of its columns, the back's extraction every layer, the
    /// crossing search every layer of its cells — and stops there, so a cancelled finish stops
    /// using the processor too (a shell at the high preset within a few tens of milliseconds in
    /// a release build: `facescan-bench cancel`). `progress` is called on the working thread at
    /// the start of each ``FinishProgress/Stage``.
    ///
    /// ```swift
    /// let task = Task { try await session.finish { p in print(p.stage, p.fraction) } }
    /// task.cancel()   // finish throws .cancelled at once
    /// ```
    ///
    /// Throws as ``finish()`` does, or ``FaceScanError/cancelled``.
    public func finish(progress: (@Sendable (FinishProgress) -> Void)? = nil) async throws(FaceScanError)
        -> ScanResult
    {
        if Task.isCancelled { throw .cancelled }
        let session = self
        let race = FinishRace()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<FinishRace.Outcome, Never>) in
                race.start(continuation) {
                    Task.detached(priority: Task.currentPriority) {
                        let outcome: FinishRace.Outcome
                        do throws(FaceScanError) {
                            let control = FinishControl(progress: progress, isCancelled: { Task.isCancelled })
                            outcome = .success(try session.finish(control: control))
                        } catch {
                            outcome = .failure(error)
                        }
                        race.finish(outcome)
                    }
                }
            }
        } onCancel: {
            race.cancel()
        }
        return try result.get()
    }
}

/// The meeting point of an async finish: the first of the work's result and the caller's
/// cancellation resumes the caller; a cancellation also cancels the work, which stops at its
/// next check.
final class FinishRace: Sendable {
    typealias Outcome = Result<ScanResult, FaceScanError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var work: Task<Void, Never>?
        var cancelled = false
        var resumed = false
    }

    private let state = Mutex(State())

    /// Keeps `continuation` and starts the work (unless the caller was already cancelled).
    func start(_ continuation: CheckedContinuation<Outcome, Never>, work: () -> Task<Void, Never>) {
        let cancelledAlready = state.withLock { s -> Bool in
            if s.cancelled {
                s.resumed = true
                return true
            }
            s.continuation = continuation
            s.work = work()
            return false
        }
        if cancelledAlready { continuation.resume(returning: .failure(.cancelled)) }
    }

    /// The work's outcome: resumes the caller unless a cancellation did already.
    func finish(_ outcome: Outcome) {
        let c = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            guard !s.resumed else { return nil }
            s.resumed = true
            defer { s.continuation = nil }
            return s.continuation
        }
        c?.resume(returning: outcome)
    }

    /// The caller's task was cancelled: resume it with `.cancelled` now and stop the work.
    func cancel() {
        let (c, work) = state.withLock { s -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?) in
            s.cancelled = true
            guard !s.resumed else { return (nil, s.work) }
            s.resumed = true
            defer { s.continuation = nil }
            return (s.continuation, s.work)
        }
        work?.cancel()
        c?.resume(returning: .failure(.cancelled))
    }
}
