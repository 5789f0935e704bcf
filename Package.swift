// swift-tools-version: 6.1
import PackageDescription

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
/// swift-system: `Errno` and `FileDescriptor`, the one vocabulary for system calls.
let systemPackage = Target.Dependency.product(name: "SystemPackage", package: "swift-system")

let package = Package(
    name: "camrtp",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "camrtp", targets: ["camrtp"]),
        .executable(name: "camrtp-webrtc", targets: ["camrtp-webrtc"]),
        .library(name: "CameraRTP", targets: [
            "CameraRTP", "Capture", "Adaptation", "VP8", "RTP", "RTCP", "Transport", "SDP", "MediaCore", "FrameProcessing", "DTLS",
            "ImageEncoding", "CongestionControl", "Pacing", "RTPSession", "RTPSender", "PlainRTP", "ICE", "ICEServers", "STUN",
            "StreamControl", "WebRTC", "WHIP", "Publishing", "ViewerFanout", "WHEP", "StreamMetrics", "HTTPAccess", "MetricsHTTP",
        ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // Its default trait, SubprocessFoundation, would link Foundation (about 9 MB of RSS): off.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2", traits: []),
        // WHIP's HTTP client (RFC 9725); it builds on FoundationEssentials, not Foundation.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // The WHEP endpoint's HTTP server. Its default traits (swift-configuration, full Foundation) are off.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // HTTPS for serve (through Hummingbird's TLS) and a private CA for publish's WHIP client.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        // The swift-metrics backend behind /metrics (Prometheus text exposition); no Foundation.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CNice", pkgConfig: "nice", providers: [.apt(["libnice-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "MediaCore", dependencies: ["CLinux", .product(name: "Histogram", package: "hdrhistogram-swift")]),
        .target(name: "FrameProcessing", dependencies: ["MediaCore", "CYUV"]),
        .target(name: "Capture", dependencies: ["MediaCore", "FrameProcessing", "CV4L2", logging, systemPackage]),
        // The in-process V4L2 device: tests and `--source fake-camera`, not the library product.
        // Its MJPEG fixture is compiled in (scripts/embed-mjpeg-fixture.py): a resource bundle would link Foundation.
        .target(name: "FakeV4L2", dependencies: ["Capture", "MediaCore", "FrameProcessing", "CV4L2", logging, systemPackage], exclude: ["Fixtures"]),
        .target(name: "ImageEncoding", dependencies: ["MediaCore", "FrameProcessing", "CTurboJPEG", "CPNG"]),
        .target(name: "Adaptation", dependencies: ["MediaCore", "FrameProcessing", "ImageEncoding"]),
        .target(name: "VP8", dependencies: ["MediaCore", "FrameProcessing", "CVPX", logging]),
        .target(name: "RTP", dependencies: ["MediaCore"]),
        .target(name: "RTCP", dependencies: ["RTP", "MediaCore"]),
        .target(name: "Transport", dependencies: ["MediaCore", "RTP", "CSRTP", "CLinux", logging, systemPackage]),
        .target(name: "SDP"),
        .target(name: "DTLS", dependencies: ["CSSL", "RTP", "Transport", logging]),
        .target(name: "CongestionControl"),
        .target(name: "Pacing", dependencies: ["CongestionControl", .product(name: "DequeModule", package: "swift-collections")]),
        // The sender's core: a pure state machine over the packet store, the streams, the pacer,
        // the congestion controller and the feedback policies; no I/O, no thread, no clock.
        .target(name: "RTPSession", dependencies: [
            "MediaCore", "RTP", "RTCP", "Pacing", "CongestionControl", logging,
            .product(name: "DequeModule", package: "swift-collections"),
        ]),
        // The I/O around a session: sockets or a transport, SRTP, the send thread.
        .target(name: "RTPSender", dependencies: [
            "MediaCore", "RTP", "RTPSession", "Transport", "CongestionControl", logging,
            .product(name: "DequeModule", package: "swift-collections"),
        ]),
        // A plain-RTP stream's plan: what `camrtp sdp` writes and `camrtp send` does.
        .target(name: "PlainRTP", dependencies: ["RTP", "RTPSender", "RTPSession", "SDP", "Transport"]),
        .target(name: "STUN", dependencies: ["RTP", "CZlib", "CSSL"]),
        // STUN/TURN server URIs (RFC 7064, RFC 7065), `--turn` URLs and the `Link: rel="ice-server"`
        // header (RFC 8288, RFC 9725 section 4.6): pure Swift, read by ICE, WHIP, WHEP and the CLI.
        .target(name: "ICEServers"),
        .target(name: "ICE", dependencies: ["CNice", "ICEServers", "MediaCore", logging]),
        // WebRTC: one ICE agent, one DTLS session and SRTP on one 5-tuple, under the RTP sender.
        .target(name: "WebRTC", dependencies: [
            "ICE", "ICEServers", "DTLS", "SDP", "RTP", "RTPSender", "RTPSession", "CongestionControl", "Transport", "MediaCore", logging,
        ]),
        // WHIP (RFC 9725): the HTTP exchange that publishes an offer and ends the session.
        .target(name: "WHIP", dependencies: [
            "ICEServers", logging, .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // A sender's figures as swift-metrics series, for a stream and for each viewer.
        .target(name: "StreamMetrics", dependencies: ["MediaCore", .product(name: "Metrics", package: "swift-metrics")]),
        // `publish` for as long as it runs: sessions one after another (ICE restart, then a new
        // POST with backoff), the sink the pipeline keeps across them, and the pure policy.
        .target(name: "Publishing", dependencies: [
            "WHIP", "WebRTC", "ICE", "ICEServers", "SDP", "MediaCore", "CongestionControl", logging,
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // One encoder, many viewers: fan-out of encoded frames and the encoder steering they share.
        .target(name: "ViewerFanout", dependencies: ["MediaCore", "StreamMetrics", .product(name: "Metrics", package: "swift-metrics")]),
        // Who may use an HTTP endpoint and how it is reached: bearer tokens (RFC 6750) with a
        // per-address failure limit, and TLS with certificates renewed while serving.
        .target(name: "HTTPAccess", dependencies: [
            "MediaCore", logging, .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // GET /metrics: the Prometheus text a renderer gives, behind a token; and a listener of its own.
        .target(name: "MetricsHTTP", dependencies: [
            "HTTPAccess", logging, .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // WHEP (viewers over HTTP): the endpoint, its session-factory seam, the viewer page, and
        // the factory that answers each viewer with a WebRTC sender fed by the fan-out.
        .target(name: "WHEP", dependencies: [
            "MediaCore", "ViewerFanout", "WebRTC", "SDP", "ICEServers", "HTTPAccess", "MetricsHTTP", "CongestionControl", logging,
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .target(name: "CameraRTP", dependencies: [
            "MediaCore", "Capture", "Adaptation", "VP8", "ImageEncoding", "StreamMetrics", logging,
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Live control of a running stream: commands, their JSON lines and the Unix-socket server.
        .target(name: "StreamControl", dependencies: ["CameraRTP", "Capture", "Adaptation", "ImageEncoding", "MediaCore"]),
        // The commands and options of both programs below.
        .target(name: "CamrtpCLI", dependencies: [
            "CameraRTP", "Capture", "FakeV4L2", "Adaptation", "VP8", "RTP", "RTPSession", "RTPSender", "PlainRTP", "CongestionControl", "Pacing",
            "Transport", "MediaCore", "ImageEncoding", "StreamControl", logging, .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Subprocess", package: "swift-subprocess"), systemPackage,
        ]),
        // camrtp: every command but those that need WebRTC or HTTP, which it hands to camrtp-webrtc,
        // so that a plain stream or a recording never loads libnice, OpenSSL or swift-nio.
        .executableTarget(name: "camrtp", dependencies: ["CamrtpCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // camrtp with WebRTC and HTTP: publish, serve and --metrics.
        .executableTarget(name: "camrtp-webrtc", dependencies: [
            "CamrtpCLI", "CameraRTP", "MediaCore", "RTP", "RTPSession", "SDP", "WebRTC", "WHIP", "DTLS", "ICE", "ICEServers", "Publishing", "ViewerFanout",
            "WHEP", "HTTPAccess", "MetricsHTTP", logging, .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .executableTarget(
            name: "EmbedSender", dependencies: ["CameraRTP", "Adaptation", "MediaCore", "PlainRTP", "RTPSender", "Transport", "VP8"],
            path: "Examples/EmbedSender"),
        // VP8 simulcast's CPU time and quality against one encoding and three separate ones
        // (Benchmarks/README.md); not a test.
        .executableTarget(
            name: "simulcast-bench", dependencies: ["VP8", "Capture", "FrameProcessing", "MediaCore", "TestSupport"],
            path: "Benchmarks/SimulcastBench"),

        .target(
            name: "TestSupport",
            dependencies: ["Capture", "MediaCore", "RTP", "Transport", "ImageEncoding", "CVPX", "CTurboJPEG", "CPNG", "CYUV", systemPackage],
            path: "Tests/TestSupport"),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore", "TestSupport"]),
        .testTarget(name: "FrameProcessingTests", dependencies: ["FrameProcessing", "MediaCore", "CYUV", "Capture", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "FakeV4L2", "FrameProcessing", "MediaCore", "CV4L2", "TestSupport", systemPackage]),
        .testTarget(name: "SourceTests", dependencies: ["Capture", "MediaCore", "TestSupport"]),
        .testTarget(name: "AdaptationTests", dependencies: ["Adaptation", "Capture", "FrameProcessing", "ImageEncoding", "MediaCore", "TestSupport"]),
        .testTarget(name: "ImageEncodingTests", dependencies: ["ImageEncoding", "Capture", "MediaCore", "TestSupport"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "MediaCore", "TestSupport"]),
        .testTarget(name: "RTCPTests", dependencies: ["RTCP", "RTP", "MediaCore", "TestSupport"]),
        .testTarget(name: "RTPSessionTests", dependencies: [
            "RTPSession", "RTP", "RTCP", "MediaCore", "CongestionControl", "Pacing", "Transport", "TestSupport",
        ]),
        .testTarget(name: "PlainRTPTests", dependencies: ["PlainRTP", "RTP", "RTPSession", "Transport"]),
        .testTarget(name: "RTPSenderTests", dependencies: [
            "RTPSender", "RTPSession", "RTP", "RTCP", "Transport", "MediaCore", "CongestionControl", "Pacing", "TestSupport",
        ]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "RTP", "TestSupport"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "RTP", "Transport", "MediaCore", "TestSupport", logging]),
        .testTarget(name: "SDPTests", dependencies: ["SDP", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ICEServersTests", dependencies: ["ICEServers"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "STUN", "RTP", "MediaCore", "TestSupport"]),
        .testTarget(name: "WebRTCTests", dependencies: [
            "WebRTC", "ICE", "SDP", "RTP", "RTCP", "RTPSender", "RTPSession", "Transport", "MediaCore", "Capture", "VP8", "TestSupport",
        ]),
        .testTarget(name: "WHIPTests", dependencies: ["WHIP", "ICEServers", "TestSupport"]),
        .testTarget(name: "PublishingTests", dependencies: ["Publishing", "WHIP", "TestSupport"]),
        .testTarget(name: "CongestionControlTests", dependencies: ["CongestionControl"]),
        .testTarget(name: "PacingTests", dependencies: ["Pacing", "CongestionControl"]),
        .testTarget(name: "VP8Tests", dependencies: ["VP8", "Capture", "FrameProcessing", "MediaCore", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "Capture", "FakeV4L2", "FrameProcessing", "MediaCore", "TestSupport", "CameraRTP", "Adaptation", "VP8", "ImageEncoding",
            "StreamControl", "RTCP",
        ]),
        .testTarget(name: "StreamControlTests", dependencies: [
            "RTPSender", "PlainRTP", "RTPSession", "StreamControl", "CameraRTP", "Capture", "FakeV4L2", "MediaCore", "RTP", "Transport", "VP8", "TestSupport",
        ]),
        .testTarget(name: "ViewerFanoutTests", dependencies: ["ViewerFanout", "MediaCore", "RTP", "TestSupport"]),
        .testTarget(name: "WHEPTests", dependencies: [
            "WHEP", "MediaCore", "SDP", "ICEServers", "HTTPAccess", "MetricsHTTP", logging, .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "HTTPAccessTests", dependencies: [
            "HTTPAccess", "TestSupport", .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        .testTarget(name: "CamrtpTests", dependencies: [
            "CamrtpCLI", "CameraRTP", "Capture", "CongestionControl", "FakeV4L2", "TestSupport", "VP8",
        ]),
        .testTarget(name: "CameraRTPTests", dependencies: [
            "CameraRTP", "Adaptation", "Capture", "ImageEncoding", "VP8", "MediaCore", "TestSupport", "StreamMetrics",
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
