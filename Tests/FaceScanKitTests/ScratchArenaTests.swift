#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FaceScanKit

/// The arena the decimation carves its scratch arrays from, and the cache that reuses arenas.
struct ScratchArenaTests {
    @Test(arguments: [1, 100, 3 << 20])
    func arraysAreAlignedDisjointAndWritable(bytes: Int) {
        // Three arrays sized like a decimation's: odd counts, mixed strides. No cache: fresh memory.
        let counts = (a: bytes / 16 + 3, b: bytes / 8 + 1, c: 7)
        let total = ScratchArena.bytes(SIMD3<Float>.self, counts.a) + ScratchArena.bytes(UInt8.self, counts.b)
            + ScratchArena.bytes(Double.self, counts.c)
        let arena = ScratchArena(byteCount: total, cache: nil)
        defer { arena.release(to: nil) }
        var take = ScratchArena.Cursor(arena)
        let a = take.take(SIMD3<Float>.self, counts.a)
        let b = take.take(UInt8.self, counts.b)
        let c = take.take(Double.self, counts.c)
        take.finish()
        for p in [UnsafeRawPointer(a), UnsafeRawPointer(b), UnsafeRawPointer(c)] {
            #expect(Int(bitPattern: p) % ScratchArena.alignment == 0)
        }
        #expect(UnsafeRawPointer(a + counts.a) <= UnsafeRawPointer(b))
        #expect(UnsafeRawPointer(b + counts.b) <= UnsafeRawPointer(c))
        #expect(UnsafeRawPointer(c + counts.c) <= UnsafeRawPointer(arena.base + arena.byteCount))
        #expect(arena.capacity >= arena.byteCount)
        // Writes to one array leave the others alone.
        b.update(repeating: 7, count: counts.b)
        for i in 0..<counts.a { a[i] = SIMD3(repeating: 1) }
        for i in 0..<counts.c { c[i] = -1 }
        #expect((0..<counts.b).allSatisfy { b[$0] == 7 })
        #expect(a[counts.a - 1] == SIMD3(repeating: 1) && c[0] == -1)
        if total >= ScratchArena.hugePage {
            #expect(Int(bitPattern: arena.base) % ScratchArena.hugePage == 0)
        }
    }

    @Test func cacheReusesTheSmallestLargeEnoughArena() {
        let cache = ArenaCache()
        let mib = 1 << 20
        let small = ScratchArena(byteCount: 3 * mib, cache: cache)
        let large = ScratchArena(byteCount: 9 * mib, cache: cache)
        small.release(to: cache)
        large.release(to: cache)
        // 2.5 MiB fits both: it takes the smaller; the next 5 MiB only fits the larger.
        let a = ScratchArena(byteCount: 5 * mib / 2, cache: cache)
        #expect(a.base == small.base && a.byteCount == 5 * mib / 2 && a.capacity == small.capacity)
        let b = ScratchArena(byteCount: 5 * mib, cache: cache)
        #expect(b.base == large.base)
        // Nothing kept now: a new mapping.
        let c = ScratchArena(byteCount: 3 * mib, cache: cache)
        #expect(c.base != a.base && c.base != b.base)
        // Two slots: releasing three keeps the two largest.
        a.release(to: cache)
        b.release(to: cache)
        c.release(to: cache)
        let again = ScratchArena(byteCount: 8 * mib, cache: cache)
        #expect(again.base == large.base)
        let next = ScratchArena(byteCount: 2 * mib, cache: cache)
        #expect(next.base == small.base)
        let fresh = ScratchArena(byteCount: 2 * mib, cache: nil)
        #expect(fresh.base != next.base && fresh.base != again.base)
        for arena in [again, next] { arena.release(to: cache) }
        fresh.release(to: nil)
    }

    #if os(Linux)
    /// Pages of the first `bytes` bytes at `base` that are in memory (`mincore`).
    static func residentPages(_ base: UnsafeMutableRawPointer, _ bytes: Int) -> Int {
        let pages = (bytes + 4095) / 4096
        var vec = [UInt8](repeating: 0, count: pages)
        #expect(mincore(base, bytes, &vec) == 0)
        return vec.count { $0 & 1 != 0 }
    }

    @Test(arguments: [100_000, 3 << 20])
    func touchingBothPartsFaultsInEveryPage(bytes: Int) {
        let cache = ArenaCache()
        let arena = ScratchArena(byteCount: bytes, cache: cache)
        #expect(arena.fresh)
        let pages = (bytes + 4095) / 4096
        #expect(Self.residentPages(arena.base, bytes) == 0)
        arena.touch(part: 0, of: 2)
        #expect(Self.residentPages(arena.base, bytes) >= pages / 2)
        arena.touch(part: 1, of: 2)
        #expect(Self.residentPages(arena.base, bytes) == pages)
        arena.release(to: cache)
        // A large arena comes back from the cache with its pages in place.
        if bytes >= ScratchArena.hugePage {
            let again = ScratchArena(byteCount: bytes, cache: cache)
            #expect(!again.fresh && again.base == arena.base)
            #expect(Self.residentPages(again.base, bytes) == pages)
            again.release(to: cache)
        }
    }
    #endif

    @Test func smallAndOversizedArenasAreNotKept() {
        let cache = ArenaCache()
        let tiny = ScratchArena(byteCount: 4096, cache: cache)
        tiny.release(to: cache)
        #expect(cache.take(atLeast: 1) == nil)
        let huge = ScratchArena(byteCount: ArenaCache.limit, cache: cache)
        huge.release(to: cache)
        #expect(cache.take(atLeast: 1) == nil)
        // Just under the limit (with its alignment slack) is kept.
        let largest = ScratchArena(byteCount: ArenaCache.limit - 2 * ScratchArena.hugePage, cache: cache)
        largest.release(to: cache)
        let back = cache.take(atLeast: 1)
        #expect(back?.base == largest.base)
        back?.release(to: nil)
    }

    /// The decimation writes every scratch element before it reads it: an arena left full of
    /// garbage by an earlier use gives the same bytes as fresh memory. Garbage of three kinds:
    /// random words, and words of 1 and of 2 (a first pass's number and mark stamp).
    @Test(arguments: [nil, 1, 2] as [UInt32?])
    func decimationDoesNotDependOnReusedMemory(word: UInt32?) throws {
        let face = try DecimateFixtures.ictNeutral()
        func run(_ cache: ArenaCache) -> Mesh {
            var s = QuadricSimplifier(face, threads: 2, cache: cache)
            #expect(s.decimate(to: 5_000) == 5_000)
            return s.mesh()
        }
        let fresh = run(ArenaCache())
        let spoiled = ArenaCache()
        let garbage = ScratchArena(byteCount: 8 << 20, cache: spoiled)
        let words = garbage.byteCount / 4
        let p = garbage.base.bindMemory(to: UInt32.self, capacity: words)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<words {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            p[i] = word ?? UInt32(truncatingIfNeeded: state >> 32)
        }
        garbage.release(to: spoiled)
        let reused = run(spoiled)
        // It took the spoiled arena (the only one kept, large enough) and gave it back.
        let back = spoiled.take(atLeast: 1)
        #expect(back?.base == garbage.base)
        back?.release(to: nil)
        #expect(reused.stlBytes() == fresh.stlBytes())
        #expect(reused.objBytes() == fresh.objBytes())
    }
}
