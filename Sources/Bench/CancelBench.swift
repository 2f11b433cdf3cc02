import FaceScanKit
import Foundation
import Synchronization

/// How soon a cancelled job stops working (not only how soon the async call returns, which is at
/// once): `FaceScan.process` of each capture as a shell at the high preset in a task, cancelled
/// at nine points spread over its usual duration, the time from `cancel()` to the task's end.
func runCancelBench(samplesDir: String) throws {
    print(
        "== cancellation: a shell at the high preset cancelled at 10 %, 20 %, … 90 % of its run;"
            + " ms from cancel() to the task's end")
    for sample in ["ict-arkit", "ict-neutral", "mediapipe"] {
        let path = "\(samplesDir)/\(sample)/capture.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            print("\(sample): cannot read \(path)")
            continue
        }
        let bytes = [UInt8](data)
        let settings = ScanSettings(targetVertices: Quality.high.vertexCount, solid: SolidOptions())
        func run(cancelAfter delay: Double?) -> (total: Double, latency: Double, outcome: String) {
            let start = DispatchTime.now().uptimeNanoseconds
            let task = Task.detached { () -> String in
                do throws(FaceScanError) {
                    _ = try await FaceScan.process(capture: bytes, settings: settings)
                    return "finished"
                } catch .cancelled {
                    return "cancelled"
                } catch {
                    return "failed: \(error)"
                }
            }
            var cancelAt = start
            if let delay {
                usleep(useconds_t(delay * 1e6))
                cancelAt = DispatchTime.now().uptimeNanoseconds
                task.cancel()
            }
            let done = Waiter.wait(task)
            let end = DispatchTime.now().uptimeNanoseconds
            return (Double(end - start) / 1e6, Double(end - cancelAt) / 1e6, done)
        }
        let full = (0..<3).map { _ in run(cancelAfter: nil).total }.min()!
        var latencies: [Double] = []
        var stopped = 0
        for k in 1...9 {
            let r = run(cancelAfter: full / 1000 * Double(k) / 10)
            latencies.append(r.latency)
            if r.outcome == "cancelled" {
                stopped += 1
            } else if r.outcome != "finished" {
                print("  cancelled at \(k * 10) %: \(r.outcome)")
            }
        }
        let sorted = latencies.sorted()
        print(
            String(
                format: "%@: run %.0f ms; after cancel() median %.1f ms, largest %.1f ms"
                    + " (%d of 9 ended .cancelled, the others had finished)",
                sample, full, sorted[4], sorted[8], stopped))
    }
}

/// Blocks the calling (non-async) thread until `task` ends.
enum Waiter {
    static func wait(_ task: Task<String, Never>) -> String {
        let semaphore = DispatchSemaphore(value: 0)
        let box = Mutex("")
        Task.detached {
            let value = await task.value
            box.withLock { $0 = value }
            semaphore.signal()
        }
        semaphore.wait()
        return box.withLock { $0 }
    }
}
