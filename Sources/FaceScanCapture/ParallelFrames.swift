import Dispatch
import FaceScanCore
import Synchronization

/// A capture's frames parsed on two threads — the calling thread and one worker — and handed out
/// strictly in capture order, each with the messages a single-threaded read gives.
///
/// The calling thread finds each frame's end with a structural scan
/// (`CaptureReader/nextFrameText(into:)`) and copies its text into one of `slots` slots; the
/// worker and the caller each parse the oldest slot nobody has taken (a `FrameParser` of their
/// own, into the slot's own frame buffer), and `next(_:)` hands out the oldest slot once it is
/// parsed, after the checks that depend on earlier frames. An error of the scan, or of the input
/// after the frames, is kept until the frames before it are handed out; a frame too long for
/// the reader's buffer is read by the reader itself, in turn. Memory: `slots` frames' text and
/// floats, whatever the frame count. The worker is joined by `stop()` (and `deinit`).
package final class ParallelFrames {
    static let slots = 4

    private enum Phase: Sendable { case free, ready, taken, parsed }

    private struct Slot: Sendable {
        var phase = Phase.free
        var text: [UInt8] = []
        var offset: Int64 = 0
        var index = 0
        var frame = Frame()
        var result: Result<String, InputError> = .success("")
    }

    private struct State: Sendable {
        var slots = [Slot](repeating: Slot(), count: ParallelFrames.slots)
        var stopping = false
    }

    /// What the caller and the worker share.
    private final class Shared: Sendable {
        let state = Mutex(State())
        /// Raised once per slot made ready (and once to stop).
        let work = DispatchSemaphore(value: 0)
        /// Raised once per slot the worker parsed.
        let parsed = DispatchSemaphore(value: 0)

        func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }
    }

    private let reader: CaptureReader
    private let parser: FrameParser
    private let shared = Shared()
    private var worker: Parallel.Thread?
    /// Ring positions (only the caller moves them): the oldest slot in flight and the count.
    private var head = 0
    private var inFlight = 0
    /// What the reader said after the slots in flight: the frames ended, a frame to read in
    /// place, or an error.
    private var after: Result<CaptureReader.FrameText, InputError>?

    package init(_ reader: CaptureReader) {
        self.reader = reader
        parser = FrameParser(name: reader.name)
        let shared = self.shared
        let name = reader.name
        worker = Parallel.Thread { Self.serve(shared, FrameParser(name: name)) }
    }

    deinit { stop() }

    /// Ends and joins the worker (slots it has not taken stay unparsed).
    package func stop() {
        guard let worker else { return }
        shared.withLock { $0.stopping = true }
        shared.work.signal()
        worker.join()
        self.worker = nil
    }

    /// The worker's loop: parses the oldest ready slot until stopped.
    private static func serve(_ shared: Shared, _ parser: FrameParser) {
        var text: [UInt8] = []
        var frame = Frame()
        while true {
            shared.work.wait()
            guard let (i, offset, index) = take(shared, &text, &frame) else {
                if shared.withLock({ $0.stopping }) { return }
                continue
            }
            let result = Result { () throws(InputError) in
                try parser.parse(text, at: offset, index: index, into: &frame)
            }
            put(shared, i, result, &text, &frame)
            shared.parsed.signal()
        }
    }

    /// Takes the oldest ready slot: swaps its text and frame with `text` and `frame`.
    private static func take(_ shared: Shared, _ text: inout [UInt8], _ frame: inout Frame) -> (
        Int, Int64, Int
    )? {
        shared.withLock { s -> (Int, Int64, Int)? in
            var best = -1
            for i in 0..<s.slots.count where s.slots[i].phase == .ready {
                if best < 0 || s.slots[i].index < s.slots[best].index { best = i }
            }
            guard best >= 0, !s.stopping else { return nil }
            s.slots[best].phase = .taken
            swap(&s.slots[best].text, &text)
            swap(&s.slots[best].frame, &frame)
            return (best, s.slots[best].offset, s.slots[best].index)
        }
    }

    private static func put(
        _ shared: Shared, _ i: Int, _ result: Result<String, InputError>, _ text: inout [UInt8],
        _ frame: inout Frame
    ) {
        shared.withLock { s in
            swap(&s.slots[i].text, &text)
            swap(&s.slots[i].frame, &frame)
            s.slots[i].result = result
            s.slots[i].phase = .parsed
        }
    }

    private var callerText: [UInt8] = []
    private var callerFrame = Frame()

    /// Copies frames' text into free slots while there are some and the reader has frames.
    private func fill() {
        while inFlight < Self.slots && after == nil && worker != nil {
            let i = (head + inFlight) % Self.slots
            shared.withLock { swap(&$0.slots[i].text, &callerText) }
            let step = Result { () throws(InputError) in try reader.nextFrameText(into: &callerText) }
            switch step {
            case .success(.text(let index, let offset)):
                shared.withLock { s in
                    swap(&s.slots[i].text, &callerText)
                    s.slots[i].offset = offset
                    s.slots[i].index = index
                    s.slots[i].phase = .ready
                }
                inFlight += 1
                shared.work.signal()
            default:
                shared.withLock { swap(&$0.slots[i].text, &callerText) }
                after = step
            }
        }
    }

    /// The next frame in capture order into `frame` (its old buffers go back to the slots);
    /// false after the last one. Throws what a single-threaded read throws, for the same frame.
    package func next(_ frame: inout Frame) throws(InputError) -> Bool {
        fill()
        if inFlight == 0 {
            if worker == nil { return try reader.nextFrame(&frame) }
            switch after {
            case .failure(let error)?: throw error
            case .success(.here)?:
                after = nil
                return try reader.nextFrame(&frame)
            default: return false  // .end, or no frame at all
            }
        }
        let h = head
        while true {
            let done = shared.withLock { $0.slots[h].phase == .parsed }
            if done { break }
            // Help: parse the oldest slot nobody has taken (the head first), else wait.
            if let (i, offset, index) = Self.take(shared, &callerText, &callerFrame) {
                let result = Result { () throws(InputError) in
                    try parser.parse(callerText, at: offset, index: index, into: &callerFrame)
                }
                Self.put(shared, i, result, &callerText, &callerFrame)
                continue
            }
            shared.parsed.wait()
        }
        let result = shared.withLock { s in
            swap(&s.slots[h].frame, &frame)
            s.slots[h].phase = .free
            return s.slots[h].result
        }
        head = (head + 1) % Self.slots
        inFlight -= 1
        switch result {
        case .success(let field): try reader.check(frame, field: field)
        case .failure(let error): throw error
        }
        return true
    }

    /// After the last frame wanted: stops the worker and checks the frames in flight as skipped
    /// frames, then what the reader said after them; the reader goes on from there.
    package func skipInFlight() throws(InputError) {
        stop()
        while inFlight > 0 {
            let (text, offset, index) = shared.withLock { s in
                (s.slots[head].text, s.slots[head].offset, s.slots[head].index)
            }
            try parser.skip(text, at: offset, index: index)
            head = (head + 1) % Self.slots
            inFlight -= 1
        }
        if case .failure(let error)? = after { throw error }
    }
}
