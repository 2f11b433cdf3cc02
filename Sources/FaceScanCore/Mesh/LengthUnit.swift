/// Length unit of a mesh's coordinates. Captures are always in metres.
public enum LengthUnit: String, Sendable, Hashable, Codable, CaseIterable {
    /// Millimetres (what slicers assume for STL), metres (the capture's own unit).
    case mm, m
    /// Factor from metres to this unit.
    public var fromMetres: Double { self == .mm ? 1000 : 1 }
    /// Millimetres per unit.
    public var millimetres: Double { self == .mm ? 1 : 1000 }
}
