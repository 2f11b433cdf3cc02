// swift-tools-version:6.1
import PackageDescription

// Optional C libraries, each behind a trait, on by default where the system provides them
// (Linux: libpng, assimp and lib3mf from the distribution's packages) and off elsewhere (an Apple
// platform ships none of them, so a package depending on FaceScanKit there builds with the
// default traits). The manifest is evaluated on the building machine: a Linux host gets all three.
// A consumer that wants none of them depends with `traits: []`: FaceScanKit then links no libpng, assimp or lib3mf; PNG is
// still written (FaceScanKit's own encoder, its checksums from the system zlib, linked whatever
// the traits: every Linux and Apple platform has it), and the formats of a missing library throw
// `FaceScanError.unavailable`. SwiftPM passes each enabled trait to the compiler as a
// compilation condition (`#if PNG`, `#if Assimp`, `#if Lib3MF`).
#if os(Linux)
let defaultTraits: Set<String> = ["PNG", "Assimp", "Lib3MF", "JPEG"]
#else
let defaultTraits: Set<String> = []
#endif

let package = Package(
    name: "facescan",
    // Mutex and Atomic (Synchronization) need macOS 15 / iOS 18. (The hot loops' spans come from
    // `flat` / `flatMut`, FaceScanCore's Storage/UnsafeStorage.swift: `Array.span` needs 26.)
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "FaceScanKit", targets: ["FaceScanKit"]),
        .executable(name: "facescan", targets: ["facescan"]),
    ],
    traits: [
        .trait(
            name: "PNG",
            description:
                "PNG reading through libpng. Off: decoding throws FaceScanError.unavailable; PNG is written by FaceScanKit whatever the traits."
        ),
        .trait(
            name: "JPEG",
            description:
                "JPEG reading through libturbojpeg (a capture's camera images). Off: a capture's JPEG images throw FaceScanError.unavailable."
        ),
        .trait(
            name: "Assimp",
            description:
                "Mesh formats through libassimp (PLY, OFF, DAE, FBX, X3D, X, 3DS, …). Off: those formats throw FaceScanError.unavailable."
        ),
        .trait(
            name: "Lib3MF",
            description:
                "3MF reading and writing through lib3mf. Off: 3MF throws FaceScanError.unavailable."
        ),
        .default(enabledTraits: defaultTraits),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPNG", path: "Sources/CLibPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // libjpeg-turbo's TurboJPEG API (apt: libturbojpeg0-dev): a capture's JPEG camera images.
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        // assimp (apt: libassimp-dev for the headers, found in the default include path): opened
        // with dlopen on the first assimp call (Sources/CAssimp/lazy.c), not linked, so a run
        // without an assimp format does not load libassimp, libdraco and libminizip at start-up.
        .target(name: "CAssimp", dependencies: ["CLazyLoad"], path: "Sources/CAssimp"),
        // lib3mf (apt: lib3mf; lib3mf-dev not needed): opened with dlopen on the first 3MF call
        // (Sources/CLib3MF/lazy.c), not linked, so a process that never touches 3MF does not load
        // lib3MF, libzip and libcrypto at start-up. The module's own header (shim.h) states the
        // C interface it uses.
        .target(name: "CLib3MF", dependencies: ["CLazyLoad"], path: "Sources/CLib3MF"),
        // The dlopen loader CAssimp and CLib3MF share (open on first call, resolve every function
        // once, the same error words for a missing library or function).
        .target(
            name: "CLazyLoad", path: "Sources/CLazyLoad",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // zlib: on every Linux distribution and in every Apple SDK, so linked whatever the traits
        // (the PNG writer's CRC-32 and Adler-32; the tests inflate with it). No pkgConfig: the header is in the
        // default include path (an Apple SDK has no zlib.pc).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // Vector kernels (AVX2 or SSSE3, chosen at run time; scalar fallback in Swift elsewhere), and the
        // thumbnail's resolve loop in portable C (StripRenderer.resolve).
        .target(name: "CSIMD", path: "Sources/CSIMD"),
        // The library's stages, one target each, each depending on the targets whose names it uses
        // and re-exporting none of them (docs/ARCHITECTURE.md, "Modules"): Core at the root, the
        // capture side (Capture, Gate) and the mesh side (Smooth, Decimate, Measure, Solid, Render,
        // Export, Interop) beside each other, so independent stages compile side by side and a change
        // rebuilds only the targets that use it.
        .target(
            name: "FaceScanCore", dependencies: ["CSIMD"],
            // `@_lifetime` of the span accessors (Storage/UnsafeStorage.swift).
            swiftSettings: [.enableExperimentalFeature("Lifetimes")]),
        .target(name: "FaceScanCapture", dependencies: ["FaceScanCore", "CSIMD"]),
        .target(name: "FaceScanGate", dependencies: ["FaceScanCore", "FaceScanCapture"]),
        .target(name: "FaceScanAccumulate", dependencies: ["FaceScanCore"]),
        .target(name: "FaceScanSmooth", dependencies: ["FaceScanCore", "CSIMD"]),
        .target(name: "FaceScanDecimate", dependencies: ["FaceScanCore", "CSIMD"]),
        .target(name: "FaceScanMeasure", dependencies: ["FaceScanCore"]),
        .target(name: "FaceScanSolid", dependencies: ["FaceScanCore", "FaceScanDecimate", "FaceScanMeasure"]),
        .target(name: "FaceScanRender", dependencies: ["FaceScanCore", "CSIMD"]),
        // The colour of the face: the camera's images fused into one texture.
        .target(name: "FaceScanTexture", dependencies: ["FaceScanCore", "FaceScanCapture", "FaceScanRender"]),
        .target(name: "FaceScanExport", dependencies: ["FaceScanCore"]),
        // The C adapters: the only target that imports the system C libraries.
        .target(
            name: "FaceScanInterop",
            dependencies: [
                "FaceScanCore", "FaceScanCapture", "FaceScanExport", "FaceScanRender", "FaceScanTexture",
                .target(name: "CLibPNG", condition: .when(traits: ["PNG"])),
                .target(name: "CTurboJPEG", condition: .when(traits: ["JPEG"])),
                .target(name: "CAssimp", condition: .when(traits: ["Assimp"])),
                .target(name: "CLib3MF", condition: .when(traits: ["Lib3MF"])),
                "CZlib",
            ]),
        // The pipeline and the umbrella: the library's product, the one target that re-exports
        // (Sources/FaceScanKit/Exports.swift), so `import FaceScanKit` gives the whole public API.
        .target(
            name: "FaceScanKit",
            dependencies: [
                "FaceScanCore", "FaceScanCapture", "FaceScanGate", "FaceScanAccumulate", "FaceScanSmooth",
                "FaceScanDecimate", "FaceScanMeasure", "FaceScanSolid", "FaceScanRender", "FaceScanTexture",
                "FaceScanExport", "FaceScanInterop",
            ]),
        // The command line's machinery (batch runs, the regression check, the HTML report): used
        // by the facescan command and the tests, not part of the embeddable library.
        .target(name: "FacescanTools", dependencies: ["FaceScanKit", "CProcess"]),
        // The command's own process settings (the allocator's), not part of the library.
        .target(name: "CProcess", path: "Sources/CProcess"),
        .executableTarget(
            name: "facescan",
            dependencies: [
                "FaceScanKit", "FacescanTools", "CProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "facescan-bench", dependencies: ["FaceScanKit"], path: "Sources/Bench"),
        // libFuzzer targets (scripts/fuzz-reader builds them with -sanitize=fuzzer; plain builds replay files).
        .executableTarget(
            name: "facescan-fuzz", dependencies: ["FaceScanKit"], path: "Tests/Fuzz",
            exclude: ["corpus", "json.dict"]),
        // The library's tests reach into every layer (`@testable import` of the layer they test).
        .testTarget(
            name: "FaceScanKitTests",
            dependencies: [
                "FaceScanCore", "FaceScanCapture", "FaceScanGate", "FaceScanAccumulate", "FaceScanSmooth",
                "FaceScanDecimate", "FaceScanMeasure", "FaceScanSolid", "FaceScanRender", "FaceScanTexture",
                "FaceScanExport", "FaceScanInterop", "FaceScanKit", "FacescanTools", "CZlib",
            ], exclude: ["Fixtures"]),
        .testTarget(
            name: "FacescanCLITests", dependencies: ["FaceScanKit", "FacescanTools", "facescan"],
            exclude: ["BadInputs", "BadMeshes"]),
    ],
    swiftLanguageModes: [.v6]
)
