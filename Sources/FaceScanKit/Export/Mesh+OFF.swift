/// A check of ASCII OFF files before assimp sees them: assimp's OFF loader replaces a face index
/// that is out of range by the last vertex and carries on (a made-up mesh, exit 0). Every face's
/// indices must name one of the declared vertices. Lines: the keyword (`OFF`, `COFF`, `NOFF`, …,
/// possibly followed by the counts), the counts, one vertex per line, one face per line;
/// empty lines and `#` comments are skipped.
enum OFFCheck {
    /// Whether `head` (the first bytes of a file) starts like an ASCII OFF file.
    static func looksLikeOFF(_ head: ArraySlice<UInt8>) -> Bool {
        let firstLine = head.prefix { $0 != 0x0A && $0 != 0x0D }
        let text = String(decoding: firstLine, as: UTF8.self)
        guard let keyword = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first else { return false }
        return keyword.hasSuffix("OFF") && keyword.count <= 6 && !text.contains("BINARY")
    }

    static func check(_ bytes: [UInt8], name: String) throws(InputError) {
        guard looksLikeOFF(bytes[...]) else { return }
        var vertices = -1, faces = -1, verticesLeft = 0, face = 0
        var lineNo = 0
        var start = 0
        var keywordSeen = false
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            lineNo += 1
            var line = bytes[start..<end]
            start = end + 1
            if let hash = line.firstIndex(of: UInt8(ascii: "#")) { line = line[..<hash] }
            var words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })[...]
            if words.isEmpty { continue }
            if !keywordSeen {
                keywordSeen = true
                words = words.dropFirst()
                if words.isEmpty { continue }
            }
            if vertices < 0 {
                guard words.count >= 2, let v = int(words[words.startIndex]), let f = int(words[words.startIndex + 1]),
                    v >= 0, f >= 0
                else {
                    throw InputError(file: name, "line \(lineNo): expected the vertex and face counts")
                }
                vertices = v
                faces = f
                verticesLeft = v
                continue
            }
            if verticesLeft > 0 {
                verticesLeft -= 1
                continue
            }
            guard face < faces else { return }
            guard let n = int(words[words.startIndex]), n >= 0, words.count > n else {
                throw InputError(
                    file: name, "line \(lineNo): face \(face): expected a corner count and that many indices")
            }
            for k in 1...max(n, 1) where n > 0 {
                guard let i = int(words[words.startIndex + k]), i >= 0, i < vertices else {
                    let text = String(decoding: words[words.startIndex + k], as: UTF8.self)
                    throw InputError(
                        file: name,
                        "line \(lineNo): face \(face): vertex index \(text) out of range (\(vertices) vertices)")
                }
            }
            face += 1
        }
    }

    private static func int(_ w: ArraySlice<UInt8>) -> Int? {
        Int(String(decoding: w, as: UTF8.self))
    }
}

extension Mesh {
    /// Object File Format text: `OFF`, the counts (`vertices triangles 0`), one `x y z` line per
    /// vertex (shortest round-trip float text), one `3 a b c` line per triangle (zero-based).
    /// Reading goes through assimp after `OFFCheck`.
    public func offBytes() -> [UInt8] {
        var out = TextBuffer(capacity: positions.count * 40 + triangles.count * 8 + 32)
        out.append("OFF\n")
        out.append(vertexCount)
        out.byte(0x20)
        out.append(triangleCount)
        out.append(" 0\n")
        for p in positions {
            out.append(p.x)
            out.byte(0x20)
            out.append(p.y)
            out.byte(0x20)
            out.append(p.z)
            out.byte(0x0A)
        }
        var i = 0
        while i < triangles.count {
            out.append("3")
            for k in 0..<3 {
                out.byte(0x20)
                out.append(Int(triangles[i + k]))
            }
            out.byte(0x0A)
            i += 3
        }
        return out.bytes
    }
}
