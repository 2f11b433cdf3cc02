import FaceScanCore
import Foundation
import Synchronization
import Testing

/// The one thread hand-off (`HandOff`): values in order, at most `capacity` waiting, the
/// producer's end (finish, cancel) and the consumer's stop reach the other side, also when it is
/// blocked; and `Parallel.Pair`, built on it, runs side 1 on its own thread at every step.
@Suite("Hand-off")
struct HandOffTests {
    /// Polls `condition` every millisecond until it holds or `seconds` pass; whether it held.
    private func eventually(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    @Test func valuesComeOutInTheOrderTheyWentIn() {
        let queue = HandOff<Int>(capacity: 3)
        let n = 20_000
        let producer = Parallel.Thread {
            for i in 0..<n { queue.push(i) }
            queue.finish()
        }
        #expect(producer != nil)
        var received: [Int] = []
        while let v = queue.pop() { received.append(v) }
        producer?.join()
        #expect(received.count == n)
        #expect(received == Array(0..<n))
        #expect(queue.pop() == nil)  // still nil after the end
    }

    @Test func atMostCapacityValuesWait() {
        let queue = HandOff<Int>(capacity: 2)
        let pushed = Atomic<Int>(0)
        let producer = Parallel.Thread {
            for i in 0..<5 {
                queue.push(i)
                pushed.add(1, ordering: .sequentiallyConsistent)
            }
            queue.finish()
        }
        #expect(producer != nil)
        // Two fit; the third push blocks until the consumer takes one.
        #expect(eventually { pushed.load(ordering: .sequentiallyConsistent) == 2 })
        usleep(50_000)
        #expect(pushed.load(ordering: .sequentiallyConsistent) == 2)
        #expect(queue.pop() == 0)
        #expect(eventually { pushed.load(ordering: .sequentiallyConsistent) == 3 })
        usleep(50_000)
        #expect(pushed.load(ordering: .sequentiallyConsistent) == 3)
        var rest: [Int] = []
        while let v = queue.pop() { rest.append(v) }
        producer?.join()
        #expect(rest == [1, 2, 3, 4])
        #expect(pushed.load(ordering: .sequentiallyConsistent) == 5)
    }

    /// A producer that fails part-way cancels: the consumer, blocked or not, gets nil at once,
    /// not the values still queued, and those are released.
    @Test func aProducersCancelReachesTheConsumer() {
        let queue = HandOff<Payload>(capacity: 4)
        weak var dropped: Payload?
        do {
            let a = Payload(1), b = Payload(2)
            dropped = b
            queue.push(a)
            queue.push(b)
        }
        #expect(queue.pop()?.value == 1)
        #expect(dropped != nil)  // queued, not yet taken
        queue.cancel()
        #expect(queue.pop() == nil)
        #expect(dropped == nil)  // the cancel let go of it

        // A consumer blocked on an empty queue wakes on the cancel.
        let idle = HandOff<Int>(capacity: 1)
        let woke = Atomic<Int>(0)
        let consumer = Parallel.Thread {
            woke.store(idle.pop() == nil ? 1 : 2, ordering: .sequentiallyConsistent)
        }
        #expect(consumer != nil)
        usleep(20_000)
        #expect(woke.load(ordering: .sequentiallyConsistent) == 0)  // still waiting
        idle.cancel()
        #expect(eventually { woke.load(ordering: .sequentiallyConsistent) != 0 })
        consumer?.join()
        #expect(woke.load(ordering: .sequentiallyConsistent) == 1)
    }

    /// Errors travel as values, in their place in the stream; a finish wakes a waiting consumer
    /// once the values before it are taken.
    @Test func aProducersErrorArrivesInItsPlace() {
        struct Bad: Error, Equatable { let at: Int }
        let queue = HandOff<Result<Int, Bad>>(capacity: 2)
        let producer = Parallel.Thread {
            for i in 0..<6 { queue.push(i == 4 ? .failure(Bad(at: i)) : .success(i)) }
            queue.finish()
        }
        #expect(producer != nil)
        var got: [Result<Int, Bad>] = []
        while let r = queue.pop() { got.append(r) }
        producer?.join()
        #expect(got == [.success(0), .success(1), .success(2), .success(3), .failure(Bad(at: 4)), .success(5)])
    }

    /// A consumer that stops: the producer's push, blocked on a full queue, returns false, and
    /// so does every later one, without waiting.
    @Test func aConsumersStopReachesTheProducer() {
        let queue = HandOff<Int>(capacity: 1)
        let outcomes = Mutex<[Bool]>([])
        let producer = Parallel.Thread {
            for i in 0..<3 {
                let ok = queue.push(i)
                outcomes.withLock { $0.append(ok) }
            }
        }
        #expect(producer != nil)
        #expect(eventually { outcomes.withLock { $0.count } == 1 })
        usleep(20_000)
        #expect(outcomes.withLock { $0 } == [true])  // the second push waits for room
        queue.stop()
        producer?.join()
        #expect(outcomes.withLock { $0 } == [true, false, false])
    }

    /// The pair has no timing-based path: side 1 runs on the pair's one thread at every step,
    /// side 0 on the caller's, however short the step.
    @Test func aPairRunsSideOneOnItsThreadEveryStep() {
        let caller = pthread_self()
        let seen = Mutex<(zeroHere: Int, oneElsewhere: Int, oneThreads: Set<UInt>)>((0, 0, []))
        do {
            let pair = Parallel.Pair()
            for _ in 0..<2_000 {
                pair.run { side in
                    let me = pthread_self()
                    seen.withLock { s in
                        if side == 0 {
                            if pthread_equal(me, caller) != 0 { s.zeroHere += 1 }
                        } else {
                            if pthread_equal(me, caller) == 0 { s.oneElsewhere += 1 }
                            s.oneThreads.insert(UInt(bitPattern: Int(bitPattern: me)))
                        }
                    }
                }
            }
        }
        let s = seen.withLock { $0 }
        #expect(s.zeroHere == 2_000)
        #expect(s.oneElsewhere == 2_000)
        #expect(s.oneThreads.count == 1)
    }
}

/// A value whose release a test can see (a weak reference goes nil).
private final class Payload: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}
