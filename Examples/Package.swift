// swift-tools-version:6.1
import PackageDescription

// The code of FaceScanKit's documentation articles, built and run by `make examples` (part of
// `make test`): the articles show these files, so what they teach compiles and works. It depends
// on this one by path with `traits: []`, as an app that wants none of the optional C libraries
// (libpng, assimp, lib3mf) would: the one build serves the articles' programs and `consumer`,
// which ConsumerBuildTests runs and checks links none of those libraries.
let package = Package(
    name: "FaceScanExamples",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "facescan", path: "..", traits: [])
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
        // The whole public API without the optional libraries: one line per check.
        .executableTarget(
            name: "consumer", dependencies: [.product(name: "FaceScanKit", package: "facescan")],
            path: "Sources/Consumer"),
    ],
    swiftLanguageModes: [.v6]
)
