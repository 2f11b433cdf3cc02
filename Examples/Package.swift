// swift-tools-version:6.1
import PackageDescription

// The code of FaceScanKit's documentation articles, built and run by `make examples` (part of
// `make test`): the articles show these files, so what they teach compiles and works.
let package = Package(
    name: "FaceScanExamples",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "facescan", path: "..")
    ],
    targets: [
        // "Process a capture file": capture bytes in, mesh and files out.
        .executableTarget(
            name: "process-capture",
            dependencies: [.product(name: "FaceScanKit", package: "facescan")],
            path: "Sources/ProcessCapture"),
        // "Live scan from frames an app receives": one frame at a time, a verdict for each.
        .executableTarget(
            name: "live-scan", dependencies: [.product(name: "FaceScanKit", package: "facescan")],
            path: "Sources/LiveScan"),
    ],
    swiftLanguageModes: [.v6]
)
