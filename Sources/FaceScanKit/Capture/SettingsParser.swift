/// Parses the `settings` object (FORMAT.md): known keys are type- and range-checked, unknown keys ignored.
enum SettingsParser {
    /// Largest `scale`: a 0.2 m face in millimetres times this stays far inside float32's range.
    static let maxScale = 1e6

    static func parse(_ json: JSONReader) throws(InputError) -> CaptureSettings {
        var s = CaptureSettings()
        guard try json.peek() == UInt8(ascii: "{") else { throw json.badValue("an object") }
        try json.expect(UInt8(ascii: "{"), "'{'")
        if try json.consume(UInt8(ascii: "}")) { return s }
        repeat {
            let key = try json.readString(limit: 256)
            try json.expect(UInt8(ascii: ":"), "':'")
            do throws(InputError) {
                switch key {
                case "quality":
                    let v = try string(json)
                    guard let q = Quality(rawValue: v) else { throw json.error("unknown quality \(CaptureReader.quoted(v)) (expected low, medium or high)") }
                    s.quality = q
                case "targetVertexCount":  // as --target-vertices
                    s.targetVertexCount = try integer(json, min: 4, max: Decimation.maximumTargetVertices)
                case "smoothingIterations":
                    if try json.peek() == UInt8(ascii: "\"") {
                        let v = try json.readString(limit: 16)
                        guard v == "auto" else { throw json.error("expected a number of passes or \"auto\", found \"\(v)\"") }
                        s.smoothingIterations = ResolvedSettings.autoSmoothing
                    } else {
                        s.smoothingIterations = try integer(json, min: 0, max: 1000)
                    }
                case "maxFrames": s.maxFrames = try integer(json, min: 1)
                case "scale":
                    let v = try json.readDouble()
                    // Bounded so that coordinates (and their cross products) stay finite in float32.
                    guard v > 0, v <= maxScale else { throw json.error("scale must be positive and at most 1e6, found \(v)") }
                    s.scale = v
                case "units":
                    let v = try string(json)
                    guard let u = LengthUnit(rawValue: v) else { throw json.error("unknown unit \(CaptureReader.quoted(v)) (expected mm or m)") }
                    s.units = u
                case "exportFormats":
                    guard try json.peek() == UInt8(ascii: "[") else { throw json.badValue("an array of format names") }
                    try json.expect(UInt8(ascii: "["), "'['")
                    var list: [String] = []
                    if !(try json.consume(UInt8(ascii: "]"))) {
                        repeat {
                            list.append(try string(json).lowercased())
                            if list.count > 64 { throw json.error("too many formats") }
                        } while !(try json.nextOrClose(UInt8(ascii: "]")))
                    }
                    s.exportFormats = list
                case "solid":
                    s.solid = try solid(json)
                case "minDistance": s.minDistance = try nonNegative(json)
                case "maxDistance": s.maxDistance = try nonNegative(json)
                case "minAmbientIntensity": s.minAmbientIntensity = try nonNegative(json)
                case "maxJawOpen": s.maxJawOpen = try nonNegative(json)
                case "maxSmile": s.maxSmile = try nonNegative(json)
                case "maxBrowInnerUp": s.maxBrowInnerUp = try nonNegative(json)
                default: try json.skipValue()
                }
            } catch {
                var e = error
                if e.field == nil { e.field = "settings.\(key)" }
                throw e
            }
        } while !(try json.nextOrClose(UInt8(ascii: "}")))
        return s
    }

    /// `true` (defaults), `false`/`null` (off) or `{"thickness": mm, "base": bool}`.
    private static func solid(_ json: JSONReader) throws(InputError) -> SolidOptions? {
        switch try json.peek() {
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return try json.readLiteral() == true ? SolidOptions() : nil
        case UInt8(ascii: "{"):
            break
        default:
            throw json.badValue("true, false or an object {\"thickness\": mm, \"base\": bool}")
        }
        try json.expect(UInt8(ascii: "{"), "'{'")
        var o = SolidOptions()
        if try json.consume(UInt8(ascii: "}")) { return o }
        repeat {
            let key = try json.readString(limit: 256)
            try json.expect(UInt8(ascii: ":"), "':'")
            switch key {
            case "thickness":
                let v = try json.readDouble()
                guard SolidOptions.thicknessRange.contains(v) else { throw json.error("thickness must be \(SolidOptions.thicknessRangeText), found \(v)") }
                o.thickness = v
            case "base":
                guard let b = try json.readLiteral() else { throw json.error("base must be true or false") }
                o.base = b
            case "depth":
                let v = try json.readDouble()
                guard SolidOptions.depthRange.contains(v) else { throw json.error("depth must be \(SolidOptions.depthRangeText), found \(v)") }
                o.depth = v
            default:
                try json.skipValue()
            }
        } while !(try json.nextOrClose(UInt8(ascii: "}")))
        return o
    }

    private static func string(_ json: JSONReader) throws(InputError) -> String {
        guard try json.peek() == UInt8(ascii: "\"") else { throw json.badValue("a string") }
        return try json.readString(limit: 256)
    }

    private static func integer(_ json: JSONReader, min: Int, max: Int = 100_000_000) throws(InputError) -> Int {
        let v = try json.readDouble()
        guard v == v.rounded(), v >= Double(min), v <= Double(max) else {
            throw json.error("expected an integer from \(min) to \(max), found \(v)")
        }
        return Int(v)
    }

    private static func nonNegative(_ json: JSONReader) throws(InputError) -> Double {
        let v = try json.readDouble()
        guard v >= 0 else { throw json.error("expected a non-negative number, found \(v)") }
        return v
    }
}
