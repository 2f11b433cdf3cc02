extension JSONValue {
    /// Parses a small JSON document held in memory (facescan's own files such as `expected.json`;
    /// captures go through the streaming ``CaptureReader``). Object member order is kept.
    public static func parse(_ bytes: [UInt8], name: String) throws(InputError) -> JSONValue {
        var p = MiniParser(bytes: bytes, name: name)
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("unexpected content after the JSON value") }
        return v
    }

    /// Member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

private struct MiniParser {
    let bytes: [UInt8]
    let name: String
    var i = 0

    init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    func fail(_ message: String) -> InputError { InputError(file: name, "at byte \(i): \(message)") }

    mutating func skipSpace() {
        while i < bytes.count, JSONReader.isSpace(bytes[i]) { i += 1 }
    }

    mutating func value(depth: Int) throws(InputError) -> JSONValue {
        guard depth < 256 else { throw fail("nested too deeply") }
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            let start = i
            while i < bytes.count, (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == 0x2E || bytes[i] == 0x2D || bytes[i] == 0x2B || bytes[i] | 0x20 == 0x65 { i += 1 }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if let n = Int(text) { return .int(n) }
            guard let d = FastFloat.parseDouble(text), d.isFinite else { throw fail("malformed number '\(text)'") }
            return .double(d)
        }
    }

    mutating func literal(_ word: String, _ v: JSONValue) throws(InputError) -> JSONValue {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("expected a value") }
        i += w.count
        return v
    }

    mutating func string() throws(InputError) -> String {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16),
                          let u = Unicode.Scalar(v) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                    i += 4
                default: out.append(e)
                }
            } else {
                out.append(c)
            }
        }
        throw fail("unterminated string")
    }
}
