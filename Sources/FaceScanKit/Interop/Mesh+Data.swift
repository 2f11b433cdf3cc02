#if canImport(Foundation)
import Foundation

extension Mesh {
    /// ``init(bytes:format:unit:name:)-([UInt8],_,_,_)`` for `Data`.
    public init(data: Data, format: MeshFormat, unit: LengthUnit = .mm, name: String? = nil) throws(FaceScanError) {
        try self.init(bytes: [UInt8](data), format: format, unit: unit, name: name)
    }

    /// ``encoded(as:unit:)`` as `Data`.
    public func encodedData(as format: MeshFormat, unit: LengthUnit = .mm) throws(FaceScanError) -> Data {
        Data(try encoded(as: format, unit: unit))
    }
}
#endif
