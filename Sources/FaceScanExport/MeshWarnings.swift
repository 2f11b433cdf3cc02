import FaceScanCore
import Synchronization

/// Where readers report what they forgave in an input (an OBJ whose faces name texture
/// coordinates it never defines): one line each, naming the file and the element. By default
/// `facescan: warning: <line>` on standard error; an app embedding FaceScanKit can take them.
public enum MeshWarnings {
    private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sends every later warning to `body` (nil: back to standard error).
    public static func setHandler(_ body: (@Sendable (String) -> Void)?) {
        handler.withLock { $0 = body }
    }

    static func emit(_ line: String) {
        if let h = handler.withLock({ $0 }) {
            h(line)
            return
        }
        let bytes = Array("facescan: warning: \(line)\n".utf8)
        _ = AtomicFile.writeAll(bytes, to: 2)
    }
}
