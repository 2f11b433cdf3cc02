import FaceScanCore

/// A capture's frames parsed on two threads — the calling thread and one worker — and handed out
/// strictly in capture order, each with the messages a single-threaded read gives.
///
/// The calling thread finds each frame's end with a structural scan
/// (`CaptureReader/nextFrameText(into:)`), copies its text out and keeps up to ``lookahead``
/// frames scanned ahead of the one it hands out. Which thread parses a frame is fixed by its
/// index (``parsedByWorker(_:)``: three of every five go to the worker, through a ``HandOff``,
/// and come back parsed, in order, through another), never by timing. `next(_:)` hands out the
/// oldest frame, after the checks that depend on earlier frames. An error of the scan, or of the
/// input after the frames, is kept until the frames before it are handed out; a frame too long
/// for the reader's buffer is read by the reader itself, in turn. Memory: ``lookahead`` frames'
/// text and floats, whatever the frame count. The worker is joined by `stop()` (and `deinit`).
package final class ParallelFrames {
    /// Frames scanned ahead of the one handed out.
    static let lookahead = 4

    /// Whether the worker parses frame `index`: three of every five (1, 3, 4, 6, 8, 9, …), spread
    /// evenly. The calling thread also scans, copies, gates and checks every frame, so the worker
    /// takes the larger share of the parsing (about 70 % of ingest's work).
    static func parsedByWorker(_ index: Int) -> Bool {
        (index + 1) * 3 / 5 > index * 3 / 5
    }

    /// A frame's text for the worker, with the buffer it parses into.
    private struct Job: Sendable {
        var text: [UInt8]
        var offset: Int64
        var index: Int
        var frame: Frame
    }

    /// The worker's answer to a job: its buffers back, the frame parsed, and the vertex field
    /// the frame used or the error.
    private struct Parsed: Sendable {
        var job: Job
        var result: Result<String, InputError>
    }

    /// A frame scanned ahead: its text kept here (parsed on the calling thread) or with the worker.
    private enum Ahead {
        case here(text: [UInt8], offset: Int64, index: Int)
        case worker
    }

    private let reader: CaptureReader
    private let parser: FrameParser
    /// Frames' text to the worker, in capture order.
    private let jobs = HandOff<Job>(capacity: ParallelFrames.lookahead)
    /// Parsed frames from the worker, in the same order.
    private let parsed = HandOff<Parsed>(capacity: ParallelFrames.lookahead)
    private var worker: Parallel.Thread?
    /// The frames scanned ahead, oldest first.
    private var ahead: [Ahead] = []
    /// What the reader said after the frames ahead: the frames ended, a frame to read in place,
    /// or an error.
    private var after: Result<CaptureReader.FrameText, InputError>?
    /// Buffers back from the frames handed out, for the next ones.
    private var spareTexts: [[UInt8]] = []
    private var spareFrames: [Frame] = []

    /// Starts the worker; nil when the system cannot start a thread (read with `reader` alone).
    package init?(_ reader: CaptureReader) {
        self.reader = reader
        parser = FrameParser(name: reader.name)
        let (jobs, parsed, name) = (self.jobs, self.parsed, reader.name)
        worker = Parallel.Thread { Self.serve(jobs, parsed, FrameParser(name: name)) }
        if worker == nil { return nil }
        ahead.reserveCapacity(Self.lookahead)
    }

    deinit { stop() }

    /// Ends and joins the worker (jobs it has not taken stay unparsed).
    package func stop() {
        guard let worker else { return }
        jobs.cancel()
        parsed.stop()
        worker.join()
        self.worker = nil
    }

    /// The worker's loop: parses each job in turn and hands it back, until the jobs end or the
    /// calling thread stops taking.
    private static func serve(_ jobs: HandOff<Job>, _ parsed: HandOff<Parsed>, _ parser: FrameParser) {
        while var job = jobs.pop() {
            let result = Result { () throws(InputError) in
                try parser.parse(job.text, at: job.offset, index: job.index, into: &job.frame)
            }
            guard parsed.push(Parsed(job: job, result: result)) else { return }
        }
    }

    /// Scans frames ahead while there is room and the reader has frames.
    private func fill() {
        while ahead.count < Self.lookahead && after == nil {
            var text = spareTexts.popLast() ?? []
            let step = Result { () throws(InputError) in try reader.nextFrameText(into: &text) }
            guard case .success(.text(let index, let offset)) = step else {
                spareTexts.append(text)
                after = step
                return
            }
            if Self.parsedByWorker(index) {
                jobs.push(Job(text: text, offset: offset, index: index, frame: spareFrames.popLast() ?? Frame()))
                ahead.append(.worker)
            } else {
                ahead.append(.here(text: text, offset: offset, index: index))
            }
        }
    }

    /// The next frame in capture order into `frame` (its old buffers are reused); false after
    /// the last one. Throws what a single-threaded read throws, for the same frame. Not after
    /// `stop()` or `skipInFlight()`.
    package func next(_ frame: inout Frame) throws(InputError) -> Bool {
        precondition(worker != nil, "ParallelFrames.next after stop()")
        fill()
        if ahead.isEmpty {
            switch after {
            case .failure(let error)?: throw error
            case .success(.here)?:
                after = nil
                return try reader.nextFrame(&frame)
            default: return false  // .end, or no frame at all
            }
        }
        let result: Result<String, InputError>
        switch ahead.removeFirst() {
        case .here(let text, let offset, let index):
            result = Result { () throws(InputError) in try parser.parse(text, at: offset, index: index, into: &frame) }
            spareTexts.append(text)
        case .worker:
            var answer = parsed.pop()!  // the worker answers every job, in order, until stopped
            swap(&frame, &answer.job.frame)
            spareFrames.append(answer.job.frame)
            spareTexts.append(answer.job.text)
            result = answer.result
        }
        switch result {
        case .success(let field): try reader.check(frame, field: field)
        case .failure(let error): throw error
        }
        return true
    }

    /// After the last frame wanted: checks the frames scanned ahead as skipped frames (the
    /// worker's come back parsed, their parse unused), then what the reader said after them;
    /// the reader goes on from there.
    package func skipInFlight() throws(InputError) {
        jobs.finish()
        while !ahead.isEmpty {
            switch ahead.removeFirst() {
            case .here(let text, let offset, let index):
                try parser.skip(text, at: offset, index: index)
            case .worker:
                let answer = parsed.pop()!
                try parser.skip(answer.job.text, at: answer.job.offset, index: answer.job.index)
            }
        }
        stop()
        if case .failure(let error)? = after { throw error }
    }
}
