#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a POSIX thread of its own (not one of Dispatch's pool, so it never waits for a busy
/// pool) that runs `body` and ends when `body` returns; nil when the system cannot start one. The
/// caller joins or detaches it.
func startPosixThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Darwin)
    var tid: pthread_t?
    #else
    var tid = pthread_t()
    #endif
    let rc = pthread_create(&tid, nil, { context in
        #if canImport(Darwin)
        let box = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
        #else
        let box = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
        #endif
        box.body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return nil
    }
    return tid
}

/// The body of a thread started by ``startPosixThread(_:)``, passed through `pthread_create`'s
/// context pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
