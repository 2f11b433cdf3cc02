import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Child processes started with posix_spawn, not Foundation's `Process`: the one place the
/// end-to-end tests spawn a child they signal, keep running or put on a terminal.
///
/// - The child starts with no signal blocked and every signal's action at its default, as a
///   shell would start it (Foundation's `Process` passes on the calling thread's signal mask, and
///   the test runner's threads block SIGINT and SIGTERM), so SIGTERM or ^C stops it.
/// - Every descriptor above 2 is closed in the child (glibc ≥ 2.34), so a daemon never holds
///   another test's pipe open (Foundation's exit monitoring deadlocked here with long-running
///   daemons).
enum Spawn {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias Chdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    // glibc ≥ 2.34 and ≥ 2.29; not exported by Swift's Glibc module.
    private static let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }
    private static let chdir = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: Chdir.self)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Where one of the child's standard streams goes.
    enum Stream {
        /// /dev/null.
        case null
        /// A copy of this descriptor (of the parent, or one the child has already set up: 0).
        case descriptor(Int32)
        /// The file at this path, opened with these flags (created with mode 0644).
        case file(String, flags: Int32)
    }

    /// Starts `exe` with `args`; standard input, output and error as given (in that order, so
    /// `.descriptor(0)` for output is the child's own standard input). `newSession`: the child
    /// leads a session of its own, so the terminal it opens first becomes its controlling one.
    /// `closing`: parent descriptors closed in the child (where the C library cannot close all).
    static func start(
        _ exe: String, _ args: [String], cwd: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null,
        newSession: Bool = false, closing: [Int32] = []
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let from): posix_spawn_file_actions_adddup2(&actions, from, fd)
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o644)
            }
        }
        for fd in closing { posix_spawn_file_actions_addclose(&actions, fd) }
        if let closeFrom { _ = closeFrom(&actions, 3) }
        if let cwd {
            guard let chdir else {
                throw Failure(description: "posix_spawn_file_actions_addchdir_np is missing (glibc < 2.29)")
            }
            _ = chdir(&actions, cwd)
        }
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &all)
        // POSIX_SPAWN_SETSID (0x80; not in Swift's Glibc module): a new session.
        let setsid: Int32 = newSession ? 0x80 : 0
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, exe, &actions, &attr, argv, envp)
        guard rc == 0 else { throw Failure(description: "cannot start \(exe): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid`; its exit status (128 + signal when killed).
    static func wait(_ pid: pid_t) -> Int32 {
        exitStatus(rawWait(pid))
    }

    /// Waits for `pid`; its raw wait status (WIFSIGNALED and WTERMSIG are `status & 0x7f`).
    static func rawWait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// A raw wait status as a shell reports it: the exit code, or 128 + the signal.
    static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs `exe` to the end; its exit status and standard output and error together.
    static func run(
        _ exe: String, _ args: [String], cwd: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (status: Int32, output: String) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            pid = try start(
                exe, args, cwd: cwd, environment: environment, stdout: .descriptor(fds[1]),
                stderr: .descriptor(fds[1]))
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n > 0 { out += buf[0..<n] } else if n == 0 || errno != EINTR { break }
        }
        close(fds[0])
        return (wait(pid), String(decoding: out, as: UTF8.self))
    }
}
