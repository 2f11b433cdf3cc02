import Testing
@testable import FaceScanKit

/// The arena the decimation carves its scratch arrays from.
struct ScratchArenaTests {
    @Test(arguments: [1, 100, 3 << 20])
    func arraysAreAlignedZeroedDisjointAndWritable(bytes: Int) {
        // Three arrays sized like a decimation's: odd counts, mixed strides.
        let counts = (a: bytes / 16 + 3, b: bytes / 8 + 1, c: 7)
        let total = ScratchArena.bytes(SIMD3<Float>.self, counts.a) + ScratchArena.bytes(UInt8.self, counts.b)
            + ScratchArena.bytes(Double.self, counts.c)
        let arena = ScratchArena(byteCount: total)
        defer { arena.release() }
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
        // Fresh memory reads as zero; writes to one array leave the others alone.
        #expect((0..<counts.b).allSatisfy { b[$0] == 0 })
        for i in 0..<counts.a { a[i] = SIMD3(repeating: 1) }
        for i in 0..<counts.c { c[i] = -1 }
        #expect((0..<counts.b).allSatisfy { b[$0] == 0 })
        #expect(a[counts.a - 1] == SIMD3(repeating: 1) && c[0] == -1)
        if total >= ScratchArena.hugePage {
            #expect(Int(bitPattern: arena.base) % ScratchArena.hugePage == 0)
        }
    }
}
