/// Text for HTML and XML (the report page, JUnit).
enum Markup {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references (valid in HTML and XML
    /// alike), fit for element text and quoted attribute values; control characters other than
    /// tab and newline dropped (XML 1.0 does not allow them).
    static func escaped(_ text: String) -> String {
        var s = ""
        s.reserveCapacity(text.utf8.count)
        for u in text.unicodeScalars {
            switch u {
            case "&": s += "&amp;"
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "\"": s += "&quot;"
            case "'": s += "&#39;"
            case "\t", "\n": s.unicodeScalars.append(u)
            default: if u.value >= 0x20 && u.value != 0x7F { s.unicodeScalars.append(u) }
            }
        }
        return s
    }
}
