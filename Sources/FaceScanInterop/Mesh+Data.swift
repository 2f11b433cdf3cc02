import FaceScanCore
import FaceScanRender

// FoundationEssentials where it exists (Linux: Data and URL without loading ICU and
// FoundationInternationalization at start-up), else Foundation.
#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
#if canImport(FoundationEssentials) || canImport(Foundation)

extension Mesh {
    /// ``init(bytes:format:unit:name:)-([UInt8],_,_,_)`` for `Data`.
    public init(data: Data, format: MeshFormat, unit: LengthUnit = .mm, name: String? = nil) throws(FaceScanError) {
        try self.init(bytes: [UInt8](data), format: format, unit: unit, name: name)
    }

    /// ``encoded(as:unit:)`` as `Data`.
    public func encodedData(as format: MeshFormat, unit: LengthUnit = .mm) throws(FaceScanError) -> Data {
        Data(try encoded(as: format, unit: unit))
    }

    /// ``init(contentsOf:unit:)-(String,_)`` for a file URL.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` for a URL that is not a file URL, else as the
    ///   `String` form does.
    public init(contentsOf url: URL, unit: LengthUnit = .mm) throws(FaceScanError) {
        try self.init(contentsOf: try filePath(url), unit: unit)
    }

    /// ``write(to:format:unit:)-(String,_,_)`` for a file URL.
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` for a URL that is not a file URL, else as the
    ///   `String` form does.
    public func write(to url: URL, format: MeshFormat? = nil, unit: LengthUnit = .mm) throws(FaceScanError) {
        try write(to: try filePath(url), format: format, unit: unit)
    }
}

extension PNGEncoder {
    /// ``write(_:to:)-(_,String)`` for a file URL.
    public static func write(_ image: RGBAImage, to url: URL) throws(FaceScanError) {
        try write(image, to: try filePath(url))
    }
}

/// The path of a file URL, or `.badSetting` for any other URL.
func filePath(_ url: URL) throws(FaceScanError) -> String {
    guard url.isFileURL else {
        throw .badSetting(UsageError("\(url.absoluteString): not a file URL", field: "url"))
    }
    return url.path
}
#endif
