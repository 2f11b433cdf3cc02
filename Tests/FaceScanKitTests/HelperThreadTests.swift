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

    @Test func aStalledHelperIsLeftOutForAWhile() {
        let helper = HelperThread()
        let caller = pthread_self()
        #expect(helper.acquire())
        #expect(!helper.runsAlone)
        // Side 1 stalls for 3 ms whenever the helper runs it: the caller waits far longer than
        // its own side took.
        var tries = 0
        while !helper.runsAlone && tries < 200 {
            helper.run { k in
                if k == 1 {
                    if pthread_equal(pthread_self(), caller) == 0 { usleep(3_000) }
                } else {
                    // Long enough for the helper to take side 1 meanwhile.
                    usleep(50)
                }
            }
            tries += 1
        }
        #expect(helper.runsAlone)
        // From now on both sides run on the calling thread, in order.
        let order = Slots(base: UnsafeMutablePointer<Int>.allocate(capacity: 4))
        defer { order.base.deallocate() }
        order.base.initialize(repeating: -1, count: 4)
        let next = Slots(base: UnsafeMutablePointer<Int>.allocate(capacity: 1))
        defer { next.base.deallocate() }
        next.base.pointee = 0
        helper.run { k in
            order.base[2 * k] = pthread_equal(pthread_self(), caller) != 0 ? 1 : 0
            order.base[2 * k + 1] = next.base.pointee
            next.base.pointee += 1
        }
        #expect(order.base[0] == 1 && order.base[2] == 1)
        #expect(order.base[1] == 0 && order.base[3] == 1)
        helper.release()
        // A lease soon after the stall runs alone too; one after the memory of it has passed does not.
        #expect(helper.acquire())
        #expect(helper.runsAlone)
        helper.release()
        usleep(UInt32(HelperThread.stallMemoryNanoseconds / 1_000) + 10_000)
        #expect(helper.acquire())
        #expect(!helper.runsAlone)
        helper.release()
    }
}
