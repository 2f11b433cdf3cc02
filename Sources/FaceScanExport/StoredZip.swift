/// An uncompressed ("stored") zip archive as USDZ requires it: every entry's data starts at a
/// multiple of 64 bytes (the local header's extra field pads it, with the header id 0x1986
/// Pixar's own writer uses), no compression, CRC-32 of every entry, a fixed DOS date
/// (1980-01-01 00:00) and no other timestamps, so the same entries give the same bytes. Zip32:
/// the archive stays below 4 GiB (``maximumBytes``).
package enum StoredZip {
    /// One file of the archive: its name inside the package and its bytes.
    package struct Entry: Sendable {
        /// The name inside the archive (`face.usdc`, `texture.png`).
        package var name: String
        /// The file's bytes, stored as they are.
        package var bytes: [UInt8]

        /// An entry named `name` holding `bytes`.
        package init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The alignment of every entry's data (the USDZ specification's 64 bytes).
    package static let alignment = 64
    /// The largest archive zip32 offsets and sizes can describe.
    package static let maximumBytes = Int(UInt32.max)
    /// 1980-01-01, the first day a DOS date holds: (year − 1980) << 9 | month << 5 | day.
    static let fixedDate: UInt16 = 1 << 5 | 1
    /// The extra field's header id for padding (Pixar's `UsdZipFileWriter` uses it too).
    static let paddingHeaderID: UInt16 = 0x1986

    /// The archive's bytes: the entries in the order given (USDZ: the root layer first), then the
    /// central directory and its end record. Nil when the archive would pass ``maximumBytes``.
    package static func archive(_ entries: [Entry]) -> [UInt8]? {
        let total = entries.reduce(22) { $0 + 30 + 46 + 2 * $1.name.utf8.count + alignment + 4 + $1.bytes.count }
        guard total <= maximumBytes else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        var offsets: [Int] = [], crcs: [UInt32] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = crc32(entry.bytes)
            offsets.append(out.count)
            crcs.append(crc)
            let dataStart = out.count + 30 + name.count
            let extra = paddingLength(dataStart)
            append32(&out, 0x0403_4b50)
            append16(&out, 10)  // version needed to extract: 1.0, stored
            append16(&out, 0)  // flags
            append16(&out, 0)  // method: stored
            append16(&out, 0)  // time 00:00:00
            append16(&out, fixedDate)
            append32(&out, crc)
            append32(&out, UInt32(entry.bytes.count))
            append32(&out, UInt32(entry.bytes.count))
            append16(&out, UInt16(name.count))
            append16(&out, UInt16(extra))
            out += name
            if extra > 0 {
                append16(&out, paddingHeaderID)
                append16(&out, UInt16(extra - 4))
                out += [UInt8](repeating: 0, count: extra - 4)
            }
            out += entry.bytes
        }
        let directoryStart = out.count
        for (i, entry) in entries.enumerated() {
            let name = Array(entry.name.utf8)
            append32(&out, 0x0201_4b50)
            append16(&out, 10)  // version made by: 1.0, MS-DOS attributes
            append16(&out, 10)  // version needed to extract
            append16(&out, 0)
            append16(&out, 0)
            append16(&out, 0)
            append16(&out, fixedDate)
            append32(&out, crcs[i])
            append32(&out, UInt32(entry.bytes.count))
            append32(&out, UInt32(entry.bytes.count))
            append16(&out, UInt16(name.count))
            append16(&out, 0)  // extra
            append16(&out, 0)  // comment
            append16(&out, 0)  // disk
            append16(&out, 0)  // internal attributes
            append32(&out, 0)  // external attributes
            append32(&out, UInt32(offsets[i]))
            out += name
        }
        let directoryLength = out.count - directoryStart
        append32(&out, 0x0605_4b50)
        append16(&out, 0)
        append16(&out, 0)
        append16(&out, UInt16(entries.count))
        append16(&out, UInt16(entries.count))
        append32(&out, UInt32(directoryLength))
        append32(&out, UInt32(directoryStart))
        append16(&out, 0)
        return out
    }

    /// The extra field's length that puts data starting at `offset` on a multiple of
    /// ``alignment``: 0 when it already is, else at least the 4 bytes of the field's header.
    static func paddingLength(_ offset: Int) -> Int {
        var padding = (alignment - offset % alignment) % alignment
        if padding > 0 && padding < 4 { padding += alignment }
        return padding
    }

    /// CRC-32 (ISO 3309 / ITU-T V.42, the polynomial zip and PNG use) of `bytes`.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        let table = crcTable
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// The byte-at-a-time table of the reflected polynomial 0xEDB88320.
    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func append16(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8))
    }

    static func append32(_ out: inout [UInt8], _ v: UInt32) {
        for k in 0..<4 { out.append(UInt8((v >> (8 * UInt32(k))) & 0xFF)) }
    }
}
