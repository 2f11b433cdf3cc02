import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Telling a capture from another JSON file by its first bytes, without parsing it: the pipeline
/// names a JSON file that is no capture as such, and the batch tools skip one.
package enum CaptureSniff {
    /// Why a JSON file is not taken for a capture.
    package static let notACaptureReason =
        "not a facescan capture (no \"facescan-capture\", \"topology\" object or \"frames\" array in its first 64 KiB)"

    /// How much of a file is read to tell a capture from a list of paths or another JSON file.
    package static let sniffBytes = 1 << 16

    /// The first byte after a byte-order mark and white space is `{`.
    package static func startsLikeJSONObject(_ head: [UInt8]) -> Bool {
        FileBytes.withoutByteOrderMark(head).first { !JSONReader.isSpace($0) } == UInt8(ascii: "{")
    }

    /// A JSON object whose first bytes name the capture format, a `"topology"` object or a
    /// `"frames"` array (keys may come in any order, and an NDJSON header has no `format` first).
    package static func looksLikeCapture(_ head: [UInt8]) -> Bool {
        guard startsLikeJSONObject(head) else { return false }
        return contains(head, "\"facescan-capture\"") || keyFollowedBy(head, "\"topology\"", UInt8(ascii: "{"))
            || keyFollowedBy(head, "\"frames\"", UInt8(ascii: "["))
    }

    /// The file at `path` is a regular file holding a JSON object with members that does not
    /// look like a capture (``looksLikeCapture(_:)``): `package.json`, a report. False for `-`
    /// and for `{}` (an empty capture, whose first missing field is the message).
    package static func isJSONButNotCapture(atPath path: String) -> Bool {
        guard let head = head(ofRegularFile: path) else { return false }
        let significant = FileBytes.withoutByteOrderMark(head).filter { !JSONReader.isSpace($0) }
        guard significant.count > 1, significant[significant.startIndex + 1] != UInt8(ascii: "}") else { return false }
        return startsLikeJSONObject(head) && !looksLikeCapture(head)
    }

    /// The file at `path` starts like a facescan capture (not a mesh): for commands that read
    /// meshes, to point at `process`. Reads at most 64 KiB; false for `-` and unreadable files.
    package static func looksLikeCapture(atPath path: String) -> Bool {
        guard let head = head(ofRegularFile: path) else { return false }
        return looksLikeCapture(head)
    }

    /// The first `sniffBytes` bytes of the regular file at `path`; nil for `-`, anything else
    /// than a regular file, and an unreadable file.
    private static func head(ofRegularFile path: String) -> [UInt8]? {
        guard path != "-" else { return nil }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? FileBytes.read(path, upTo: sniffBytes)
    }

    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        for i in 0...(bytes.count - needle.count) where bytes[i] == needle[0] {
            if bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    private static func keyFollowedBy(_ bytes: [UInt8], _ key: String, _ opener: UInt8) -> Bool {
        let needle = Array(key.utf8)
        guard bytes.count >= needle.count else { return false }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) {
                var j = i + needle.count
                while j < bytes.count && JSONReader.isSpace(bytes[j]) { j += 1 }
                if j < bytes.count && bytes[j] == UInt8(ascii: ":") {
                    j += 1
                    while j < bytes.count && JSONReader.isSpace(bytes[j]) { j += 1 }
                    if j < bytes.count && bytes[j] == opener { return true }
                }
            }
            i += 1
        }
        return false
    }

}
