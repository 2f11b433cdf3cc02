/// Output size presets of the FaceScanner iOS app: low / medium / high = 5 000 / 10 000 / 20 000 vertices.
public enum Quality: String, Sendable, Hashable, Codable, CaseIterable {
    /// 5 000, 10 000 and 20 000 vertices.
    case low, medium, high
    /// Output vertex count of the preset.
    public var vertexCount: Int {
        switch self {
        case .low: 5_000
        case .medium: 10_000
        case .high: 20_000
        }
    }
}

/// The capture's `settings` object (FORMAT.md) with its keys type- and range-checked, every key
/// optional: `nil` means "not given". Types are checked here, ranges by the settings' rules once
/// the run's settings are merged (``ScanSettings/init(options:settings:)``: flags over settings
/// over defaults) and validated (``ValidatedSettings``).
public struct CaptureSettings: Sendable, Hashable, Codable {
    /// Output size preset; a `targetVertexCount` beside it wins.
    public var quality: Quality?
    /// Exact output vertex count.
    public var targetVertexCount: Int?
    /// `smoothingIterations`: a number of passes or `"auto"`.
    public var smoothing: Smoothing?
    /// Uniform scale applied after the unit conversion; positive.
    public var scale: Double?
    /// Unit of the output coordinates.
    public var units: LengthUnit?
    /// Output formats by name.
    public var exportFormats: [String]?
    /// Stop after this many accepted frames; at least 1.
    public var maxFrames: Int?
    /// The quality gate's thresholds the capture gives (`minDistance`, `maxDistance`,
    /// `minAmbientIntensity`, `maxJawOpen`, `maxSmile`, `maxBrowInnerUp`).
    public var gate: GateOverrides
    /// `"solid": true` or `{"thickness": mm, "base": bool}`: close the face into a printable part.
    public var solid: SolidOptions?

    /// Settings with the given keys; every key left out is nil (not given).
    public init(
        quality: Quality? = nil, targetVertexCount: Int? = nil, smoothing: Smoothing? = nil,
        scale: Double? = nil, units: LengthUnit? = nil, exportFormats: [String]? = nil, maxFrames: Int? = nil,
        gate: GateOverrides = GateOverrides(), solid: SolidOptions? = nil
    ) {
        self.quality = quality
        self.targetVertexCount = targetVertexCount
        self.smoothing = smoothing
        self.scale = scale
        self.units = units
        self.exportFormats = exportFormats
        self.maxFrames = maxFrames
        self.gate = gate
        self.solid = solid
    }

    /// Gives the keys of a capture's `settings` object their meaning (FORMAT.md): known keys are
    /// type-checked (their ranges are ``ScanSettings``'s rules, checked when the run's settings
    /// are resolved, in the file's words), unknown keys ignored. An error names the field `settings.KEY` and
    /// the byte where the value was (the same message the capture reader gives for bad JSON).
    package init(_ raw: RawSettings) throws(FaceScanError) {
        do throws(InputError) {
            try self.init(checking: raw)
        } catch {
            throw .badInput(error)
        }
    }

    init(checking raw: RawSettings) throws(InputError) {
        self.init()
        let file = raw.file
        for (key, v) in raw.members {
            do throws(InputError) {
                switch key {
                case "quality":
                    let s = try Self.string(v, file)
                    guard let q = Quality(rawValue: s) else {
                        throw v.error(file, "unknown quality \(CaptureReader.quoted(s)) (expected low, medium or high)")
                    }
                    quality = q
                case "targetVertexCount":  // as --target-vertices
                    targetVertexCount = try Self.integer(v, file)
                case "smoothingIterations":
                    if case .string(let s) = v.value {
                        guard s.utf8.count <= 16 else {
                            throw SpannedJSON.error(file, at: v.end - 1, "string longer than 16 bytes")
                        }
                        guard s == "auto" else {
                            throw v.error(file, "expected a number of passes or \"auto\", found \"\(s)\"")
                        }
                        smoothing = .auto
                    } else {
                        // A number of passes (-1 is not "auto"); its range is the settings' rule.
                        smoothing = .passes(try Self.integer(v, file))
                    }
                case "maxFrames": maxFrames = try Self.integer(v, file)
                case "scale": scale = try Self.number(v, file)
                case "units":
                    let s = try Self.string(v, file)
                    guard let u = LengthUnit(rawValue: s) else {
                        throw v.error(file, "unknown unit \(CaptureReader.quoted(s)) (expected mm or m)")
                    }
                    units = u
                case "exportFormats":
                    guard case .array(let items) = v.value else { throw v.badValue(file, "an array of format names") }
                    var list: [String] = []
                    for item in items {
                        // Parsed once, here: an unknown name is refused at its place in the file.
                        let name = try Self.string(item, file)
                        guard let f = FileFormat.named(name), f.isProcessOutput else {
                            throw item.error(
                                file,
                                "unknown output format \(CaptureReader.quoted(name)) (supported: \(FileFormat.processOutputNames.joined(separator: ", ")))"
                            )
                        }
                        if !list.contains(f.name) { list.append(f.name) }
                        if list.count > 64 { throw item.error(file, "too many formats") }
                    }
                    exportFormats = list
                case "solid":
                    solid = try Self.solid(v, file)
                default:
                    if let field = GateOverrides.fields.first(where: { $0.key == key }) {
                        gate[keyPath: field.given] = try Self.number(v, file)
                    }
                }
            } catch {
                throw error.at(field: "settings.\(key)")
            }
        }
    }

    /// `true` (defaults), `false`/`null` (off) or `{"thickness": mm, "base": bool, "depth": mm}`.
    private static func solid(_ v: SpannedJSON, _ file: String) throws(InputError) -> SolidOptions? {
        let members: [(key: String, value: SpannedJSON)]
        switch v.value {
        case .bool(let b): return b ? SolidOptions() : nil
        case .null: return nil
        case .object(let m): members = m
        default:
            throw v.badValue(file, "true, false or an object {\"thickness\": mm, \"base\": bool}")
        }
        var o = SolidOptions()
        for (key, m) in members {
            switch key {
            case "thickness":
                o.thickness = try number(m, file)  // its range: the settings' rule (SolidOptions.check)
            case "base":
                switch m.value {
                case .bool(let b): o.base = b
                case .null: throw m.error(file, "base must be true or false")
                default:
                    throw SpannedJSON.error(
                        file, at: m.start, "expected a value, found \(JSONReader.describe(m.first))")
                }
            case "depth":
                o.depth = try number(m, file)
            default:
                break
            }
        }
        return o
    }

    private static func string(_ v: SpannedJSON, _ file: String) throws(InputError) -> String {
        guard case .string(let s) = v.value else { throw v.badValue(file, "a string") }
        guard s.utf8.count <= 256 else { throw SpannedJSON.error(file, at: v.end - 1, "string longer than 256 bytes") }
        return s
    }

    private static func number(_ v: SpannedJSON, _ file: String) throws(InputError) -> Double {
        guard case .number(let d) = v.value else { throw v.badValue(file, "a number") }
        return d
    }

    /// A whole number (of at most 15 digits); its range is the settings' rule (``ScanSettings/check(_:)``).
    private static func integer(_ v: SpannedJSON, _ file: String) throws(InputError) -> Int {
        let d = try number(v, file)
        guard d == d.rounded(), abs(d) < 1e15 else { throw v.error(file, "expected a whole number, found \(d)") }
        return Int(d)
    }
}

extension GateThresholds {
    /// FORMAT.md's defaults, overridden by the thresholds a capture's settings give.
    public init(settings s: CaptureSettings) {
        self = s.gate.applied(to: GateThresholds())
    }
}
