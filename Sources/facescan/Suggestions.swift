/// "Did you mean …?" for misspelt subcommands, options and format names.
enum Suggestions {
    /// The candidate closest to `word` when it is close enough to be a likely typo: at most one
    /// edit for short words, two for longer ones, or `word` a prefix of exactly one candidate.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let w = word.lowercased()
        let prefixed = candidates.filter { $0.hasPrefix(w) && $0 != w }
        if w.count >= 3 && prefixed.count == 1 { return prefixed[0] }
        let limit = w.count <= 4 ? 1 : 2
        var best: (String, Int)?
        for c in candidates {
            let d = distance(w, c.lowercased())
            if d <= limit && d < (best?.1 ?? .max) { best = (c, d) }
        }
        return best?.0
    }

    /// Damerau–Levenshtein distance (adjacent swaps count as one edit), for short words only.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }

    /// The long option names (`--name`) that `help` text lists.
    static func longOptions(inHelp help: String) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        let scalars = Array(help.unicodeScalars)
        var i = 0
        while i + 2 < scalars.count {
            if scalars[i] == "-" && scalars[i + 1] == "-" && (i == 0 || !isNameScalar(scalars[i - 1])) {
                var j = i + 2
                while j < scalars.count && isNameScalar(scalars[j]) { j += 1 }
                if j > i + 2 {
                    let name = String(String.UnicodeScalarView(scalars[i..<j]))
                    if seen.insert(name).inserted { out.append(name) }
                }
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    private static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        (s >= "a" && s <= "z") || (s >= "0" && s <= "9") || s == "-"
    }
}
