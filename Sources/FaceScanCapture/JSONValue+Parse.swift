import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONValue {
    /// Reads a JSON file of facescan's own (such as `expected.json`) with the same tokenizer that
    /// reads captures. Object member order is kept; integers come back as `.int`.
    /// Throws ``FaceScanError/io(_:)`` or ``FaceScanError/badInput(_:)``.
    package static func read(path: String) throws(FaceScanError) -> JSONValue {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .io(IOFailure(path: path, "cannot open: \(systemErrorText())")) }
        let reader = JSONReader(fd: fd, name: path, ownsFD: true)
        return try lift { () throws(InputError) in
            let value = try reader.readValue()
            guard try reader.atEnd() else { throw reader.error("unexpected content after the JSON value") }
            return value
        }
    }

    /// Member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// An `int` or `double` as a `Double`; nil for any other value.
    public var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The text of a `string`; nil for any other value.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

extension JSONReader {
    /// Reads any JSON value into a ``JSONValue`` (for small files; nesting deeper than 256 is refused).
    func readValue(depth: Int = 0) throws(InputError) -> JSONValue {
        guard depth < 256 else { throw error("nested too deeply") }
        guard let c = try peek() else { throw error("unexpected end of input") }
        switch c {
        case UInt8(ascii: "{"):
            try expect(c, "'{'")
            var members: [(String, JSONValue)] = []
            if try consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                let key = try readString()
                try expect(UInt8(ascii: ":"), "':'")
                members.append((key, try readValue(depth: depth + 1)))
            } while !(try nextOrClose(UInt8(ascii: "}")))
            return .object(members)
        case UInt8(ascii: "["):
            try expect(c, "'['")
            var items: [JSONValue] = []
            if try consume(UInt8(ascii: "]")) { return .array(items) }
            repeat {
                items.append(try readValue(depth: depth + 1))
            } while !(try nextOrClose(UInt8(ascii: "]")))
            return .array(items)
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return try readLiteral().map { .bool($0) } ?? .null
        default:
            let d = try readDouble()
            return d == d.rounded() && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
        }
    }
}
