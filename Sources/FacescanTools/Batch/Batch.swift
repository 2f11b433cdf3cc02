import Dispatch
import FaceScanCapture
import FaceScanCore
import FaceScanKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `facescan batch`: many captures, a deterministic shard of them, several at a time.
package enum Batch {
    /// The outcome of one capture.
    package struct Outcome: Sendable {
        package var input: String
        /// Base name of its outputs (``outputNames(_:)``).
        package var name: String
        package var report: Report?
        /// Why the capture failed (nil on success); the CLI maps it to an exit code.
        package var failure: FaceScanError?
        /// The failure's one-line message.
        package var error: String? { failure?.description }
        /// With `resume`: the report stored by the run that made the outputs, when this capture
        /// was skipped because they are already there (``completedReport(input:name:options:)``).
        package var storedReport: JSONValue?
        package var skipped: Bool { storedReport != nil }
        /// With ``storedReport``: true when another batch into the same directory made the
        /// outputs while this one waited for its claim, false when an earlier run did (`resume`).
        package var doneByOther = false
    }

    /// What ``collect(_:recursive:)`` found.
    package struct Inputs: Sendable, Equatable {
        /// Capture paths: sorted, normalised, one per file.
        package var captures: [String] = []
        /// Paths left out because they name a file already listed (`path` is the same file as `sameAs`).
        package var duplicates: [Duplicate] = []
        /// Files in the directories searched that were not taken as captures, with the reason.
        package var ignored: [Ignored] = []
        /// Subdirectories of the directories given that were not searched (no `recursive`).
        package var subdirectoriesNotSearched: [String] = []
        package init() {}
    }

    package struct Duplicate: Sendable, Equatable {
        package var path: String
        package var sameAs: String
    }

    package struct Ignored: Sendable, Equatable {
        package var path: String
        package var reason: String
    }

    /// A list file larger than this is refused (one path per line: 64 MiB is a million long paths).
    static let maximumListBytes = 64 << 20
    /// A line of a list file longer than this is not a path.
    static let maximumPathBytes = 4096

    /// Expands the arguments into capture paths.
    ///
    /// - A directory gives its regular `*.json` and `*.ndjson` files that look like captures
    ///   (their first 64 KiB hold `"facescan-capture"`, a `"topology"` object or a `"frames"`
    ///   array; `NAME.report.json` files written by batch, `expected.json` and other JSON files are
    ///   listed in ``Inputs/ignored``); with `recursive`, its subdirectories too (hidden entries
    ///   skipped, each directory searched once). FIFOs, devices and sockets are never opened.
    /// - `-` is a list of paths on standard input.
    /// - A file whose content (after a UTF-8 byte-order mark and white space) starts with `{`, or
    ///   is empty, is a capture; any other file is a list of paths, one per line (blank lines and
    ///   `#` comments skipped). Only its first 64 KiB are read to decide.
    ///
    /// The result is sorted and free of duplicates (paths normalised; two paths to one file count
    /// once, under the first spelling in sorted order), so every shard of the same arguments sees
    /// the same list.
    package static func collect(_ args: [String], recursive: Bool) throws(FaceScanError) -> Inputs {
        var found = Inputs()
        var out: [String] = []
        var visitedDirectories = Set<FileIdentity>()
        for a in args {
            if a == "-" {
                out += try listLines(read("-", upTo: maximumListBytes + 1), name: "(standard input)")
                continue
            }
            var st = stat()
            guard stat(a, &st) == 0 else { throw .io(IOFailure(path: a, "cannot open: \(systemErrorText())")) }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                try searchDirectory(a, recursive: recursive, into: &out, found: &found, visited: &visitedDirectories)
            case S_IFREG:
                let head = try read(a, upTo: CaptureSniff.sniffBytes)
                if CaptureSniff.startsLikeJSONObject(head) || head.isEmpty {
                    out.append(a)
                } else {
                    out += try listLines(read(a, upTo: maximumListBytes + 1), name: a)
                }
            default:
                // A pipe or device named on the command line (`batch <(ls caps/*.json)`): a list.
                let bytes = try read(a, upTo: maximumListBytes + 1)
                if CaptureSniff.startsLikeJSONObject(bytes) {
                    throw .badSetting(
                        UsageError(
                            "\(a): a capture on a pipe or device; batch reads capture files (use facescan process \(a))"
                        ))
                }
                out += try listLines(bytes, name: a)
            }
        }
        var seenFiles: [FileIdentity: String] = [:]
        for path in Set(out.map(normalised)).sorted() {
            var st = stat()
            if stat(path, &st) == 0 {
                let id = FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
                if let first = seenFiles[id] {
                    found.duplicates.append(Duplicate(path: path, sameAs: first))
                    continue
                }
                seenFiles[id] = path
            }
            found.captures.append(path)
        }
        found.ignored.sort { $0.path < $1.path }
        found.subdirectoriesNotSearched.sort()
        return found
    }

    /// ``FileBytes/read(_:upTo:)`` with its failure as the ``FaceScanError`` it is.
    private static func read(_ path: String, upTo limit: Int) throws(FaceScanError) -> [UInt8] {
        try lift { () throws(IOFailure) in try FileBytes.read(path, upTo: limit) }
    }

    private static func searchDirectory(
        _ dir: String, recursive: Bool, into out: inout [String], found: inout Inputs,
        visited: inout Set<FileIdentity>
    ) throws(FaceScanError) {
        var dst = stat()
        if stat(dir, &dst) == 0 {
            // A directory reached twice (a symbolic link to a parent, or named twice) is searched once.
            guard visited.insert(FileIdentity(device: UInt64(dst.st_dev), inode: UInt64(dst.st_ino))).inserted else {
                return
            }
        }
        guard let entries = directoryEntries(dir) else {
            throw .io(IOFailure(path: dir, "cannot list the directory: \(systemErrorText())"))
        }
        let names = entries.filter { !$0.hasPrefix(".") }
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        for name in names.sorted() {
            let path = prefix + name
            var st = stat()
            guard stat(path, &st) == 0 else { continue }  // a dangling link
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR {
                if !recursive && (name.hasSuffix(".json") || name.hasSuffix(".ndjson")) {
                    found.ignored.append(
                        Ignored(path: path, reason: "a directory, not a capture file (--recursive searches it)"))
                    continue
                }
                if recursive {
                    try searchDirectory(path, recursive: true, into: &out, found: &found, visited: &visited)
                } else {
                    found.subdirectoriesNotSearched.append(path)
                }
                continue
            }
            guard name.hasSuffix(".json") || name.hasSuffix(".ndjson") else { continue }
            if type != S_IFREG {
                found.ignored.append(Ignored(path: path, reason: "not a regular file"))
            } else if name.hasSuffix(reportSuffix) {
                found.ignored.append(Ignored(path: path, reason: "a report written by batch"))
            } else if let head = try? FileBytes.read(path, upTo: CaptureSniff.sniffBytes),
                CaptureSniff.looksLikeCapture(head)
            {
                out.append(path)
            } else {
                found.ignored.append(Ignored(path: path, reason: CaptureSniff.notACaptureReason))
            }
        }
    }

    /// The lines of a list file: paths, without blank lines and `#` comments.
    static func listLines(_ bytes: [UInt8], name: String) throws(FaceScanError) -> [String] {
        guard bytes.count <= maximumListBytes else {
            throw .badSetting(
                UsageError("\(name): too large for a list of capture paths (over \(maximumListBytes >> 20) MiB)"))
        }
        var out: [String] = []
        for (n, line) in FileBytes.withoutByteOrderMark(bytes).split(separator: 0x0A, omittingEmptySubsequences: false)
            .enumerated()
        {
            guard line.count <= maximumPathBytes, !line.contains(0) else {
                throw .badInput(
                    InputError(
                        file: name, field: "line \(n + 1)",
                        "not a path (\(line.contains(0) ? "a NUL byte" : "over \(maximumPathBytes) bytes")); a list file holds one capture path per line"
                    ))
            }
            let s = trimmedListLine(String(decoding: line, as: UTF8.self))
            if s.isEmpty || s.hasPrefix("#") { continue }
            out.append(s)
        }
        return out
    }

    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// `path` without empty and `.` components (`./a//b.json` → `a/b.json`); `..` is kept.
    static func normalised(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let body = parts.joined(separator: "/")
        if path.hasPrefix("/") { return "/" + body }
        return body.isEmpty ? "." : body
    }

    /// Parses `K/N` (0 ≤ K < N): the K-th of N disjoint shards.
    package static func parseShard(_ text: String) throws(UsageError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else {
            if parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k == n {
                throw UsageError(
                    "--shard \(text): shards count from 0, so K runs from 0 to \(n - 1) for N = \(n) (a Slurm array: --array=0-\(n - 1) with --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)"
                )
            }
            throw UsageError("--shard expects K/N with 0 ≤ K < N, counting from 0, e.g. 0/4 (got '\(text)')")
        }
        return (k, n)
    }

    /// The inputs of shard `index` of `count`: every `count`-th input of the sorted list, starting at `index`.
    package static func shard(_ inputs: [String], index: Int, count: Int) -> [String] {
        inputs.enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    /// Output base names for `inputs`: the file name without its extension, and for captures
    /// that share one, the names of their parent directories in front, as many as it takes to
    /// tell them apart (`ict-neutral/capture.json` and `mediapipe/capture.json` →
    /// `ict-neutral-capture`, `mediapipe-capture`). Throws when two inputs still get one name
    /// (`a.json` and `a.ndjson` in one directory).
    package static func outputNames(_ inputs: [String]) throws(UsageError) -> [String] {
        var names = inputs.map { Pipeline.defaultName(for: $0) }
        var groups: [String: [Int]] = [:]
        for (i, n) in names.enumerated() { groups[n, default: []].append(i) }
        for (base, members) in groups where members.count > 1 {
            let dirs = members.map { i -> [String] in
                let parts = normalised(inputs[i]).split(separator: "/").dropLast().map(String.init)
                return parts.map { $0 == ".." ? "parent" : String($0.drop { $0 == "." }) }.filter { !$0.isEmpty }
            }
            let deepest = dirs.map(\.count).max() ?? 0
            var k = 1
            while k <= deepest {
                let candidate = dirs.map { ($0.suffix(k) + [base]).joined(separator: "-") }
                if Set(candidate).count == candidate.count || k == deepest {
                    for (j, i) in members.enumerated() { names[i] = candidate[j] }
                    break
                }
                k += 1
            }
        }
        var seen: [String: Int] = [:]
        for (i, n) in names.enumerated() {
            if let other = seen[n] {
                throw UsageError("'\(inputs[other])' and '\(inputs[i])' would both write outputs named \(n).*")
            }
            seen[n] = i
        }
        return names
    }

    /// The report file batch writes beside a capture's outputs once they are all in place.
    package static let reportSuffix = ".report.json"

    package static func reportPath(outputDirectory: String, name: String) -> String {
        outputDirectory + "/" + name + reportSuffix
    }

    /// The report stored for `input` by an earlier batch run into `options.outputDirectory`
    /// when that run's work can be shown to be whole: `NAME.report.json` parses, is not older
    /// than the capture file, lists every format `options.formats` asks for, and every output it
    /// lists (`NAME.FORMAT`) has the size and the CRC-32 the report recorded at commit (a
    /// report without them, from an older facescan, vouches for nothing). nil otherwise (also
    /// for `-`). Settings other than the formats are not compared.
    package static func completedReport(input: String, name: String, options: PipelineOptions) -> JSONValue? {
        guard input != "-", let captureTime = modificationTime(input) else { return nil }
        let dir = options.outputDirectory
        let report = reportPath(outputDirectory: dir, name: name)
        guard let t = modificationTime(report), !(t < captureTime),
            let stored = try? JSONValue.read(path: report),
            case .array(let outputs)? = stored["outputs"]
        else { return nil }
        let formats = outputs.compactMap { $0["format"]?.stringValue }
        guard !formats.isEmpty, formats.count == outputs.count else { return nil }
        if let wanted = options.formats?.map({ $0.lowercased().trimmingSpaces }),
            !wanted.allSatisfy(formats.contains)
        {
            return nil
        }
        for o in outputs {
            guard let f = o["format"]?.stringValue, case .int(let size)? = o["bytes"],
                case .int(let crc)? = o["crc32"],
                let bytes = try? FileBytes.read(dir + "/" + name + "." + f, upTo: size + 1),
                bytes.count == size, Int(CRC32.checksum(bytes)) == crc
            else { return nil }
        }
        return stored
    }

    private struct FileTime: Comparable {
        var seconds: Int
        var nanoseconds: Int
        static func < (a: FileTime, b: FileTime) -> Bool { (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds) }
    }

    /// Modification time of a regular file (following links); nil when there is none.
    private static func modificationTime(_ path: String) -> FileTime? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileTime(seconds: Int(st.modificationTime.tv_sec), nanoseconds: Int(st.modificationTime.tv_nsec))
    }

    /// The identity of a file now (device, inode, modification time), nil when there is none: a
    /// report replaced since this batch started is another batch's work.
    private static func identity(_ path: String) -> [Int]? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return [
            Int(st.st_dev), Int(st.st_ino), Int(st.modificationTime.tv_sec), Int(st.modificationTime.tv_nsec),
        ]
    }

    /// Processes `inputs` with up to `jobs` at a time. Outputs are named by ``outputNames(_:)``;
    /// each capture's outputs and its report (`NAME.report.json`, ``reportPath(outputDirectory:name:)``,
    /// listing each output's size and CRC-32) are one ``OutputSet``, committed by one committing
    /// thread in groups (its syncs overlap the workers' next captures), the report renamed last.
    /// With `resume`, a capture whose earlier outputs can be vouched for (``completedReport(input:name:options:)``)
    /// is not processed again: its outcome carries the stored report.
    ///
    /// Each capture is claimed (``BatchClaim``) before it is looked at: a capture another batch
    /// into the same directory holds is left for later, and once the fresh ones are done this
    /// batch waits for it. A claimed capture whose report was replaced since this batch started
    /// and can be vouched for was committed meanwhile by another batch: it counts as done
    /// (skipped, by another batch); else it is processed here. So two batches started at once
    /// share the work, and no capture is written by both.
    ///
    /// `emit` receives the outcomes in input order (each as soon as it and all before it are done).
    package static func run(
        _ inputs: [String], options: PipelineOptions, jobs: Int, resume: Bool = false,
        emit: @escaping @Sendable (Outcome) -> Void
    ) throws(FaceScanError) {
        let names = try lift { () throws(UsageError) in try outputNames(inputs) }
        try lift { () throws(IOFailure) in try AtomicFile.prepareDirectory(options.outputDirectory) }
        // What killed runs left: their staging directories (finished or removed) and claims.
        StagingArea.recover(options.outputDirectory)
        BatchClaim.sweep(options.outputDirectory)
        struct State: ~Copyable {
            var next = 0
            var emitted = 0
            var done: [Int: Outcome] = [:]
            /// Captures another batch held when first reached.
            var deferred: [Int] = []
        }
        let state = Mutex(State())
        // Each report as this batch found it: one replaced since is another batch's work.
        let found = names.map { identity(reportPath(outputDirectory: options.outputDirectory, name: $0)) }
        let workers = max(1, min(jobs, inputs.count))
        // Parallel jobs already keep the cores busy: one ingest and one render thread each (same
        // outputs).
        var options = options
        if workers > 1 && options.ingestThreads == nil { options.ingestThreads = 1 }
        if workers > 1 && options.renderThreads == nil { options.renderThreads = 1 }
        let jobOptions = options
        let deliver: @Sendable (Int, Outcome) -> Void = { i, outcome in
            state.withLock { s in
                s.done[i] = outcome
                while let o = s.done.removeValue(forKey: s.emitted) {
                    emit(o)
                    s.emitted += 1
                }
            }
        }
        let committer = Committer(capacity: 2 * workers, deliver: deliver)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let picked: (index: Int, wait: Bool)? = state.withLock { s in
                    if s.next < inputs.count {
                        defer { s.next += 1 }
                        return (s.next, false)
                    }
                    guard !s.deferred.isEmpty else { return nil }
                    return (s.deferred.removeFirst(), true)
                }
                guard let (i, wait) = picked else { return }
                let taken = work(
                    i, input: inputs[i], name: names[i], wait: wait, found: found[i], options: jobOptions,
                    resume: resume, committer: committer, deliver: deliver)
                if !taken { state.withLock { $0.deferred.append(i) } }
            }
        }
        committer.finish()
    }

    /// Capture `i` in a worker's loop: claimed (false, left for later, when another batch holds
    /// it and `wait` is false); when its report was replaced since the batch began (`found`) and
    /// can be vouched for, done by another batch; with `resume`, when done before, skipped; else
    /// processed and its outputs handed to `committer`.
    private static func work(
        _ i: Int, input: String, name: String, wait: Bool, found: [Int]?, options jobOptions: PipelineOptions,
        resume: Bool, committer: Committer, deliver: @Sendable (Int, Outcome) -> Void
    ) -> Bool {
        let reportFile = reportPath(outputDirectory: jobOptions.outputDirectory, name: name)
        let claim: BatchClaim
        do throws(IOFailure) {
            guard let c = try BatchClaim.take(directory: jobOptions.outputDirectory, name: name, wait: wait) else {
                return false
            }
            claim = c
        } catch {
            deliver(i, Outcome(input: input, name: name, report: nil, failure: .io(error)))
            return true
        }
        if identity(reportFile) != found, let stored = completedReport(input: input, name: name, options: jobOptions) {
            claim.release()
            deliver(
                i, Outcome(input: input, name: name, report: nil, failure: nil, storedReport: stored, doneByOther: true)
            )
            return true
        }
        if resume, let stored = completedReport(input: input, name: name, options: jobOptions) {
            claim.release()
            deliver(i, Outcome(input: input, name: name, report: nil, failure: nil, storedReport: stored))
            return true
        }
        let (outcome, set) = prepareOne(input, name: name, options: jobOptions)
        if let set {
            committer.submit(i, outcome, set, claim)
        } else {
            claim.release()
            deliver(i, outcome)
        }
        return true
    }

    /// Processes one capture and stages its outputs and report (a set for ``Committer``); the
    /// outcome alone when it failed.
    static func prepareOne(_ input: String, name: String, options: PipelineOptions) -> (Outcome, OutputSet?) {
        var o = options
        o.name = name
        let set = OutputSet()
        do throws(FaceScanError) {
            var crcs: [UInt32] = []
            var r = try Pipeline.encode(input: input, options: o) { (f) throws(FaceScanError) in
                do throws(IOFailure) { crcs.append(try set.stage(f.bytes, to: f.path)) } catch { throw .io(error) }
            }
            for k in r.outputs.indices { r.outputs[k].crc32 = crcs[k] }
            let json = Array((r.json.serialized() + "\n").utf8)
            do throws(IOFailure) {
                try set.stage(json, to: reportPath(outputDirectory: o.outputDirectory, name: name))
            } catch {
                throw .io(error)
            }
            return (Outcome(input: input, name: name, report: r, failure: nil), set)
        } catch let failure {
            set.abort()
            if case .noAcceptedFrames(let e) = failure {
                return (Outcome(input: input, name: name, report: e.report, failure: failure), nil)
            }
            return (Outcome(input: input, name: name, report: nil, failure: failure), nil)
        }
    }
}

/// Batch's committing thread: takes the staged sets of finished captures as the workers hand
/// them over, commits whatever is waiting in one go (``OutputSet/commit(_:)``: one round of
/// syncs for the group), then releases each capture's claim and delivers its outcome. At most
/// `capacity` sets wait; a worker that finds it full waits for room (its memory is on disk
/// already: the sets hold names, not bytes).
final class Committer: Sendable {
    private struct Item: Sendable {
        var index: Int
        var outcome: Batch.Outcome
        var set: OutputSet
        var claim: BatchClaim
    }

    private let pending = Mutex<(items: [Item], closed: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let done = DispatchSemaphore(value: 0)
    private let deliver: @Sendable (Int, Batch.Outcome) -> Void

    init(capacity: Int, deliver: @escaping @Sendable (Int, Batch.Outcome) -> Void) {
        room = DispatchSemaphore(value: capacity)
        self.deliver = deliver
        DispatchQueue(label: "facescan.batch.commit").async { [self] in loop() }
    }

    func submit(_ index: Int, _ outcome: Batch.Outcome, _ set: OutputSet, _ claim: BatchClaim) {
        room.wait()
        pending.withLock { $0.items.append(Item(index: index, outcome: outcome, set: set, claim: claim)) }
        ready.signal()
    }

    /// Commits what is left and returns once the thread has ended.
    func finish() {
        pending.withLock { $0.closed = true }
        ready.signal()
        done.wait()
    }

    private func loop() {
        while true {
            ready.wait()
            let (items, closed) = pending.withLock { p in
                defer { p.items.removeAll() }
                return (p.items, p.closed)
            }
            // Every item signalled once: take the extra signals of this group.
            for _ in 0..<max(0, items.count - 1) { ready.wait() }
            if !items.isEmpty {
                let failures = OutputSet.commit(items.map(\.set))
                for (item, failure) in zip(items, failures) {
                    item.claim.release()
                    var outcome = item.outcome
                    if let failure {
                        outcome.report = nil
                        outcome.failure = .io(failure)
                    }
                    deliver(item.index, outcome)
                    room.signal()
                }
            }
            if closed && pending.withLock({ $0.items.isEmpty }) {
                done.signal()
                return
            }
        }
    }
}

/// `line` without the carriage returns, tabs and spaces at either end (a list file's line).
private func trimmedListLine(_ line: String) -> String {
    var s = Substring(line)
    while let f = s.first, "\r\t ".contains(f) { s.removeFirst() }
    while let l = s.last, "\r\t ".contains(l) { s.removeLast() }
    return String(s)
}
