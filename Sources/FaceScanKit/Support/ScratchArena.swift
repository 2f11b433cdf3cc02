#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// One anonymous memory mapping that a computation carves its scratch arrays from, given back in
/// one call. Every array starts on a 64-byte boundary. Not zero-filled: memory can come from an
/// earlier arena, and the owner writes every element before it reads it.
///
/// Why: the first touch of fresh memory costs a page fault per 4 KiB page, about 3 µs on a
/// virtual machine (0.7 ms per MiB: a quarter of the decimation of a 9 409-vertex face). On Linux
/// an arena of 2 MiB or more is 2 MiB-aligned and asks for transparent huge pages
/// (`MADV_HUGEPAGE`), so it costs one fault per 2 MiB instead: 4 MiB in 0.6–1.0 ms instead of
/// 2.7–3.3 ms. Where huge pages are off, it behaves like `malloc`. And a released arena of 2 MiB
/// or more goes to an ``ArenaCache`` (by default ``ArenaCache/shared``), from which the next
/// arena it is large enough for takes it, pages already in place: as `malloc` reuses freed
/// memory, without the faults.
///
/// A trivially copyable view: the owner calls ``release(to:)`` once, naming the cache it holds
/// (so no arena refers to a cache that may be gone).
struct ScratchArena: @unchecked Sendable {
    static let hugePage = 2 << 20
    static let alignment = 64

    /// The whole mapping, as `mmap` returned it.
    let mapping: UnsafeMutableRawPointer
    let mappingBytes: Int
    let base: UnsafeMutableRawPointer
    /// Bytes asked for.
    let byteCount: Int
    /// Bytes usable from `base` (at least `byteCount`).
    let capacity: Int
    /// Whether the memory was newly mapped (its pages not yet faulted in), not taken from a cache.
    let fresh: Bool

    /// Whether an arena of `byteCount` bytes is huge-page aligned and kept in a cache when released.
    static func isLarge(_ byteCount: Int) -> Bool { byteCount >= hugePage }

    /// Bytes an array of `count` (at least one) `T` takes in an arena, padding included.
    static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (max(count, 1) * MemoryLayout<T>.stride + alignment - 1) & ~(alignment - 1)
    }

    /// An arena of `byteCount` bytes: from `cache` when it keeps a mapping large enough, else
    /// newly mapped (traps when the system has no memory left, as `allocate` does).
    init(byteCount: Int, cache: ArenaCache? = .shared) {
        self.byteCount = byteCount
        let large = Self.isLarge(byteCount)
        if large, let kept = cache?.take(atLeast: byteCount) {
            mapping = kept.mapping
            mappingBytes = kept.mappingBytes
            base = kept.base
            capacity = kept.capacity
            fresh = false
            return
        }
        fresh = true
        // Whole huge pages, and one more of slack to align the start.
        let hugeBytes = (byteCount + Self.hugePage - 1) & ~(Self.hugePage - 1)
        let length = large ? hugeBytes + Self.hugePage : max(byteCount, 1)
        guard let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              m != MAP_FAILED else {
            fatalError("out of memory: cannot map \(length) bytes of scratch")
        }
        mapping = m
        mappingBytes = length
        if large {
            let address = (Int(bitPattern: m) + Self.hugePage - 1) & ~(Self.hugePage - 1)
            base = UnsafeMutableRawPointer(bitPattern: address)!
            capacity = hugeBytes
            #if os(Linux)
            _ = madvise(base, hugeBytes, MADV_HUGEPAGE)
            #endif
        } else {
            base = m
            capacity = length
        }
    }

    /// Faults in part `part` of `parts` of the first `byteCount` bytes (writes a zero into each of
    /// its 4 KiB pages), so that a fresh arena's faults can be taken on several threads at once
    /// rather than one by one as its owner first writes each array.
    func touch(part: Int, of parts: Int) {
        let page = 4096
        let pages = (byteCount + page - 1) / page
        var p = part * pages / parts
        let end = (part + 1) * pages / parts
        while p < end {
            base.storeBytes(of: 0, toByteOffset: p * page, as: UInt8.self)
            p += 1
        }
    }

    /// Gives the memory back: a large arena (2 MiB or more) to `cache`, others (or when there is no
    /// cache or it declines) to the system.
    func release(to cache: ArenaCache?) {
        if Self.isLarge(byteCount), let cache, cache.keep(self) { return }
        munmap(mapping, mappingBytes)
    }

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

/// Keeps up to ``slots`` released arenas (each at most ``limit`` bytes) for later arenas to
/// reuse. ``shared`` serves the whole process; its mappings stay until the process ends (at most
/// `slots × limit` bytes: 256 MiB).
final class ArenaCache: Sendable {
    static let shared = ArenaCache()
    /// Arenas kept at once: one per thread that decimates at the same time (two cores).
    static let slots = 2
    /// Largest mapping kept (a 150 000-vertex mesh's decimation takes about 55 MiB).
    static let limit = 128 << 20

    private let kept = Mutex<[ScratchArena]>([])

    init() {}

    deinit {
        kept.withLock { arenas in
            for arena in arenas { munmap(arena.mapping, arena.mappingBytes) }
        }
    }

    /// Removes and returns the smallest kept arena with room for `bytes`, if any.
    func take(atLeast bytes: Int) -> ScratchArena? {
        kept.withLock { kept in
            let fitting = kept.indices.filter { kept[$0].capacity >= bytes }
            return fitting.min { kept[$0].capacity < kept[$1].capacity }.map { kept.remove(at: $0) }
        }
    }

    /// Keeps `arena` unless it is over ``limit``; when every slot is full, the smallest kept one
    /// is unmapped first if `arena` is larger, else `arena` is declined. Returns whether it was
    /// kept (the caller unmaps it when not).
    func keep(_ arena: ScratchArena) -> Bool {
        guard arena.mappingBytes <= Self.limit else { return false }
        return kept.withLock { kept in
            if kept.count == Self.slots {
                let smallest = kept.indices.min { kept[$0].capacity < kept[$1].capacity }!
                guard kept[smallest].capacity < arena.capacity else { return false }
                let dropped = kept.remove(at: smallest)
                munmap(dropped.mapping, dropped.mappingBytes)
            }
            kept.append(arena)
            return true
        }
    }
}
