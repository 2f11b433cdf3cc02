/// How much the averaged face is smoothed: chosen per capture from the noise measured in its own
/// frames (``auto``, the default), or a fixed number of Taubin passes.
///
/// In a capture's settings and in JSON it is `"auto"` or a whole number of passes
/// (`smoothingIterations` in the capture format; `--smoothing auto|N` on the command line).
public enum Smoothing: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The pass count (0 … 8) with the least estimated error to the true face, from the
    /// frame-to-frame noise of the average (Stein's unbiased risk estimate; docs/ALGORITHMS.md).
    case auto
    /// Exactly this many passes; 0 disables smoothing.
    case passes(Int)

    /// `auto`, or the pass count.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .passes(let n): "\(n)"
        }
    }

    /// `"auto"` or a whole number of passes from 0; nil for anything else.
    public init?(_ text: String) {
        if text == "auto" {
            self = .auto
        } else if let n = Int(text), n >= 0 {
            self = .passes(n)
        } else {
            return nil
        }
    }

    /// Decodes `"auto"` or a number of passes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) {
            self = .passes(n)
            return
        }
        let text = try c.decode(String.self)
        guard text == "auto" else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected \"auto\" or a number of passes")
        }
        self = .auto
    }

    /// Encodes `"auto"` or the number of passes.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .auto: try c.encode("auto")
        case .passes(let n): try c.encode(n)
        }
    }
}
