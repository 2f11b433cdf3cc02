#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FaceScanKit

struct HelperThreadTests {
    /// Slots the two sides of each run write: shared memory, read after the run returns.
    struct Slots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Int>
    }

    @Test func oneComputationHoldsTheHelperAtATime() {
        let helper = HelperThread()
        #expect(helper.acquire())
        #expect(!helper.acquire())
        helper.release()
        #expect(helper.acquire())
        helper.release()
    }

    @Test func eachSideRunsOnceAndIsDoneWhenRunReturns() {
        let helper = HelperThread()
        #expect(helper.acquire())
        defer { helper.release() }
        let runs = 20_000
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2 * runs)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 2 * runs)
        // Which thread ran side 1 of each run: 1 when not the caller.
        let elsewhere = UnsafeMutablePointer<Int>.allocate(capacity: runs)
        defer { elsewhere.deallocate() }
        elsewhere.initialize(repeating: 0, count: runs)
        let slots = Slots(base: counts), away = Slots(base: elsewhere)
        let caller = pthread_self()
        var lateOrMissing = 0
        for r in 0..<runs {
            helper.run { k in
                if k == 1 {
                    // Some work, so that a side run elsewhere finishes after the caller's.
                    var x = 0
                    for i in 0..<200 { x &+= i &* r }
                    away.base[r] = pthread_equal(pthread_self(), caller) != 0 ? 0 : 1
                    slots.base[2 * r + 1] += 1 + (x == -1 ? 1 : 0)
                } else {
                    slots.base[2 * r] += 1
                }
            }
            if counts[2 * r] != 1 || counts[2 * r + 1] != 1 { lateOrMissing += 1 }
        }
        #expect(lateOrMissing == 0)
        #expect((0..<(2 * runs)).allSatisfy { counts[$0] == 1 })
        // The helper took part (it spins for the next side while leased).
        #expect((0..<runs).contains { elsewhere[$0] == 1 })
    }
}
