// The C library. Each file that calls it imports it itself (the same `#if` as here); nothing
// re-exports it, so an app that imports FaceScanKit does not get the C library's names. What
// differs between the C libraries is wrapped below; anything Linux-only sits behind `#if os(Linux)`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("FaceScanKit needs a POSIX C library (Glibc, Musl or Darwin)")
#endif

// At file scope no method hides the C library's free functions: the import above picks the
// library once, and the wrappers below call its `read`, `write` and `exit` by their own names.

/// `read(2)`, under a name a type's own `read` method cannot hide.
@inline(__always)
package func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// `write(2)`, under a name a type's own `write` method cannot hide.
@inline(__always)
package func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// `exit(3)`, under a name a type's own `exit` cannot hide.
package func posixExit(_ code: Int32) -> Never {
    exit(code)
}

extension sigaction {
    /// The plain handler (`sa_handler`), wherever the C library keeps it (glibc: in the union
    /// `__sigaction_handler`; musl: `__sa_handler`; Darwin: `__sigaction_u`).
    package var handler: (@convention(c) (Int32) -> Void)? {
        get {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler
            #elseif canImport(Musl)
            __sa_handler.sa_handler
            #else
            __sigaction_u.__sa_handler
            #endif
        }
        set {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler = newValue
            #elseif canImport(Musl)
            __sa_handler.sa_handler = newValue
            #else
            __sigaction_u.__sa_handler = newValue
            #endif
        }
    }
}

extension stat {
    /// The last modification time (Linux: `st_mtim`; Darwin: `st_mtimespec`).
    package var modificationTime: timespec {
        #if os(Linux)
        st_mtim
        #else
        st_mtimespec
        #endif
    }
}

/// The directory whose entry `N` opens the process's file descriptor `N` again.
package let fileDescriptorDirectory: String = {
    #if os(Linux)
    "/proc/self/fd"
    #else
    "/dev/fd"
    #endif
}()

/// The names in `directory` (`.` and `..` left out, in the order the system lists them); nil when
/// it cannot be listed (`errno` says why).
package func directoryEntries(_ directory: String) -> [String]? {
    guard let d = opendir(directory) else { return nil }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        // In place: glibc's dirent records are d_reclen long, often shorter than the 256-byte
        // d_name a copy of the field would read (ASan: heap-buffer-overflow).
        let name = withUnsafeMutablePointer(to: &e.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
        }
        if name != "." && name != ".." { out.append(name) }
    }
    return out
}
