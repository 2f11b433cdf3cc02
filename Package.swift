// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "facescan",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "FaceScanKit", targets: ["FaceScanKit"]),
        .executable(name: "facescan", targets: ["facescan"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPNG", path: "Sources/CLibPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CAssimp", path: "Sources/CAssimp", pkgConfig: "assimp",
            providers: [.apt(["libassimp-dev"]), .brew(["assimp"])]),
        // lib3mf (apt: lib3mf-dev). No pkgConfig: lib3MF.pc names libzip and zlib for static
        // linking, which would need libzip-dev; the shared lib3MF brings them itself, and the
        // module's own header (shim.h) needs no include path.
        .systemLibrary(name: "CLib3MF", path: "Sources/CLib3MF"),
        // Vector kernels (AVX2 or SSSE3, chosen at run time; scalar fallback in Swift elsewhere).
        .target(name: "CSIMD", path: "Sources/CSIMD"),
        .target(
            name: "FaceScanKit",
            dependencies: ["CLibPNG", "CAssimp", "CLib3MF", "CSIMD"]),
        .executableTarget(
            name: "facescan",
            dependencies: [
                "FaceScanKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "facescan-bench", dependencies: ["FaceScanKit"], path: "Sources/Bench"),
        // libFuzzer targets (scripts/fuzz-reader builds them with -sanitize=fuzzer; plain builds replay files).
        .executableTarget(name: "facescan-fuzz", dependencies: ["FaceScanKit"], path: "Tests/Fuzz", exclude: ["corpus", "json.dict"]),
        .testTarget(name: "FaceScanKitTests", dependencies: ["FaceScanKit"], exclude: ["Fixtures"]),
        .testTarget(name: "FacescanCLITests", dependencies: ["FaceScanKit", "facescan"], exclude: ["BadInputs", "BadMeshes"]),
    ],
    swiftLanguageModes: [.v6]
)
