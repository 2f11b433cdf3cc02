import FaceScanCore

/// Why ``Solidify`` could not make a part: one case per reason, each saying which step stopped
/// and what to change. The recipe's retry policy (``Solidify``) reads the case to decide what the
/// next attempt changes; the public API reports it as ``FaceScanError`` (``faceScanError``):
/// `.cancelled` as ``FaceScanError/cancelled``, every other case as
/// ``FaceScanError/badSetting(_:)`` whose message names the options by their API names
/// (`SolidOptions.thickness`); the CLI says its flags instead.
package enum SolidError: Error, Sendable, Equatable {
    /// An option out of range: its message and the option's API name.
    case badOption(UsageError)
    /// The surface cannot be closed at all (empty, already closed, not edge-manifold…).
    case badSurface(String)
    /// Nothing of the surface lies within the cut's depth (millimetres) of its frontmost point.
    case nothingInFront(depth: Double)
    /// Base mode: the rim seen from the front runs clockwise (the face does not look toward +z).
    case rimClockwise
    /// The skirt from the rim to the cut at `depth` millimetres would cut into the face (the rim
    /// overhangs the cut), or (base mode) the rim seen from the front crosses itself.
    case rimOverhangs(depth: Double)
    /// The cut front alone has `vertices` vertices, more than its `share` of the count asked.
    case frontOverBudget(vertices: Int, share: Int)
    /// No decimation brings the front within its share: the fewest vertices a part would need.
    case vertexCountUnreachable(target: Int, fewest: Int)
    /// A shell's distance field would exceed its point budget (memory and time): the part's size
    /// in millimetres and the wall asked.
    case gridTooLarge(size: SIMD3<Double>, thickness: Double, points: Int)
    /// The back could not be made at this cut (nothing lies inside the wall, or a step of it did
    /// not close cleanly).
    case backNotClosed(depth: Double)
    /// The back could not be decimated to its share of the vertices (`vertices` of them): every
    /// margin would fail alike, so it is not retried.
    case backOverBudget(vertices: Int)
    /// The back still crosses the front after being pushed off it.
    case backCrossesFront(depth: Double)
    /// The back's outline on the bed crosses the rim at this cut (a notch of the rim narrower
    /// than the extraction's spacing, which the back's outline cuts across): every margin and
    /// ball at this cut meets it alike, so the cut moves forward.
    case backCrossesRim(depth: Double)
    /// The finished part is not a closed, clean solid (`summary` from ``MeshCheck``).
    case notClosed(String)
    /// The task was cancelled.
    case cancelled

    /// One line, options named by their API names.
    package var message: String {
        func mm(_ x: Double) -> String { String((x * 10).rounded() / 10) }
        switch self {
        case .badOption(let e): return e.message
        case .badSurface(let why): return why
        case .nothingInFront(let depth):
            return "nothing of the surface lies within \(mm(depth)) mm of its frontmost point"
        case .rimClockwise:
            return
                "SolidOptions.base needs a face looking toward +z: its rim, seen from the front, must run counter-clockwise around the face"
        case .rimOverhangs(let depth):
            return
                "could not cut the surface into a part that stands on a plane (tried cuts down to \(mm(depth)) mm behind its frontmost point)"
        case .frontOverBudget(let vertices, let share):
            return "the cut front has \(vertices) vertices, more than its share \(share) of the vertex count"
        case .vertexCountUnreachable(let target, let fewest):
            return "cannot reach \(target) vertices for a solid part: the fewest found is \(fewest)"
        case .gridTooLarge(let size, let thickness, let points):
            let s = size.rounded(.toNearestOrAwayFromZero)
            return
                "a shell \(s.x)x\(s.y)x\(s.z) mm with a \(thickness) mm wall needs more than \(points) points of distance field (the limit, about 1 GB and 2 s): give SolidOptions.fit, a thicker SolidOptions.thickness, or SolidOptions.base"
        case .backNotClosed(let depth), .backCrossesFront(let depth), .backCrossesRim(let depth):
            return
                "could not make a shell's back behind this surface (cut tried down to \(mm(depth)) mm; try SolidOptions.base or a smaller SolidOptions.thickness)"
        case .backOverBudget(let vertices):
            return
                "a shell's back behind this surface needs more than \(vertices) vertices: give a larger vertex count, a thicker SolidOptions.thickness, or SolidOptions.base"
        case .notClosed(let summary): return "could not close the surface into a solid (\(summary))"
        case .cancelled: return "cancelled"
        }
    }

    /// The option the message is about, by its API name, when one is.
    package var field: String? {
        switch self {
        case .badOption(let e): return e.field
        case .rimClockwise: return "SolidOptions.base"
        case .gridTooLarge: return "SolidOptions.thickness"
        default: return nil
        }
    }

    /// As the package's narrow usage error (the CLI names the input itself).
    package var usage: UsageError { UsageError(message, field: field) }

    /// As the library's error.
    package var faceScanError: FaceScanError { self == .cancelled ? .cancelled : .badSetting(usage) }

    /// Throws ``cancelled`` when the task running the step was cancelled.
    static func checkCancelled() throws(SolidError) {
        if Cancellation.requested { throw .cancelled }
    }

    /// A failure of a step this package shares with others (decimation, refinement): cancelled
    /// when the task was, else its message as the surface's.
    static func from(_ e: UsageError) -> SolidError {
        Cancellation.requested ? .cancelled : .badSurface(e.message)
    }
}
