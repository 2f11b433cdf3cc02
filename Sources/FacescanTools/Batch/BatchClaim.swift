import FaceScanKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A batch's claim on one capture's outputs: the file `.facescan-claim.NAME` in the output
/// directory, locked (`flock`) by the batch processing that capture, from before its outputs are
/// staged until after they are committed (then removed). Two batches into one directory never
/// process the same capture at once: the second finds the claim taken, does other captures
/// first and then waits for it (``Batch/run(_:options:jobs:resume:emit:)``).
///
/// Made and listed only with ``Interrupts/state`` locked; a claim a dead process left is free
/// and taken over (or removed by ``sweep(_:)``).
package struct BatchClaim: Sendable {
    let path: String
    let fd: Int32

    static let prefix = ".facescan-claim."

    /// The claim file of the capture whose outputs are named `name` in `directory` (a long
    /// name by its CRC-32: two names sharing one only wait for each other).
    static func path(directory: String, name: String) -> String {
        let n = name.utf8.count > 200 ? "#\(String(CRC32.checksum(Array(name.utf8)), radix: 16))" : name
        return directory + "/" + prefix + n
    }

    /// Takes the claim: nil when another live process holds it and `wait` is false; with `wait`,
    /// blocks until it is free.
    static func take(directory: String, name: String, wait: Bool) throws(IOFailure) -> BatchClaim? {
        let path = path(directory: directory, name: name)
        while true {
            // Created by this process: listed in the same locked step. Found: listed once locked.
            let (fd, created) = try Interrupts.creating(path) { (s) throws(IOFailure) -> (Int32, Bool) in
                var fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if fd >= 0 {
                    s.claims[path] = fd
                    return (fd, true)
                }
                guard errno == EEXIST else {
                    throw IOFailure(path: directory, "cannot create a file in '\(directory)': \(systemErrorText())")
                }
                fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
                return (fd, false)
            }
            if fd < 0 { continue }  // removed since: try again
            let locked = flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == 0
            let ours = locked && StagingArea.sameFile(fd, path)
            let listed = try Interrupts.creating(path) { (s) throws(IOFailure) -> Bool in
                if ours {
                    s.claims[path] = fd
                    return true
                }
                if created { s.claims[path] = nil }
                return false
            }
            if listed { return BatchClaim(path: path, fd: fd) }
            close(fd)
            if !locked && !wait { return nil }
        }
    }

    /// Gives the claim up: the file is removed, then the lock released.
    func release() {
        Interrupts.state.withLock { s in
            guard s.claims.removeValue(forKey: path) != nil else { return }  // removed by a stop
            if StagingArea.sameFile(fd, path) { unlink(path) }
            close(fd)
        }
    }

    /// Removes the claims in `directory` that no live process holds.
    static func sweep(_ directory: String) {
        for name in directoryEntries(directory) ?? [] where name.hasPrefix(prefix) {
            let path = directory + "/" + name
            let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0, StagingArea.sameFile(fd, path) { unlink(path) }
            close(fd)
        }
    }
}
