// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "camrtp",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),

        .target(name: "MediaCore"),
        .target(name: "FrameProcessing", dependencies: ["MediaCore", "CYUV"]),
        .target(name: "Capture", dependencies: [
            "MediaCore", "FrameProcessing", "CV4L2",
            .product(name: "Logging", package: "swift-log"),
        ], resources: [.copy("V4L2/Fixtures")]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "FrameProcessing", "MediaCore", "CV4L2"]),
    ],
    swiftLanguageModes: [.v6]
)
