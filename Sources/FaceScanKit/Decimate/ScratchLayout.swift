/// The simplifier's scratch arrays carved from one allocation, which its owner frees in one call
/// (``QuadricSimplifier``'s `deinit`): nothing is kept for later. Every array starts on a 64-byte
/// boundary. Not zero-filled: the owner writes every element before it reads it.
enum ScratchLayout {
    static let alignment = 64

    /// Bytes an array of `count` (at least one) `T` takes, padding included.
    static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (max(count, 1) * MemoryLayout<T>.stride + alignment - 1) & ~(alignment - 1)
    }

    /// `byteCount` bytes, 64-byte aligned; the caller deallocates them.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: alignment)
    }

    /// Hands out consecutive arrays of a region, in the order the owner sized them with
    /// ``ScratchLayout/bytes(_:_:)``.
    struct Cursor {
        private var offset = 0
        let base: UnsafeMutableRawPointer
        let byteCount: Int

        init(base: UnsafeMutableRawPointer, byteCount: Int) {
            self.base = base
            self.byteCount = byteCount
        }

        /// The next array of `count` (at least one) `T`.
        mutating func take<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
            let size = ScratchLayout.bytes(type, count)
            precondition(offset + size <= byteCount, "scratch region sized too small")
            defer { offset += size }
            return (base + offset).bindMemory(to: type, capacity: max(count, 1))
        }

        /// Checks that the arrays taken fill the region exactly (its size was summed from the same
        /// list).
        func finish() {
            precondition(offset == byteCount, "scratch region sized \(byteCount) bytes, used \(offset)")
        }
    }
}
