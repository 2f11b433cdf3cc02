import CProcess
import FaceScanKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line's way of writing outputs: a set of files (every format of a `process`, a
/// batch capture's outputs and its report, one file of a mesh command) that appears all at once
/// or not at all, even across SIGKILL, and is on disk once committed.
///
/// ``stage(_:to:)`` writes each file to a temporary `N-K` inside this process's
/// ``StagingArea`` for the file's directory (created only with ``Interrupts/state`` locked, so a
/// signal at any instant finds it), leaving it open, and starts its write-back
/// (`sync_file_range`). ``commit(_:)`` then, for one set
/// or several at once (batch hands them over in groups):
///
/// 1. writes each set's record `N.set` into the staging directory (of more than one file: the
///    temporary and final names, sizes and CRC-32s, an end mark);
/// 2. `fdatasync`s every temporary and record, then `fsync`s each staging directory holding a
///    record: the bytes, and the record by its name, are on disk;
/// 3. renames every temporary into place (`renameat`), in staging order;
/// 4. `fsync`s each output directory: the new names are on disk;
/// 5. unlinks the records.
///
/// A process killed after 2 has a record whose lock is free: the next run writing into that
/// directory renames the temporaries still there into place (roll forward), provided each still
/// has the size and CRC-32 its record gives, and removes everything else (``StagingArea/recover(_:)``).
/// Killed before, it leaves only temporaries in an unlocked staging directory, which that run
/// removes. A commit is not started once the process is stopping (the thread waits for the end
/// of the process instead), and a stop waits for the commits under way (``Interrupts``).
///
/// Only a regular file (or nothing) at an output path is replaced. Owned by one thread at a time
/// (a batch worker stages, the committing thread commits).
package final class OutputSet: @unchecked Sendable {
    private struct Staged {
        var area: StagingArea
        var temp: String
        var final: String
        var fd: Int32
        var size: Int
        var crc: UInt32
    }

    private var staged: [Staged] = []
    private let id: Int
    private static let counter = Atomic<Int>(0)

    static let recordSuffix = ".set"
    static let header = Array("facescan-set 1\0".utf8)
    static let endMark = Array("end\0".utf8)

    package init() { id = Self.counter.wrappingAdd(1, ordering: .relaxed).oldValue }

    deinit { abort() }

    /// The files staged so far: final path, size and CRC-32, in staging order.
    package var files: [(path: String, bytes: Int, crc32: UInt32)] { staged.map { ($0.final, $0.size, $0.crc) } }

    /// Writes `bytes` to a temporary in the staging directory of `path`'s directory; it appears
    /// at `path` on commit. `crc32`: the bytes' CRC-32 when the caller has it. Returns the CRC-32.
    @discardableResult
    package func stage(_ bytes: [UInt8], to path: String, crc32: UInt32? = nil) throws(IOFailure) -> UInt32 {
        try AtomicFile.checkTarget(path)
        let area = try StagingArea.forDirectory(AtomicFile.directory(of: path))
        if let i = staged.firstIndex(where: { $0.final == path }) {
            // The same path staged twice: the later bytes win, as a second rename would.
            close(staged[i].fd)
            unlinkat(staged[i].area.fd, staged[i].temp, 0)
            staged.remove(at: i)
        }
        let temp = "\(id)-\(Self.counter.wrappingAdd(1, ordering: .relaxed).oldValue)"
        let fd = try Interrupts.creating(path) { (_) throws(IOFailure) -> Int32 in
            let fd = openat(area.fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw IOFailure(path: path, "cannot create a file in '\(area.directory)': \(systemErrorText())")
            }
            return fd
        }
        let crc = crc32 ?? CRC32.checksum(bytes)
        staged.append(Staged(area: area, temp: temp, final: path, fd: fd, size: bytes.count, crc: crc))
        var err = AtomicFile.writeAll(bytes, to: fd)
        if err == nil && fchmod(fd, 0o644) != 0 { err = systemErrorText() }
        if let err { throw IOFailure(path: path, "write failed: \(err)") }
        // The bytes start for the disk now; the commit's fdatasync then mostly finds them written.
        _ = facescan_start_writeback(fd)
        return crc
    }

    /// Commits this set (see the type's notes).
    package func commit() throws(IOFailure) {
        if let failure = Self.commit([self])[0] { throw failure }
    }

    /// Commits `sets` together: one round of syncs for all of them. Each set's failure (nil on
    /// success), in order; a set that fails is removed whole, the others are committed.
    package static func commit(_ sets: [OutputSet]) -> [IOFailure?] {
        var failures = [IOFailure?](repeating: nil, count: sets.count)
        Interrupts.beginCommit()
        defer { Interrupts.endCommit() }
        var records: [(StagingArea, String, Int32)] = []
        // 1. The records.
        for (k, set) in sets.enumerated() where set.staged.count > 1 {
            var byArea: [ObjectIdentifier: (StagingArea, [UInt8])] = [:]
            for s in set.staged {
                let key = ObjectIdentifier(s.area)
                var bytes = byArea[key]?.1 ?? header
                bytes += Array(s.temp.utf8) + [0] + Array(AtomicFile.baseName(of: s.final).utf8) + [0]
                bytes += Array("\(s.size)".utf8) + [0] + Array("\(s.crc)".utf8) + [0]
                byArea[key] = (s.area, bytes)
            }
            for (_, (area, bytes)) in byArea.sorted(by: { $0.value.0.path < $1.value.0.path }) {
                let name = "\(set.id)\(recordSuffix)"
                let fd = openat(area.fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                if fd < 0 || AtomicFile.writeAll(bytes + endMark, to: fd) != nil {
                    failures[k] = IOFailure(path: area.path, "cannot write the output record: \(systemErrorText())")
                }
                if fd >= 0 {
                    _ = facescan_start_writeback(fd)
                    records.append((area, name, fd))
                }
            }
        }
        // 2. Bytes on disk, and the records' names (the staging directories that hold one).
        var areas: [StagingArea] = []
        for (area, _, _) in records where !areas.contains(where: { $0 === area }) { areas.append(area) }
        for (k, set) in sets.enumerated() {
            for i in set.staged.indices {
                let s = set.staged[i]
                if failures[k] == nil && AtomicFile.syncData(s.fd) != 0 {
                    failures[k] = IOFailure(path: s.final, "write failed: \(systemErrorText())")
                }
                if close(s.fd) != 0 && failures[k] == nil {
                    failures[k] = IOFailure(path: s.final, "write failed: \(systemErrorText())")
                }
                set.staged[i].fd = -1
            }
        }
        for (_, _, fd) in records {
            _ = AtomicFile.syncData(fd)
            close(fd)
        }
        for a in areas where fsync(a.fd) != 0 {
            let e = IOFailure(path: a.path, "cannot sync the staging directory: \(systemErrorText())")
            for k in sets.indices where failures[k] == nil { failures[k] = e }
        }
        // 3. Into place; 4. the new names on disk.
        var directories: [String] = []
        for (k, set) in sets.enumerated() {
            guard failures[k] == nil else {
                set.abort()
                continue
            }
            for s in set.staged {
                if renameat(s.area.fd, s.temp, AT_FDCWD, s.final) != 0 {
                    let e = systemErrorText()
                    unlinkat(s.area.fd, s.temp, 0)
                    if failures[k] == nil { failures[k] = IOFailure(path: s.final, "cannot rename into place: \(e)") }
                }
                if !directories.contains(s.area.directory) { directories.append(s.area.directory) }
            }
            set.staged.removeAll()
        }
        for d in directories {
            if let e = AtomicFile.syncDirectory(d) {
                let f = IOFailure(path: d, "cannot sync the directory: \(e)")
                for k in sets.indices where failures[k] == nil { failures[k] = f }
            }
        }
        // 5. Done: the records go.
        for (area, name, _) in records { unlinkat(area.fd, name, 0) }
        return failures
    }

    /// Removes every staged temporary.
    package func abort() {
        for s in staged {
            if s.fd >= 0 { close(s.fd) }
            unlinkat(s.area.fd, s.temp, 0)
        }
        staged.removeAll()
    }

    /// Writes one file as a set of one; `-` writes to standard output.
    package static func write(_ bytes: [UInt8], to path: String) throws(IOFailure) {
        if path == "-" {
            if let e = AtomicFile.writeAll(bytes, to: 1) {
                throw IOFailure(path: "-", "write to standard output failed: \(e)")
            }
            return
        }
        let set = OutputSet()
        try set.stage(bytes, to: path)
        try set.commit()
    }

    /// The entries of a complete record: temporary name, final name, size, CRC-32; nil for a
    /// partial or malformed one.
    static func parse(_ bytes: [UInt8]) -> [(temp: String, final: String, size: Int, crc: UInt32)]? {
        guard bytes.starts(with: header), bytes.count >= header.count + endMark.count,
            Array(bytes.suffix(endMark.count)) == endMark
        else { return nil }
        let fields = bytes[header.count..<(bytes.count - endMark.count)].split(
            separator: 0, omittingEmptySubsequences: false
        ).map { String(decoding: $0, as: UTF8.self) }
        // Four NUL-terminated fields per entry: the split ends with one empty piece.
        guard fields.count % 4 == 1, fields.last?.isEmpty == true else { return nil }
        var out: [(String, String, Int, UInt32)] = []
        var i = 0
        while i + 3 < fields.count {
            let t = fields[i], f = fields[i + 1]
            guard !t.isEmpty, !f.isEmpty, !t.contains("/"), !f.contains("/"), f != ".", f != "..",
                let size = Int(fields[i + 2]), let crc = UInt32(fields[i + 3])
            else { return nil }
            out.append((t, f, size, crc))
            i += 4
        }
        return out
    }

    /// Finishes the set of a dead process's record `name` in the staging directory open as
    /// `area` inside `directory`: when the record is complete and every temporary it lists that
    /// is still there has its size and CRC-32, those are renamed into place. Whether any was.
    static func rollForward(record name: String, area: Int32, directory: String) -> Bool {
        let areaPath = "\(fileDescriptorDirectory)/\(area)"
        guard let bytes = try? FileBytes.read(areaPath + "/" + name, upTo: 1 << 24),
            let entries = parse(bytes)
        else { return false }
        var present: [(temp: String, final: String)] = []
        for e in entries {
            var st = stat()
            guard fstatat(area, e.temp, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            guard (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) == e.size,
                let content = try? FileBytes.read(areaPath + "/" + e.temp, upTo: e.size + 1),
                content.count == e.size, CRC32.checksum(content) == e.crc
            else { return false }  // not all on disk: no rename had begun, the set is dropped
            present.append((e.temp, e.final))
        }
        for p in present {
            let final = directory + "/" + p.final
            if (try? AtomicFile.checkTarget(final)) != nil { renameat(area, p.temp, AT_FDCWD, final) }
        }
        return !present.isEmpty
    }
}
