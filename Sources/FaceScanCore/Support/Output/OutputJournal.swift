import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The journal of one ``OutputTransaction`` in one directory: `.facescan-XXXXXX.journal`, locked
/// with `flock` while its process lives. Empty until commit; then the temporary and final names
/// of every staged file (NUL-separated) and an end mark. Its temporaries are
/// `.facescan-XXXXXX-<name>` (or `.facescan-XXXXXX.<n>` for a long name).
final class OutputJournal {
    let directory: String
    /// `.facescan-XXXXXX`, shared by the journal and its temporaries.
    let prefix: String
    let path: String
    private var fd: Int32
    private var slot: Int?
    private var removed = false
    /// Staged files: temporary and final base names, in staging order.
    var entries: [(temp: String, final: String)] = []

    static let namePrefix = ".facescan-"
    static let suffix = ".journal"
    static let header = Array("facescan-journal 1\0".utf8)
    static let endMark = Array("end\0".utf8)

    /// Creates and locks a new journal in `directory`, after finishing what dead processes left
    /// there (once per directory per process). The journal is created as `….new`, locked, then
    /// renamed: a `.journal` file is never seen unlocked while its process lives.
    init(directory: String, forOutput output: String) throws(IOFailure) {
        Self.recoverOnce(directory)
        let template = TemporaryFiles.copy("\(directory)/\(Self.namePrefix)XXXXXX.new")
        var newSlot = TemporaryFiles.register(template)
        let fd = mkstemps(template, 4)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let newPath = String(cString: template)
        if newSlot == nil { free(template) }
        guard fd >= 0 else {
            let e = systemErrorText()
            if let s = newSlot { TemporaryFiles.release(s) }
            newSlot = nil
            throw IOFailure(path: output, "cannot create a file in '\(directory)': \(e)")
        }
        flock(fd, LOCK_EX)
        let base = String(newPath.dropLast(4))
        path = base + Self.suffix
        prefix = OutputTransaction.baseName(of: base)
        self.directory = directory
        self.fd = fd
        slot = TemporaryFiles.register(TemporaryFiles.copy(path))
        if rename(newPath, path) != 0 {
            let e = systemErrorText()
            unlink(newPath)
            if let s = newSlot { TemporaryFiles.release(s) }
            close(fd)
            removed = true
            if let s = slot { TemporaryFiles.release(s) }
            slot = nil
            throw IOFailure(path: output, "cannot create a file in '\(directory)': \(e)")
        }
        if let s = newSlot { TemporaryFiles.release(s) }
    }

    deinit { finish() }

    /// Writes the entries and the end mark: from here on the set is committed.
    func markCommitted() throws(IOFailure) {
        var bytes = Self.header
        for e in entries { bytes += Array(e.temp.utf8) + [0] + Array(e.final.utf8) + [0] }
        bytes += Self.endMark
        if let e = OutputTransaction.writeAll(bytes, to: fd) {
            throw IOFailure(path: path, "cannot write the output journal: \(e)")
        }
    }

    /// Takes the journal off the signal handler's table (it is kept on a signal from now on).
    func unlist() {
        if let s = slot { TemporaryFiles.release(s) }
        slot = nil
    }

    /// Removes the journal and releases its lock.
    func finish() {
        guard !removed else { return }
        removed = true
        unlink(path)
        unlist()
        close(fd)
    }

    /// The `(temporary, final)` names of a complete journal, nil for an empty or partial one.
    package static func parse(_ bytes: [UInt8]) -> [(temp: String, final: String)]? {
        guard bytes.starts(with: header), bytes.count >= header.count + endMark.count,
            Array(bytes.suffix(endMark.count)) == endMark
        else { return nil }
        let fields = bytes[header.count..<(bytes.count - endMark.count)].split(
            separator: 0, omittingEmptySubsequences: false)
        // Each entry is two NUL-terminated names: fields end with one empty piece.
        guard fields.count % 2 == 1, fields.last?.isEmpty == true else { return nil }
        var out: [(String, String)] = []
        var i = 0
        while i + 1 < fields.count {
            let t = String(decoding: fields[i], as: UTF8.self), f = String(decoding: fields[i + 1], as: UTF8.self)
            guard !t.isEmpty, !f.isEmpty, !t.contains("/"), !f.contains("/"), f != ".", f != ".." else { return nil }
            out.append((t, f))
            i += 2
        }
        return out
    }

    static let recovered = Mutex<Set<String>>([])

    /// Runs ``recover(_:staleAfter:)`` on `directory` the first time this process writes there.
    static func recoverOnce(_ directory: String) {
        guard recovered.withLock({ $0.insert(directory).inserted }) else { return }
        recover(directory)
    }

    /// Finishes the transactions dead processes left in `directory`: each unlocked journal is
    /// rolled forward when complete, back otherwise, then removed with its temporaries.
    /// Temporaries and `….new` files without a journal older than `staleAfter` seconds (a process
    /// killed while its signal handler was removing them) are removed too.
    static func recover(_ directory: String, staleAfter: Int = 10) {
        let names = (directoryEntries(directory) ?? []).filter { $0.hasPrefix(namePrefix) }
        let prefixLength = namePrefix.utf8.count + 6
        var live: Set<String> = []
        for name in names where name.hasSuffix(suffix) && name.utf8.count == prefixLength + suffix.utf8.count {
            let prefix = String(name.dropLast(suffix.count))
            let jpath = directory + "/" + name
            let fd = open(jpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                live.insert(prefix)
                continue
            }
            let bytes = (try? FileBytes.read("\(fileDescriptorDirectory)/\(fd)", upTo: 1 << 24)) ?? []
            if let entries = parse(bytes) {
                for e in entries {
                    let temp = directory + "/" + e.temp, final = directory + "/" + e.final
                    guard e.temp.hasPrefix(prefix), access(temp, F_OK) == 0 else { continue }
                    if (try? OutputTransaction.checkTarget(final)) == nil || rename(temp, final) != 0 { unlink(temp) }
                }
            }
            for other in names where other != name && belongs(other, to: prefix) { unlink(directory + "/" + other) }
            unlink(jpath)
            live.insert(prefix)  // handled
        }
        let now = time(nil)
        for name in names where !name.hasSuffix(suffix) && name.utf8.count > prefixLength {
            let prefix = String(name.utf8.prefix(prefixLength))!
            guard !live.contains(prefix), access(directory + "/" + prefix + suffix, F_OK) != 0 else { continue }
            var st = stat()
            guard lstat(directory + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
                Int(now - st.modificationTime.tv_sec) >= staleAfter
            else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Whether `name` is a temporary (or the `.new` journal) of the journal with `prefix`.
    static func belongs(_ name: String, to prefix: String) -> Bool {
        guard name.hasPrefix(prefix), name.utf8.count > prefix.utf8.count else { return false }
        let next = name.utf8[name.utf8.index(name.utf8.startIndex, offsetBy: prefix.utf8.count)]
        return next == UInt8(ascii: "-") || next == UInt8(ascii: ".")
    }
}
