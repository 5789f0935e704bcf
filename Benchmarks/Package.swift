// swift-tools-version: 6.1
import PackageDescription

// In-process micro-benchmarks of the send path and the encoder. Built apart from the product so
// that the allocation counter never links into camrtp itself.
let package = Package(
    name: "camrtp-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the product reference holds whatever the checkout's directory is called.
        .package(name: "camrtp", path: ".."),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(name: "camrtp-bench", dependencies: [
            .product(name: "CameraRTP", package: "camrtp"),
            .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
