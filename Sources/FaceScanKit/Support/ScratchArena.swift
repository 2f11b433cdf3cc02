#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One anonymous memory mapping that a computation carves its scratch arrays from, unmapped in
/// one call. Zero-filled; every array starts on a 64-byte boundary.
///
/// Why: the first touch of fresh memory costs a page fault per 4 KiB page, about 3 µs on a
/// virtual machine (0.7 ms per MiB: a quarter of the decimation of a 9 409-vertex face). On Linux
/// an arena of 2 MiB or more is 2 MiB-aligned and asks for transparent huge pages
/// (`MADV_HUGEPAGE`), so it costs one fault per 2 MiB instead: 4 MiB in 0.6–1.0 ms instead of
/// 2.7–3.3 ms. Where huge pages are off, it behaves like `malloc`.
///
/// A trivially copyable view: the owner calls ``release()`` once.
struct ScratchArena: @unchecked Sendable {
    static let hugePage = 2 << 20
    static let alignment = 64

    private let mapping: UnsafeMutableRawPointer
    private let mappingBytes: Int
    let base: UnsafeMutableRawPointer
    let byteCount: Int

    /// Bytes an array of `count` (at least one) `T` takes in an arena, padding included.
    static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (max(count, 1) * MemoryLayout<T>.stride + alignment - 1) & ~(alignment - 1)
    }

    /// Maps `byteCount` bytes (traps when the system has no memory left, as `allocate` does).
    init(byteCount: Int) {
        let large = byteCount >= Self.hugePage
        // Whole huge pages, and one more of slack to align the start.
        let hugeBytes = (byteCount + Self.hugePage - 1) & ~(Self.hugePage - 1)
        let length = large ? hugeBytes + Self.hugePage : max(byteCount, 1)
        guard let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              m != MAP_FAILED else {
            fatalError("out of memory: cannot map \(length) bytes of scratch")
        }
        mapping = m
        mappingBytes = length
        self.byteCount = byteCount
        if large {
            let address = (Int(bitPattern: m) + Self.hugePage - 1) & ~(Self.hugePage - 1)
            base = UnsafeMutableRawPointer(bitPattern: address)!
            #if os(Linux)
            _ = madvise(base, hugeBytes, MADV_HUGEPAGE)
            #endif
        } else {
            base = m
        }
    }

    func release() { munmap(mapping, mappingBytes) }

    /// Hands out consecutive arrays of a region (the arena, or a 64-byte-aligned part of it that
    /// is reused), in the order the owner sized them with ``ScratchArena/bytes(_:_:)``.
    struct Cursor {
        private var offset = 0
        let base: UnsafeMutableRawPointer
        let byteCount: Int

        init(_ arena: ScratchArena) { self.init(base: arena.base, byteCount: arena.byteCount) }

        init(base: UnsafeMutableRawPointer, byteCount: Int) {
            self.base = base
            self.byteCount = byteCount
        }

        /// The next array of `count` (at least one) `T`.
        mutating func take<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
            let size = ScratchArena.bytes(type, count)
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
