#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// `facescan batch`: many captures, a deterministic shard of them, several at a time.
public enum Batch {
    /// The outcome of one capture.
    public struct Outcome: Sendable {
        public var input: String
        public var report: Report?
        public var exitCode: Int32
        public var error: String?
    }

    /// Expands the arguments into capture paths: a directory gives its `*.json` and `*.ndjson`
    /// files; a file whose content does not start with `{` is a list of paths, one per line
    /// (blank lines and `#` comments skipped); anything else is a capture. The result is sorted
    /// and free of duplicates (paths normalised; two paths to one file count once), so every shard
    /// of the same arguments sees the same list.
    public static func collectInputs(_ args: [String]) throws -> [String] {
        var out: [String] = []
        for a in args {
            var st = stat()
            guard stat(a, &st) == 0 else { throw IOFailure(path: a, "cannot open: \(systemErrorText())") }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                guard let d = opendir(a) else { throw IOFailure(path: a, "cannot list the directory") }
                defer { closedir(d) }
                while let e = readdir(d) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if !name.hasPrefix("."), name.hasSuffix(".json") || name.hasSuffix(".ndjson") {
                        out.append((a.hasSuffix("/") ? a : a + "/") + name)
                    }
                }
            } else {
                let bytes = try FileBytes.read(a)
                let first = bytes.first { !JSONReader.isSpace($0) }
                if first == UInt8(ascii: "{") || bytes.isEmpty {
                    out.append(a)
                } else {
                    for line in FileBytes.withoutByteOrderMark(bytes).split(separator: 0x0A) {
                        let s = String(decoding: line, as: UTF8.self).trimmingSpaces.trimmingCharacters(in: "\r\t ")
                        if s.isEmpty || s.hasPrefix("#") { continue }
                        out.append(s)
                    }
                }
            }
        }
        // One entry per file: spellings like `./a.json` and `a.json`, or two paths to one file
        // (same device and inode), count once, under the first spelling in sorted order.
        var seenFiles = Set<FileIdentity>()
        var unique: [String] = []
        for path in Set(out.map(normalised)).sorted() {
            var st = stat()
            if stat(path, &st) == 0 && !seenFiles.insert(FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))).inserted {
                continue
            }
            unique.append(path)
        }
        return unique
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
    public static func parseShard(_ text: String) throws(UsageError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else {
            throw UsageError("--shard expects K/N with 0 ≤ K < N, e.g. 0/4 (got '\(text)')")
        }
        return (k, n)
    }

    /// The inputs of shard `index` of `count`: every `count`-th input of the sorted list, starting at `index`.
    public static func shard(_ inputs: [String], index: Int, count: Int) -> [String] {
        inputs.enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    /// Processes `inputs` with up to `jobs` at a time. Each output is named after its input.
    /// `emit` receives the outcomes in input order (each as soon as it and all before it are done).
    public static func run(_ inputs: [String], options: PipelineOptions, jobs: Int,
                           emit: @escaping @Sendable (Outcome) -> Void) throws {
        // Two inputs with the same base name would write the same output files.
        var seen: [String: String] = [:]
        for i in inputs {
            let name = Pipeline.defaultName(for: i)
            if let other = seen[name] { throw UsageError("'\(other)' and '\(i)' would both write \(options.outputDirectory)/\(name).*") }
            seen[name] = i
        }
        try OutputTransaction.prepareDirectory(options.outputDirectory)
        struct State: ~Copyable {
            var next = 0
            var emitted = 0
            var done: [Int: Outcome] = [:]
        }
        let state = Mutex(State())
        let workers = max(1, min(jobs, inputs.count))
        // Parallel jobs already keep the cores busy: one ingest thread each (same outputs).
        var options = options
        if workers > 1 && options.ingestThreads == nil { options.ingestThreads = 1 }
        let jobOptions = options
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i: Int = state.withLock { s in
                    defer { s.next += 1 }
                    return s.next
                }
                guard i < inputs.count else { return }
                let outcome = processOne(inputs[i], options: jobOptions)
                state.withLock { s in
                    s.done[i] = outcome
                    while let o = s.done.removeValue(forKey: s.emitted) {
                        emit(o)
                        s.emitted += 1
                    }
                }
            }
        }
    }

    static func processOne(_ input: String, options: PipelineOptions) -> Outcome {
        var o = options
        o.name = nil
        do {
            let r = try Pipeline.process(input: input, options: o)
            return Outcome(input: input, report: r, exitCode: 0, error: nil)
        } catch let e as NoAcceptedFrames {
            return Outcome(input: input, report: e.report, exitCode: 3, error: e.description)
        } catch let e as any FaceScanFailure {
            return Outcome(input: input, report: nil, exitCode: e.exitCode, error: e.description)
        } catch {
            return Outcome(input: input, report: nil, exitCode: 1, error: "\(input): \(error)")
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
