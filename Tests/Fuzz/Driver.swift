// The entry point. Built for fuzzing (scripts/fuzz-reader: -sanitize=fuzzer, FACESCAN_FUZZ
// defined), main hands over to libFuzzer's driver with the target FACESCAN_FUZZ_TARGET names.
// A plain build (`swift build`) runs a target on files instead, e.g. to replay a crash:
// `facescan-fuzz TARGET FILE...`.
#if canImport(Glibc)
import Glibc
#endif

#if FACESCAN_FUZZ
/// libFuzzer's driver for programs with their own main (LLVM ≥ 11).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

@main
struct FuzzDriver {
    static func main() {
        #if FACESCAN_FUZZ
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        _ = selectedTarget
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        #else
        replay()
        #endif
    }

    static func replay() {
        let args = CommandLine.arguments.dropFirst()
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            print(
                "usage: facescan-fuzz TARGET FILE...   (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
            exit(2)
        }
        for path in args.dropFirst() {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                print("\(path): cannot open")
                exit(1)
            }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            close(fd)
            bytes.withUnsafeBufferPointer { target.run($0) }
            print("\(path): ok")
        }
    }
}
