#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The simplifier's scratch arrays carved from one allocation, which its owner frees in one call
/// (``QuadricSimplifier``'s `deinit`): nothing is kept for later. Every array starts on a 64-byte
/// boundary. Not zero-filled: the owner writes every element before it reads it.
///
/// On Linux a region of 2 MiB or more is its own mapping, 2 MiB-aligned, that asks for
/// transparent huge pages (`MADV_HUGEPAGE`; unmapped by ``Region/free()``): its first touch costs
/// one page fault per 2 MiB instead of one per 4 KiB (a decimation in a fresh process touches
/// all of its scratch; the time saved: CHANGELOG.md, issue 36's decimation round). Where huge pages are off it costs
/// what `malloc` would.
enum ScratchLayout {
    static let alignment = 64
    static let hugePage = 2 << 20

    /// One region: `base` for `byteCount` bytes; `mapping`/`mappingBytes` when it is a mapping of
    /// its own (else nil: from `allocate`).
    struct Region {
        let base: UnsafeMutableRawPointer
        let mapping: UnsafeMutableRawPointer?
        let mappingBytes: Int

        /// Gives the memory back to the system (or to `malloc`).
        func free() {
            #if os(Linux)
            if let mapping {
                munmap(mapping, mappingBytes)
                return
            }
            #endif
            base.deallocate()
        }
    }

    /// Bytes an array of `count` (at least one) `T` takes, padding included.
    static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (max(count, 1) * MemoryLayout<T>.stride + alignment - 1) & ~(alignment - 1)
    }

    /// `byteCount` bytes, 64-byte aligned (2 MiB-aligned huge pages for 2 MiB or more on Linux);
    /// the caller frees them with ``Region/free()``.
    static func allocate(byteCount: Int) -> Region {
        #if os(Linux)
        if byteCount >= hugePage {
            // Whole huge pages, and one more of slack to align the start.
            let hugeBytes = (byteCount + hugePage - 1) & ~(hugePage - 1)
            let length = hugeBytes + hugePage
            if let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                m != MAP_FAILED
            {
                let address = (Int(bitPattern: m) + hugePage - 1) & ~(hugePage - 1)
                let base = UnsafeMutableRawPointer(bitPattern: address)!
                _ = madvise(base, hugeBytes, MADV_HUGEPAGE)
                return Region(base: base, mapping: m, mappingBytes: length)
            }
        }
        #endif
        return Region(
            base: UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: alignment),
            mapping: nil, mappingBytes: 0)
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
