#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error every public throwing function of FaceScanKit reports (`throws(FaceScanError)`).
///
/// Each case carries a payload with the details; ``description`` is the payload's one-line message,
/// e.g. `capture.json: frame 3: field 'vertices': expected 3660 numbers, found 3657`.
///
/// ```swift
/// do throws(FaceScanError) {
///     let mesh = try Mesh(bytes: bytes, format: .stl)
/// } catch .badInput(let e) {
///     print(e.file, e.frame as Any, e.field as Any, e.message)
/// } catch {
///     print(error)
/// }
/// ```
///
/// `Equatable`, and a `LocalizedError` whose `errorDescription` (so `localizedDescription`) is
/// the same one line.
public enum FaceScanError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A capture or mesh breaks its format: file, frame, field and a message (CLI exit 2).
    case badInput(InputError)
    /// An option or setting that cannot be honoured, e.g. an unreachable vertex target (CLI exit 2).
    case badSetting(UsageError)
    /// Reading or writing failed for a reason outside the content (CLI exit 1).
    case io(IOFailure)
    /// No frame passed the quality gate; carries the report so far (CLI exit 3).
    case noAcceptedFrames(NoAcceptedFrames)
    /// The task was cancelled.
    case cancelled
    /// A feature not in this build (a package trait turned off); the message names it.
    case unavailable(String)

    /// The payload's one-line message (`cancelled` for ``cancelled``).
    public var description: String {
        switch self {
        case .badInput(let e): e.description
        case .badSetting(let e): e.description
        case .io(let e): e.description
        case .noAcceptedFrames(let e): e.description
        case .cancelled: "cancelled"
        case .unavailable(let what): oneLine(what)
        }
    }
}

/// A narrow error that is one case of ``FaceScanError``: what ``lift(_:)`` turns a typed
/// throw into, so that no error is ever guessed into a case.
package protocol FaceScanErrorCase: Error {
    /// The error as the ``FaceScanError`` case it is.
    var asFaceScanError: FaceScanError { get }
}

extension FaceScanError: FaceScanErrorCase {
    /// Itself.
    package var asFaceScanError: FaceScanError { self }
}

extension InputError: FaceScanErrorCase {
    /// ``FaceScanError/badInput(_:)``.
    package var asFaceScanError: FaceScanError { .badInput(self) }
}

extension UsageError: FaceScanErrorCase {
    /// ``FaceScanError/badSetting(_:)``.
    package var asFaceScanError: FaceScanError { .badSetting(self) }
}

extension IOFailure: FaceScanErrorCase {
    /// ``FaceScanError/io(_:)``.
    package var asFaceScanError: FaceScanError { .io(self) }
}

extension NoAcceptedFrames: FaceScanErrorCase {
    /// ``FaceScanError/noAcceptedFrames(_:)``.
    package var asFaceScanError: FaceScanError { .noAcceptedFrames(self) }
}

extension FaceScanError {
    init(_ e: InputError) { self = .badInput(e) }
    init(_ e: UsageError) { self = .badSetting(e) }
    init(_ e: IOFailure) { self = .io(e) }
    init(_ e: NoAcceptedFrames) { self = .noAcceptedFrames(e) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
#if canImport(FoundationEssentials) || canImport(Foundation)
extension FaceScanError: LocalizedError {
    /// The one-line ``description``, so `localizedDescription` reads as the CLI prints it.
    public var errorDescription: String? { description }
}
#endif

extension FaceScanError {
    /// ``unavailable(_:)`` for a step that needs a C library this build left out: `what` (the
    /// file first when there is one, e.g. `face.3mf: reading 3MF`) needs `library`, which the
    /// package trait `trait` brings. The one wording of every such message.
    package static func withoutTrait(_ what: String, library: String, trait: String) -> FaceScanError {
        .unavailable("\(what) needs \(library) (FaceScanKit built without its \(trait) trait)")
    }
}

/// Runs `body` and lifts its narrow typed error into the ``FaceScanError`` case it is
/// (`try lift { () throws(InputError) in … }`); an untyped body does not compile.
@inline(__always)
package func lift<T, E: FaceScanErrorCase>(_ body: () throws(E) -> T) throws(FaceScanError) -> T {
    do {
        return try body()
    } catch {
        throw error.asFaceScanError
    }
}

/// The payload of ``FaceScanError/badInput(_:)``: a capture or mesh that breaks its format.
/// Prints as `FILE: frame N: field 'F': MESSAGE` (parts that do not apply are left out).
public struct InputError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The file (or `mesh`, `image`, `<session>`, …) the input came from.
    public var file: String
    /// The frame at fault, from 0, when the input is a capture.
    public var frame: Int?
    /// The field or element at fault (`vertices`, `triangles`, `settings.scale`, …).
    public var field: String?
    /// What is wrong, in one line.
    public var message: String

    /// An error about `file` (and its `frame` and `field`, when given).
    public init(file: String, frame: Int? = nil, field: String? = nil, _ message: String) {
        self.file = file
        self.frame = frame
        self.field = field
        self.message = message
    }

    /// The same error placed where it happened: at `frame` when given, and at `field` when it
    /// names no field yet (an inner reader's error names the element it read, the outer one the
    /// member it was in). The one place a reader composes an error's frame and field.
    package func at(frame: Int? = nil, field: String?) -> InputError {
        var e = self
        if let frame { e.frame = frame }
        if e.field == nil { e.field = field }
        return e
    }

    /// `FILE: frame N: field 'F': MESSAGE` (parts that do not apply left out), on one line.
    public var description: String {
        var s = file
        if let frame { s += ": frame \(frame)" }
        if let field { s += ": field '\(field)'" }
        return oneLine(s + ": " + message)
    }
}

/// The payload of ``FaceScanError/badSetting(_:)``: a setting or option that cannot be honoured,
/// e.g. an unreachable vertex target.
public struct UsageError: Error, CustomStringConvertible, Sendable, Hashable {
    /// One line saying what is wrong and what is allowed.
    public var message: String
    /// The setting or option at fault (`ScanSettings.maxFrames`, `RenderOptions.size`, …) when
    /// one is named, else nil.
    public var field: String?
    /// An error with `message`, naming `field` when given.
    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }
    /// The message, on one line.
    public var description: String { oneLine(message) }

    /// The same message as a property of the input at `path` (`-` named as standard input): an
    /// unreachable target or an unclosable surface belongs to the mesh it was asked of.
    package func naming(input path: String) -> InputError {
        InputError(file: path == "-" ? "<stdin>" : path, message)
    }
}

/// How a settings message names each field, by its path in ``ScanSettings`` (`scale`,
/// `gate.maxDistance`, `solid.thickness`): the API property (`ScanSettings.scale`), the key as a
/// capture's settings spell it (`targetVertexCount`), or the command line's flag (`--scale`).
/// The rules are stated once (``ScanSettings/check(_:)``); only the words differ.
package struct SettingNames {
    /// The words for a field in a message.
    package var name: (String) -> String
    /// The error's ``UsageError/field`` for a field, when it is not its ``name``.
    package var field: ((String) -> String)? = nil
    /// Who gave the field, ranked: a rule between two fields blames the higher (ties: the one the
    /// rule names first). Options 2 over a capture's settings 1 over defaults 0.
    package var rank: (String) -> Int = { _ in 1 }
    /// Which fields to check (a rule between two fields: when both are checked).
    package var checks: (String) -> Bool = { _ in true }

    package init(
        name: @escaping (String) -> String, field: ((String) -> String)? = nil,
        rank: @escaping (String) -> Int = { _ in 1 }, checks: @escaping (String) -> Bool = { _ in true }
    ) {
        self.name = name
        self.field = field
        self.rank = rank
        self.checks = checks
    }

    /// The error's field for the field at `path`.
    package func fieldName(_ path: String) -> String { field?(path) ?? name(path) }

    /// The API's own words: `ScanSettings.` and the property path.
    package static var api: SettingNames { SettingNames(name: { "ScanSettings." + $0 }) }

    /// The same names for the fields of a nested value (`gate`, `solid`): its field `f` is `prefix.f`.
    package func within(_ prefix: String) -> SettingNames {
        let (names, p) = (self, prefix + ".")
        return SettingNames(
            name: { names.name(p + $0) }, field: { names.fieldName(p + $0) }, rank: { names.rank(p + $0) },
            checks: { names.checks(p + $0) })
    }
}

/// The system's text for an `errno` value (by default the current one), for error messages.
package func systemErrorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// The payload of ``FaceScanError/io(_:)``: reading or writing a file failed for a reason outside
/// the input's content.
public struct IOFailure: Error, CustomStringConvertible, Sendable, Hashable {
    /// The file or directory.
    public var path: String
    /// What failed (usually the system's text for `errno`).
    public var message: String
    /// A failure on `path`.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }
    /// `PATH: MESSAGE`, on one line.
    public var description: String { oneLine("\(path): \(message)") }
}

/// The payload of ``FaceScanError/noAcceptedFrames(_:)``: no frame of the capture passed the
/// quality gate. Carries the report so far so the caller can still print it.
public struct NoAcceptedFrames: Error, CustomStringConvertible, Sendable, Equatable {
    /// The capture (or `<session>`).
    public var file: String
    /// Frame counts so far, rejections by reason.
    public var report: Report
    /// The failure for `file` with `report`.
    public init(file: String, report: Report) {
        self.file = file
        self.report = report
    }
    /// The counts of frames read and rejected by reason, on one line.
    public var description: String {
        let r = report.frames.rejected
        return oneLine("\(file)")
            + ": no frame passed the quality gate (\(report.frames.read) read; rejected: distance \(r.distance), tracking \(r.tracking), lighting \(r.lighting), expression \(r.expression))"
    }
}

/// `text` with line breaks and other control characters escaped (`\n`, `\u{1B}`, …), so that an
/// error message stays one line and cannot drive the terminal, whatever a file name or an echoed
/// input string contains.
func oneLine(_ text: String) -> String {
    func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var out = String.UnicodeScalarView()
    for u in text.unicodeScalars {
        switch u {
        case "\n": out.append(contentsOf: "\\n".unicodeScalars)
        case "\r": out.append(contentsOf: "\\r".unicodeScalars)
        case "\t": out.append(contentsOf: "\\t".unicodeScalars)
        default:
            if needsEscape(u) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(u)
            }
        }
    }
    return String(out)
}
