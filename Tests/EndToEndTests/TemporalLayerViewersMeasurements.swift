import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd.TemporalLayerViewersEndToEndTests {
    /// Figures, not checks (CAMRTP_LAYERS_MEASURE=1): a clean Chromium viewer of a 640x480 stream,
    /// alone and beside a second one behind the 400 kbit/s policer, with three temporal layers and
    /// with one (where the encoder follows the slow viewer); and of a 1280x720 stream in three
    /// simulcast encodings (`CAMRTP_LAYERS_MEASURE=simulcast` for these alone), the slow viewer
    /// behind the policer and then behind a 400 kbit/s bottleneck with a 200 ms queue. Each viewer's
    /// decoded frame rate and bitrate over 20 s, and Chromium's own inbound-rtp
    /// framesPerSecond, freezeCount and totalFreezesDuration over the same window, after 10 s
    /// of settling (`CAMRTP_LAYERS_SETTLE` seconds if set).
    @Test(.enabled(if: ["1", "simulcast"].contains(ProcessInfo.processInfo.environment["CAMRTP_LAYERS_MEASURE"])))
    func measureACleanViewerBesideASlowOne() async throws {
        let layered = ["testsrc:640x480@30", "--temporal-layers"]
        let simulcast = ["testsrc:1280x720@30", "--max-bitrate", "4000", "--simulcast"]
        var cases = [(simulcast, "3", SlowPath.none), (simulcast, "3", .policer), (simulcast, "3", .queue)]
        if ProcessInfo.processInfo.environment["CAMRTP_LAYERS_MEASURE"] == "1" {
            cases = [(layered, "3", .none), (layered, "3", .policer), (layered, "1", .policer)] + cases
        }
        for (options, count, slowPath) in cases {
            let network = try RelayedNetwork(dropsDirectUDP: false)
            defer { network.remove() }
            let withSlowViewer = slowPath != .none
            if slowPath == .queue {
                try network.shapeToRight(kilobitsPerSecond: 400, queueMs: 200)
            } else {
                try network.limitUDPToRight(kilobytesPerSecond: 50, burstKilobytes: 30)
            }
            let server = try network.start(in: network.left, [
                CamrtpBinary.path, "serve", "--source", options[0], "--http", "\(RelayedNetwork.leftAddress):\(Self.httpPort)",
                "--local-address", RelayedNetwork.leftAddress, "--no-auth",
            ] + options.dropFirst() + [count])
            defer {
                server.interrupt()
                _ = server.wait(timeout: 10)
            }
            try #require(server.waitForLine(containing: "serving", in: .stderr) != nil, "\(server.output(.stderr))")
            var viewers = [("clean", try viewer(in: network.left, network: network))]
            defer { for (_, viewer) in viewers { stop(viewer) } }
            try #require(Self.resource(viewers[0].1, decoded: 30) != nil)
            if withSlowViewer {
                viewers.append(("slow", try viewer(in: network.right, network: network)))
                try #require(Self.resource(viewers[1].1, decoded: 10) != nil)
            }
            try await Task.sleep(for: .seconds(Self.settleSeconds))
            let startNs = MonotonicClock.nowNs()
            try await Task.sleep(for: .seconds(20))
            for (name, viewer) in viewers {
                // The page's figures in the window, each with the time Chromium's own stats were read.
                let window = EndToEnd.WHEPServeEndToEndTests.events(viewer.output(.stdout)).compactMap { event -> (Double, [String: Any])? in
                    guard let t = event["t"] as? Double, t >= Double(startNs) / 1e9, let stats = Self.stats(event) else { return nil }
                    return (t, stats)
                }
                guard let first = window.first, let last = window.last, last.0 > first.0 else { continue }
                let span = last.0 - first.0
                let mean = { (key: String) in window.map { Self.number($0.1[key]) }.reduce(0, +) / Double(window.count) }
                let delta = { (key: String) in Self.number(last.1[key]) - Self.number(first.1[key]) }
                let fps = DecimalText.fixed(delta("framesDecoded") / span, decimals: 1)
                let kbps = DecimalText.fixed(mean("bitrateKbps"), decimals: 0)
                let chromiumFPS = DecimalText.fixed(mean("framesPerSecond"), decimals: 1)
                let frozen = DecimalText.fixed(delta("totalFreezesDuration"), decimals: 2)
                let run = "\(options.dropFirst().joined(separator: " ")) \(count), \(slowPath.description)"
                let size = "\(Int(Self.number(last.1["frameWidth"])))x\(Int(Self.number(last.1["frameHeight"])))"
                print("\(run): \(name) viewer \(size) \(fps) fps decoded, \(kbps) kbit/s; Chromium framesPerSecond \(chromiumFPS), "
                    + "\(Int(delta("freezeCount"))) freezes for \(frozen) s in \(Int(span.rounded())) s")
            }
            for (_, viewer) in viewers { stop(viewer) }
            server.interrupt()
            let result = server.wait(timeout: TestPatience.seconds)
            for line in result.stderr.split(separator: "\n") where line.contains(" left: ") { print("  \(line)") }
        }
    }

    /// Where the second viewer is: none, behind the policer, or behind the queue.
    enum SlowPath: CustomStringConvertible {
        case none, policer, queue

        var description: String {
            switch self {
            case .none: "without the slow viewer"
            case .policer: "with the slow viewer behind the policer"
            case .queue: "with the slow viewer behind the queue"
            }
        }
    }

    /// How long the viewers play before the window: 10 s, or `CAMRTP_LAYERS_SETTLE` seconds.
    static var settleSeconds: Int {
        ProcessInfo.processInfo.environment["CAMRTP_LAYERS_SETTLE"].flatMap { Int($0) } ?? 10
    }

    static func number(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? 0
    }
}
