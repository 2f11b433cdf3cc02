import FaceScanCore
import FaceScanExport

// The PLY guard: everything facescan checks in a PLY file before assimp reads it, in one place.
// assimp 5.2's PLY loader trusts what the file declares; the fuzz targets found files that made
// it read header lines forever, allocate gigabytes or run past the end of the buffer.
//
// - A file that starts like a PLY must end its header within the first 64 KiB, on a line of its
//   own (`AssimpIO.checkPLYHeader`).
// - ASCII PLY: the records declared must fit in the lines that follow (`AssimpIO.checkPLYCounts`).
// - Binary PLY: the body is walked whole and must hold every record declared (`PLYCheck`).

/// A structural check of binary PLY files before assimp sees them: assimp's PLY loader trusts
/// the element counts and list lengths it reads and runs past the end of a truncated file. The
/// header is parsed, then every element's records are walked (fixed-size elements by arithmetic,
/// elements with lists record by record) and the file must hold them all. ASCII PLY is left to
/// assimp (its tokenizer stops at the end of the text).
enum PLYCheck {
    /// Byte sizes of PLY scalar types.
    static func size(of type: Substring) -> Int? {
        switch type {
        case "char", "uchar", "int8", "uint8": return 1
        case "short", "ushort", "int16", "uint16": return 2
        case "int", "uint", "int32", "uint32", "float", "float32": return 4
        case "double", "float64": return 8
        default: return nil
        }
    }

    struct Property {
        var size: Int  // scalar size, or the list's item size
        var countSize: Int?  // a list's count size
    }

    struct Element {
        var name: String
        var count: Int
        var properties: [Property] = []
    }

    /// What a PLY header declares: its format and its elements.
    struct Header {
        var littleEndian = true
        var binary = false
        var elements: [Element] = []

        /// Takes header line `line` (1-based), split into words `w` (the first is its keyword).
        mutating func read(_ w: [Substring], line: Int, name: String) throws(InputError) {
            switch w[0] {
            case "ply", "comment", "obj_info":
                return
            case "format":
                guard w.count == 3, ["ascii", "binary_little_endian", "binary_big_endian"].contains(w[1]) else {
                    throw InputError(
                        file: name,
                        "header line \(line): expected 'format ascii|binary_little_endian|binary_big_endian 1.0'")
                }
                binary = w[1] != "ascii"
                littleEndian = w[1] != "binary_big_endian"
            case "element":
                guard w.count >= 3, let c = Int(w[2]), c >= 0 else {
                    throw InputError(file: name, "header line \(line): element needs a name and a count")
                }
                elements.append(Element(name: String(w[1]), count: c))
            case "property":
                guard !elements.isEmpty else {
                    throw InputError(file: name, "header line \(line): property before any element")
                }
                if w.count >= 5 && w[1] == "list" {
                    guard let cs = size(of: w[2]), let s = size(of: w[3]) else {
                        throw InputError(file: name, "header line \(line): unknown list type")
                    }
                    elements[elements.count - 1].properties.append(Property(size: s, countSize: cs))
                } else {
                    guard w.count >= 3, let s = size(of: w[1]) else {
                        throw InputError(file: name, "header line \(line): unknown property type")
                    }
                    elements[elements.count - 1].properties.append(Property(size: s, countSize: nil))
                }
            default:
                throw InputError(
                    file: name,
                    "header line \(line): unknown keyword '\(w[0].prefix(32))' (a PLY header holds format, element, property, comment and obj_info lines)"
                )
            }
        }
    }

    /// Throws when `bytes` is a binary PLY whose body does not hold what its header declares,
    /// naming the element, record and byte. Anything that is not a binary PLY passes.
    package static func check(_ bytes: [UInt8], name: String) throws(InputError) {
        guard bytes.starts(with: Array("ply".utf8)),
            let end = bytes.firstRange(of: Array("end_header".utf8))
        else { return }
        // `end_header` ends its line (assimp reads garbage headers out of bounds).
        var bodyStart = end.upperBound
        if bodyStart < bytes.count && bytes[bodyStart] == 0x0D { bodyStart += 1 }
        guard bodyStart >= bytes.count || bytes[bodyStart] == 0x0A else {
            throw InputError(file: name, "PLY header: 'end_header' is not followed by a line end (byte \(bodyStart))")
        }
        bodyStart += 1
        let header = try readHeader(String(decoding: bytes[..<end.lowerBound], as: UTF8.self), name: name)
        guard header.elements.contains(where: { $0.name == "vertex" }) else {
            throw InputError(file: name, "PLY header declares no 'vertex' element")
        }
        guard header.binary else { return }
        var at = bodyStart
        for e in header.elements {
            try walk(e, in: bytes, at: &at, littleEndian: header.littleEndian, name: name)
        }
    }

    /// The header's lines, read in order.
    static func readHeader(_ text: String, name: String) throws(InputError) -> Header {
        var header = Header()
        // "\r\n" is one Character in a Swift string: a CRLF header's lines end there too.
        for (n, raw) in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).enumerated() {
            let w = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !w.isEmpty else { continue }
            try header.read(w, line: n + 1, name: name)
        }
        return header
    }

    /// Walks the records of element `e` in binary body `bytes` from byte `at` (left after them):
    /// fixed-size records by arithmetic, records with lists one by one.
    static func walk(
        _ e: Element, in bytes: [UInt8], at: inout Int, littleEndian: Bool, name: String
    ) throws(InputError) {
        let total = bytes.count
        if e.properties.allSatisfy({ $0.countSize == nil }) {
            let record = e.properties.reduce(0) { $0 + $1.size }
            let (need, overflow) = e.count.multipliedReportingOverflow(by: record)
            guard !overflow, need <= total - at else {
                throw InputError(
                    file: name,
                    "element '\(e.name)': \(e.count) records of \(record) bytes run past the end of the file (byte \(total))"
                )
            }
            at += need
            return
        }
        // At least one byte per list count: a count beyond what is left is refused at once.
        guard e.count <= total - at else {
            throw InputError(
                file: name, "element '\(e.name)': \(e.count) records cannot fit in the \(total - at) bytes left")
        }
        for r in 0..<e.count {
            for p in e.properties {
                let place = "element '\(e.name)' record \(r)"
                if let cs = p.countSize {
                    try walkList(p, countSize: cs, in: bytes, at: &at, littleEndian: littleEndian, name: name) {
                        place
                    }
                } else {
                    guard p.size <= total - at else {
                        throw InputError(file: name, "\(place): runs past the end of the file (byte \(at))")
                    }
                    at += p.size
                }
            }
        }
    }

    /// Walks one list property (a count of `countSize` bytes, then that many items) at byte `at`
    /// (left after it); `place` names the element and record for a message.
    static func walkList(
        _ p: Property, countSize cs: Int, in bytes: [UInt8], at: inout Int, littleEndian: Bool, name: String,
        place: () -> String
    ) throws(InputError) {
        let total = bytes.count
        guard cs <= total - at else {
            throw InputError(file: name, "\(place()): list count past the end of the file (byte \(at))")
        }
        var c = 0
        for k in 0..<cs {
            let b = Int(bytes[at + (littleEndian ? k : cs - 1 - k)])
            c |= b << (8 * k)
        }
        if cs > 1, c >> (8 * cs - 1) == 1, cs < 8 { c = -1 }  // a negative signed count
        guard c >= 0 else {
            throw InputError(file: name, "\(place()): negative list count (byte \(at))")
        }
        at += cs
        guard c <= (total - at) / p.size else {
            throw InputError(
                file: name, "\(place()): list of \(c) values runs past the end of the file (byte \(at))")
        }
        at += c * p.size
    }
}

#if Assimp
/// The header, the counts and the body of a PLY, checked before assimp reads it. Declared counts
/// must fit in the file before assimp reads an ASCII PLY: its loader trusts them and spends tens
/// of seconds and gigabytes on a file of a few lines declaring a billion records. Every record
/// takes a line of its own, so the records declared may not outnumber the non-empty lines that
/// follow. Binary PLY is walked whole by ``PLYCheck``. (OFF never reaches assimp: `OFFReader`.)
extension AssimpIO {
    /// assimp waits forever on a PLY file whose header it never sees end: a file that starts like a
    /// PLY (``looksLikePLY(_:)``) must have an `end_header` line within its first 64 KiB.
    /// A binary PLY is also walked whole (``PLYCheck``): its body must hold what the header declares.
    static func checkPLYHeader(_ path: String) throws(FaceScanError) {
        try lift { () throws(InputError) in try FileBytes.checkMeshSize(path) }
        let head = try lift { () throws(IOFailure) in try FileBytes.read(path, upTo: plyHeaderLimit) }
        try lift { () throws(InputError) in try checkPLYHeader(head[...], name: path) }
        guard looksLikePLY(head[...]) else { return }
        let bytes = try lift { () throws(IOFailure) in try FileBytes.read(path) }
        try lift { () throws(InputError) in try checkPLYBody(bytes, name: path) }
    }

    static let plyHeaderLimit = 1 << 16

    /// Whether assimp's PLY loader takes `head` for a PLY: ``magicStart(_:)`` finds its magic.
    static func looksLikePLY(_ head: ArraySlice<UInt8>) -> Bool { magicStart(head) != nil }

    /// Where the PLY magic of `head` starts: its first three bytes other than NUL, line ends,
    /// spaces and tabs spell `ply` in any case (`PLY`, `Ply`, …); nil when they do not. assimp's
    /// line reader skips such bytes before the first line (a fuzz finding: `\0\nply` and a
    /// header without `end_header` kept its loader busy for ever, unchecked).
    static func magicStart(_ head: ArraySlice<UInt8>) -> Int? {
        guard let first = head.firstIndex(where: { ![0x00, 0x0A, 0x0D, 0x20, 0x09].contains($0) }),
            head.endIndex - first >= 3,
            zip(head[first..<(first + 3)], "ply".utf8).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        return first
    }

    /// The PLY header must end on a line of its own: `end_header`, after nothing but spaces or tabs
    /// on its line, and the first `end_header` of the file. assimp's loader reads header lines
    /// forever otherwise (fuzz findings, over 10 s: no such line, the magic written `Ply` which
    /// the old check missed, `end_header` inside a comment or after a lone carriage return).
    static func checkPLYHeader(_ head: ArraySlice<UInt8>, name: String) throws(InputError) {
        guard looksLikePLY(head) else { return }
        guard
            let found = MeshIO.find(
                "end_header", in: head, from: head.startIndex, to: head.endIndex)
        else {
            throw InputError(file: name, "PLY header without end_header (in the first 64 KiB)")
        }
        var start = found.lowerBound
        while start > head.startIndex, head[start - 1] == 0x20 || head[start - 1] == 0x09 {
            start -= 1
        }
        guard start > head.startIndex, head[start - 1] == 0x0A else {
            let line = 1 + head[..<found.lowerBound].count(where: { $0 == 0x0A })
            throw InputError(
                file: name, "PLY header line \(line): 'end_header' must begin its own line")
        }
    }

    /// ``PLYCheck`` (which knows the magic as `ply`) over a PLY whatever the case of its magic.
    static func checkPLYBody(_ bytes: [UInt8], name: String) throws(InputError) {
        guard let start = magicStart(bytes[...]) else { return }
        try checkPLYCounts(bytes, name: name)
        if start == 0 && bytes.starts(with: Array("ply".utf8)) { return try PLYCheck.check(bytes, name: name) }
        try PLYCheck.check(Array("ply".utf8) + bytes.dropFirst(start + 3), name: name)
    }

    /// ASCII PLY: the records of all elements against the lines after `end_header`, naming the
    /// first element that does not fit.
    static func checkPLYCounts(_ bytes: [UInt8], name: String) throws(InputError) {
        guard looksLikePLY(bytes[...]),
            let end = MeshIO.find("end_header", in: bytes, from: 0, to: min(bytes.count, plyHeaderLimit))
        else { return }
        let header = bytes[0..<end.lowerBound].split(separator: 0x0A, omittingEmptySubsequences: false)
        let words = header.map { $0.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) }
        guard
            words.contains(where: {
                $0.count >= 2 && $0[0].elementsEqual("format".utf8) && $0[1].elementsEqual("ascii".utf8)
            })
        else { return }
        let left = dataLines(bytes, from: lineEnd(bytes, from: end.upperBound) + 1)
        var declared = 0
        for (i, w) in words.enumerated() where w.count >= 3 && w[0].elementsEqual("element".utf8) {
            let count = leadingCount(w[2]) ?? 0
            declared = count > Int.max - declared ? Int.max : declared + count
            if declared > left {
                throw InputError(
                    file: name,
                    "PLY header line \(i + 1): element '\(ByteScanner.quoted(w[1]))' declares \(ByteScanner.quoted(w[2])) records, more than the \(left) lines after the header hold"
                )
            }
        }
    }

    /// The index of the `\n` ending the line that starts at `start` (or the end of `bytes`).
    static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count && bytes[i] != 0x0A { i += 1 }
        return i
    }

    /// Lines from `start` on holding something other than spaces and a `#` comment (a lone `\r`
    /// also ends a line, as for assimp).
    static func dataLines(_ bytes: [UInt8], from start: Int) -> Int {
        var lines = 0
        var content = false, comment = false
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A || b == 0x0D {
                if content { lines += 1 }
                content = false
                comment = false
            } else if !content && !comment && b != 0x20 && b != 0x09 {
                if b == UInt8(ascii: "#") { comment = true } else { content = true }
            }
            i += 1
        }
        return lines + (content ? 1 : 0)
    }

    /// The number a count token starts with, as assimp's parser reads it (leading digits; more
    /// than 18 digits counts as `Int.max`); nil without a leading digit.
    static func leadingCount(_ token: ArraySlice<UInt8>) -> Int? {
        let digits = token.prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !digits.isEmpty else { return nil }
        guard digits.count <= 18 else { return Int.max }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
#endif
