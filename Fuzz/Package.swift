// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the parsers of untrusted bytes, built apart from the product so that
// camrtp never links libFuzzer; scripts/fuzz.sh passes -sanitize=fuzzer,address.
//
// Each name is an executable `fuzz-<name>` with its main.swift in Sources/fuzz-<name> and its
// seeds in Corpus/<name>. Every target sees all of the library's modules through the CameraRTP
// product.
let fuzzTargets = ["bearer", "dtls", "fec", "iceservers", "mjpeg", "rtcp", "rtp", "sdp", "sdpfrag", "stun", "y4m"]

let package = Package(
    name: "camrtp-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the product reference holds whatever the checkout's directory is called.
        .package(name: "camrtp", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer", .product(name: "CameraRTP", package: "camrtp")]),
    ] + fuzzTargets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport", .product(name: "CameraRTP", package: "camrtp")])
    },
    swiftLanguageModes: [.v6]
)
