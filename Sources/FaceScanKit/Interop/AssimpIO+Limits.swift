#if Assimp
/// Declared counts must fit in the file before assimp reads an ASCII PLY or an OFF: its loaders
/// trust them and spend tens of seconds and gigabytes on a file of a few lines declaring a
/// billion vertices or faces (fuzz finding, >60 s and 3 GB: an OFF file whose count had 63
/// digits, which assimp's parser wraps to 954 million). Every record of these text formats takes
/// a line of its own, so the records declared may not outnumber the non-empty lines that follow.
/// Binary PLY is walked whole by ``PLYCheck``.
extension AssimpIO {
    /// OFF: ``OFFCheck`` (indices in range), then the counts against the lines. `hinted`: the file
    /// is read as OFF whatever its first line (its extension or format hint says so; assimp's
    /// loader then takes the first numbers for the counts even without the `OFF` keyword).
    static func checkOFF(_ bytes: [UInt8], name: String, hinted: Bool) throws(InputError) {
        try OFFCheck.check(splittingGluedKeyword(bytes) ?? bytes, name: name)
        guard hinted || OFFCheck.looksLikeOFF(bytes[...]) else { return }
        var counts: [(text: ArraySlice<UInt8>, value: Int)] = []
        var countLine = 0
        var keywordSeen = false
        var lineNo = 0
        var start = 0
        while start < bytes.count && counts.count < 2 {
            let end = lineEnd(bytes, from: start)
            lineNo += 1
            var line = bytes[start..<end]
            start = end + 1
            if let hash = line.firstIndex(of: UInt8(ascii: "#")) { line = line[..<hash] }
            var words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })[...]
            // The keyword (`OFF`, `COFF`, `NOFF`, `STOFF`, …) may run straight into the first
            // count (`OFF3333…`): assimp skips the keyword's letters and reads on.
            var glued: ArraySlice<UInt8>? = nil
            if !keywordSeen, let first = words.first {
                keywordSeen = true
                if let k = first.firstRange(of: "OFF".utf8) {
                    words = words.dropFirst()
                    if k.upperBound < first.endIndex { glued = first[k.upperBound...] }
                }
            }
            for w in (glued.map { [$0] } ?? []) + words where counts.count < 2 {
                guard let v = leadingCount(w) else { return }  // not a count: assimp refuses the file itself
                if counts.isEmpty { countLine = lineNo }
                counts.append((w, v))
            }
        }
        guard counts.count == 2 else { return }
        let left = dataLines(bytes, from: start)
        if counts[0].value > left || counts[1].value > left - counts[0].value {
            throw InputError(
                file: name,
                "line \(countLine): \(text(counts[0].text)) vertices and \(text(counts[1].text)) faces declared, more than the \(left) lines that follow"
            )
        }
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
                    "PLY header line \(i + 1): element '\(text(w[1]))' declares \(text(w[2])) records, more than the \(left) lines after the header hold"
                )
            }
        }
    }

    /// `bytes` with a space after a keyword that runs straight into a count (`OFF1 1 0` becomes
    /// `OFF 1 1 0`, line numbers unchanged), so that ``OFFCheck`` (which knows the keyword as a
    /// word of its own) checks its indices: assimp reads such a file and crashes on an index out
    /// of range (fuzz finding, SIGSEGV). nil when the first word is no such keyword.
    static func splittingGluedKeyword(_ bytes: [UInt8]) -> [UInt8]? {
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var start = 0
        while start < bytes.count && space(bytes[start]) { start += 1 }
        var end = start
        while end < bytes.count && !space(bytes[end]) { end += 1 }
        guard let k = bytes[start..<end].firstRange(of: "OFF".utf8), k.upperBound < end else { return nil }
        return Array(bytes[..<k.upperBound]) + [0x20] + bytes[k.upperBound...]
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

    /// A token as a message quotes it (at most 24 bytes).
    static func text(_ token: ArraySlice<UInt8>) -> String {
        String(decoding: token.prefix(24), as: UTF8.self) + (token.count > 24 ? "…" : "")
    }
}
#endif
