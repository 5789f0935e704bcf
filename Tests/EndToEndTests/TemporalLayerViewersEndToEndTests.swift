import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `serve --temporal-layers 3` with two Chromium viewers on different paths: one on the
    /// server's own host, one behind a 400 kbit/s policer in the router between the hosts
    /// (`RelayedNetwork` with UDP forwarded, nftables dropping what exceeds the rate). Each is sent
    /// the layers its own estimate carries: the slow one the base layer, the clean one all three,
    /// and both play.
    @Suite(.serialized) struct TemporalLayerViewersEndToEndTests {
        static let httpPort = 8080
        static var base: String { "http://\(RelayedNetwork.leftAddress):\(httpPort)/" }

        /// Two viewers of `camrtp serve` with `options`, playing: the clean one (viewer 1) on
        /// the server's host, the slow one (viewer 2, joining once the first plays) behind the
        /// 400 kbit/s policer; then `body`, and everything stopped.
        func withTwoViewers(
            serving options: [String],
            _ body: (_ network: RelayedNetwork, _ server: ExternalTool.Running, _ clean: Viewer, _ slow: Viewer) async throws -> Void
        ) async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            if let reason = RelayedNetwork.unavailableReason { try Test.cancel("two hosts and a router: \(reason)") }
            let network = try RelayedNetwork(dropsDirectUDP: false)
            defer { network.remove() }
            // 400 kbit/s, with a burst of about half a second.
            try network.limitUDPToRight(kilobytesPerSecond: 50, burstKilobytes: 30)
            let server = try network.start(in: network.left, [
                CamrtpBinary.path, "serve", "--http", "\(RelayedNetwork.leftAddress):\(Self.httpPort)",
                "--local-address", RelayedNetwork.leftAddress, "--no-auth",
            ] + options)
            defer {
                server.interrupt()
                _ = server.wait(timeout: 10)
            }
            try #require(server.waitForLine(containing: "serving", in: .stderr) != nil, "\(server.output(.stderr))")

            let clean = try viewer(in: network.left, network: network)
            defer { stop(clean) }
            let cleanResource = try #require(Self.resource(clean, decoded: 30), "\(clean.output(.stdout)) \(server.output(.stderr))")
            let slow = try viewer(in: network.right, network: network)
            defer { stop(slow) }
            let slowResource = try #require(Self.resource(slow, decoded: 30), "\(slow.output(.stdout)) \(server.output(.stderr))")
            try await body(network, server, Viewer(process: clean, resource: cleanResource), Viewer(process: slow, resource: slowResource))
        }

        /// Prints what each viewer's Chromium says of its stream, stops the viewers and then the
        /// server, which must exit 0 without an error, and prints its leave lines.
        func stopAll(server: ExternalTool.Running, clean: Viewer, slow: Viewer) -> ExternalTool.Result {
            for (name, viewer) in [("clean", clean), ("slow", slow)] {
                let stats = Self.lastStats(viewer.process)
                print("\(name) viewer in Chromium: \(stats?["frameWidth"] ?? "-")x\(stats?["frameHeight"] ?? "-"), "
                    + "\(stats?["framesPerSecond"] ?? "-") fps, \(stats?["framesDecoded"] ?? "-") decoded, "
                    + "\(stats?["freezeCount"] ?? "-") freezes, \(stats?["totalFreezesDuration"] ?? "-") s frozen")
            }
            stop(slow.process)
            stop(clean.process)
            server.interrupt()
            let result = server.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains(" error "), "\(result.stderr)")
            for line in result.stderr.split(separator: "\n") where line.contains(" left: ") { print(line) }
            return result
        }

        /// A Chromium viewer and its WHEP resource id.
        struct Viewer {
            let process: ExternalTool.Running
            let resource: String
        }

        @Test(.timeLimit(.minutes(5)))
        func aSlowViewerIsSentTheBaseLayerWhileTheCleanOneGetsAllThree() async throws {
            try await withTwoViewers(serving: ["--source", "testsrc:640x480@30", "--temporal-layers", "3"]) { network, server, clean, slow in
                let (cleanResource, slowResource) = (clean.resource, slow.resource)
                // The slow viewer's estimate falls below what all layers need: it is sent fewer
                // layers while the clean one keeps all three.
                let metricsURL = Self.base + "metrics"
                var scrape = try Self.scrape(metricsURL, network: network)
                let layer = { (scrape: MetricsEndToEndTests.Scrape, resource: String) in
                    scrape.value("camrtp_viewer_temporal_layer", ["viewer": resource])
                }
                let deadline = TestPatience.deadline
                while !(layer(scrape, slowResource).map({ $0 < 2 }) == true && layer(scrape, cleanResource) == 2), Date() < deadline {
                    try #require(server.isRunning, "\(server.output(.stderr))")
                    try await Task.sleep(for: .milliseconds(200))
                    scrape = try Self.scrape(metricsURL, network: network)
                }
                #expect(scrape.families["camrtp_viewer_temporal_layer"] == "gauge", "\(scrape.text)")
                #expect(layer(scrape, cleanResource) == 2, "\(scrape.text)")
                #expect(layer(scrape, slowResource).map { $0 < 2 } == true, "\(scrape.text)")

                // Both go on decoding, each at its own layers.
                let cleanAt = Self.decodedFrames(in: clean.process.output(.stdout)), slowAt = Self.decodedFrames(in: slow.process.output(.stdout))
                #expect(Self.resource(clean.process, decoded: cleanAt + 60) != nil, "\(clean.process.output(.stdout))")
                #expect(Self.resource(slow.process, decoded: slowAt + 15) != nil, "\(slow.process.output(.stdout))")
                let slowStats = Self.lastStats(slow.process)
                #expect(slowStats?["frameWidth"] as? Int == 640 && slowStats?["frameHeight"] as? Int == 480, "\(slowStats ?? [:])")

                let result = stopAll(server: server, clean: clean, slow: slow)
                let slowLeft = result.stderr.split(separator: "\n").first { $0.contains("viewer 2 left") }
                #expect(slowLeft?.contains("above its temporal layer") == true, "\(result.stderr)")
            }
        }

        /// Chromium on the viewer page in host `name`, playing until the test stops it.
        func viewer(in name: String, network: RelayedNetwork) throws -> ExternalTool.Running {
            try network.start(in: name, [
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", Self.base, "--frames", "1000000",
                "--timeout", String(Int(TestPatience.seconds * 3)),
            ])
        }

        func stop(_ viewer: ExternalTool.Running) {
            guard viewer.isRunning else { return }
            viewer.interrupt()
            _ = viewer.wait(timeout: 10)
        }

        /// The viewer's WHEP resource id once Chromium has decoded `decoded` frames.
        static func resource(_ viewer: ExternalTool.Running, decoded: Int) -> String? {
            let line = viewer.waitForLine(in: .stdout) { line in
                (stats(WHEPServeEndToEndTests.event(String(line)))?["framesDecoded"] as? Int ?? 0) >= decoded
            }
            let event = WHEPServeEndToEndTests.event(line)
            return ((event?["viewer"] as? [String: Any])?["resource"] as? String)?.split(separator: "/").last.map(String.init)
        }

        static func stats(_ event: [String: Any]?) -> [String: Any]? {
            (event?["viewer"] as? [String: Any])?["stats"] as? [String: Any]
        }

        static func lastStats(_ viewer: ExternalTool.Running) -> [String: Any]? {
            WHEPServeEndToEndTests.events(viewer.output(.stdout)).compactMap { stats($0) }.last
        }

        static func decodedFrames(in output: String) -> Int {
            WHEPServeEndToEndTests.events(output).compactMap { stats($0)?["framesDecoded"] as? Int }.max() ?? 0
        }

        static func scrape(_ url: String, network: RelayedNetwork) throws -> MetricsEndToEndTests.Scrape {
            let result = try network.start(in: network.left, ["/usr/bin/python3", TestTools.path("scrape_metrics.py"), "--url", url])
                .wait(timeout: TestPatience.seconds)
            try #require(result.status == 0, "scrape_metrics.py: \(result.stderr)")
            return try MetricsEndToEndTests.Scrape(result.stdout)
        }
    }
}
