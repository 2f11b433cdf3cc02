import FaceScanCore

/// A capture's `settings` object as written (FORMAT.md), checked as JSON only: the pipeline gives
/// its keys their meaning (`CaptureSettings` in Pipeline). Each value keeps where it was in the
/// input, so a setting found wrong later is reported at its byte, as the reader reports a
/// malformed one.
package struct RawSettings: Sendable {
    /// How messages name the input.
    package internal(set) var file: String
    /// The members in the order written, every copy of a key kept (applied in order, the last wins).
    package var members: [(key: String, value: SpannedJSON)]

    /// No settings (every key absent).
    package init() {
        file = ""
        members = []
    }

    /// The keys in the order written.
    package var keys: [String] { members.map(\.key) }

    /// The whole object as plain JSON.
    package var json: JSONValue { .object(members.map { ($0.key, $0.value.json) }) }

    /// The first value of `key`, or nil.
    subscript(key: String) -> SpannedJSON? { members.first { $0.key == key }?.value }

    /// Reads the `settings` value at the reader's position: an object whose top-level keys are
    /// at most 256 bytes. A syntax error inside a member names the field `settings.KEY`.
    init(_ json: JSONReader) throws(InputError) {
        file = json.name
        members = []
        guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("an object") }
        try json.expect(UInt8(ascii: "{"), "'{'")
        if try json.consume(UInt8(ascii: "}")) { return }
        var closed = false
        repeat {
            let key = try json.readString(limit: 256)
            try json.expect(UInt8(ascii: ":"), "':'")
            // What follows the value (`"maxFrames": 0x10` stops after the 0) belongs to it too.
            do throws(InputError) {
                members.append((key, try SpannedJSON(json, depth: 1)))
                closed = try json.nextOrClose(UInt8(ascii: "}"))
            } catch {
                throw error.at(field: "settings.\(key)")
            }
        } while !closed
    }
}

/// A JSON value with its place in the input: the offset of its first byte and just past its
/// last, and its first byte (so that "expected a string, found '3'" reads as the reader says it).
package struct SpannedJSON: Sendable {
    package enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([SpannedJSON])
        case object([(key: String, value: SpannedJSON)])
        /// Nested deeper than ``SpannedJSON/maxDepth``: checked and skipped, not kept.
        case skipped
    }

    package var value: Value
    package var start: Int64
    package var end: Int64
    package var first: UInt8

    /// Containers nested deeper than this are skipped (checked, not built): no setting is that deep.
    static let maxDepth = 32

    init(_ json: JSONReader, depth: Int) throws(InputError) {
        guard let c = try json.peek() else { throw json.error("unexpected end of input (truncated?)") }
        start = json.offset
        first = c
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if depth >= Self.maxDepth {
                try json.skipValue()
                value = .skipped
                break
            }
            if c == UInt8(ascii: "[") {
                try json.expect(c, "'['")
                var items: [SpannedJSON] = []
                if !(try json.consume(UInt8(ascii: "]"))) {
                    repeat {
                        items.append(try SpannedJSON(json, depth: depth + 1))
                    } while !(try json.nextOrClose(UInt8(ascii: "]")))
                }
                value = .array(items)
            } else {
                try json.expect(c, "'{'")
                var members: [(key: String, value: SpannedJSON)] = []
                if !(try json.consume(UInt8(ascii: "}"))) {
                    repeat {
                        let key = try json.readString()
                        try json.expect(UInt8(ascii: ":"), "':'")
                        members.append((key, try SpannedJSON(json, depth: depth + 1)))
                    } while !(try json.nextOrClose(UInt8(ascii: "}")))
                }
                value = .object(members)
            }
        case UInt8(ascii: "\""):
            value = .string(try json.readString(limit: 1 << 24))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            value = try json.readLiteral().map { .bool($0) } ?? .null
        default:
            value = .number(try json.readDouble())
        }
        end = json.offset
    }

    /// As plain JSON (integers as `.int`, like ``JSONValue``'s own reader).
    var json: JSONValue {
        switch value {
        case .null, .skipped: .null
        case .bool(let b): .bool(b)
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(\.json))
        case .object(let members): .object(members.map { ($0.key, $0.value.json) })
        }
    }

    /// What the reader calls this value in "expected …, found X".
    var kindText: String {
        switch value {
        case .string: "a string"
        case .object: "an object"
        case .array: "an array"
        case .bool: "a boolean"
        case .null: "null"
        case .skipped: first == UInt8(ascii: "{") ? "an object" : "an array"
        case .number: JSONReader.describe(first)
        }
    }

    /// The message the reader gives at byte `offset` of `file`.
    package static func error(_ file: String, at offset: Int64, _ message: String) -> InputError {
        InputError(file: file, "at byte \(offset): \(message)")
    }

    /// "expected `what`, found …" at this value's first byte.
    package func badValue(_ file: String, _ what: String) -> InputError {
        Self.error(file, at: start, "expected \(what), found \(kindText)")
    }

    /// A message about this value, at the byte just past it (where the reader stood after reading it).
    package func error(_ file: String, _ message: String) -> InputError {
        Self.error(file, at: end, message)
    }
}
