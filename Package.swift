// swift-tools-version: 6.1
import PackageDescription

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
    name: "camrtp",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "camrtp", targets: ["camrtp"]),
        .library(name: "CameraRTP", targets: [
            "CameraRTP", "Capture", "Adaptation", "VP8", "RTP", "Transport", "SDP", "MediaCore", "FrameProcessing",
            "ICE", "STUN",
        ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // HMAC-SHA1 for STUN's MESSAGE-INTEGRITY; either major version builds.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CNice", pkgConfig: "nice", providers: [.apt(["libnice-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "MediaCore"),
        .target(name: "FrameProcessing", dependencies: ["MediaCore", "CYUV"]),
        .target(name: "Capture", dependencies: ["MediaCore", "FrameProcessing", "CV4L2", logging], resources: [.copy("V4L2/Fixtures")]),
        .target(name: "Adaptation", dependencies: ["MediaCore", "FrameProcessing", "Capture"]),
        .target(name: "VP8", dependencies: ["MediaCore", "CVPX", logging]),
        .target(name: "RTP", dependencies: ["MediaCore"]),
        .target(name: "Transport", dependencies: ["RTP", "CSRTP", logging]),
        .target(name: "SDP"),
        .target(name: "STUN", dependencies: ["RTP", "CZlib", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "ICE", dependencies: ["CNice", "MediaCore", logging]),
        .target(name: "CameraRTP", dependencies: [
            "MediaCore", "FrameProcessing", "Capture", "Adaptation", "VP8", "RTP", "Transport", "SDP", logging,
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        .executableTarget(name: "camrtp", dependencies: [
            "CameraRTP", "Capture", "Adaptation", "VP8", "RTP", "Transport", "SDP", "MediaCore", logging,
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(
            name: "EmbedSender", dependencies: ["CameraRTP", "Adaptation", "MediaCore", "Transport", "VP8"],
            path: "Examples/EmbedSender"),

        .target(name: "TestSupport", dependencies: ["Capture", "MediaCore", "RTP", "Transport"], path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "FrameProcessingTests", dependencies: ["FrameProcessing", "CYUV", "Capture", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "FrameProcessing", "MediaCore", "CV4L2"]),
        .testTarget(name: "SourceTests", dependencies: ["Capture", "TestSupport"]),
        .testTarget(name: "AdaptationTests", dependencies: ["Adaptation", "TestSupport"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "RTP", "TestSupport"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP", "TestSupport"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "STUN", "RTP", "TestSupport"]),
        .testTarget(name: "VP8Tests", dependencies: ["VP8", "CVPX", "Capture", "FrameProcessing", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Capture", "FrameProcessing", "MediaCore", "TestSupport"]),
        .testTarget(name: "CameraRTPTests", dependencies: [
            "CameraRTP", "Capture", "VP8", "MediaCore", "RTP", "Transport", "SDP", "TestSupport",
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
