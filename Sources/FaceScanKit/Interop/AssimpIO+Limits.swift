#if Assimp
/// Declared counts must fit in the file before assimp reads an ASCII PLY: its loader trusts them
/// and spends tens of seconds and gigabytes on a file of a few lines declaring a billion records.
/// Every record takes a line of its own, so the records declared may not outnumber the non-empty
/// lines that follow. Binary PLY is walked whole by ``PLYCheck``. (OFF never reaches assimp:
/// `OFFReader`.)
extension AssimpIO {
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
