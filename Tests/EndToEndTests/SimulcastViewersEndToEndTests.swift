import Foundation
import TestSupport
import Testing

extension EndToEnd.TemporalLayerViewersEndToEndTests {
    /// `serve --simulcast 2` with the same two Chromium viewers: the one behind the 400 kbit/s
    /// policer is moved to the quarter-size encoding on its keyframe, the clean one keeps the
    /// full size, and both play. The clean one's encoding is not held down by the slow one.
    @Test(.timeLimit(.minutes(5)))
    func aSlowViewerIsSentTheLowerEncodingWhileTheCleanOneKeepsTheFullSize() async throws {
        guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
        if let reason = RelayedNetwork.unavailableReason { try Test.cancel("two hosts and a router: \(reason)") }
        let network = try RelayedNetwork(dropsDirectUDP: false)
        defer { network.remove() }
        try network.limitUDPToRight(kilobytesPerSecond: 50, burstKilobytes: 30)
        let server = try network.start(in: network.left, [
            CamrtpBinary.path, "serve", "--source", "testsrc:640x360@30", "--http", "\(RelayedNetwork.leftAddress):\(Self.httpPort)",
            "--local-address", RelayedNetwork.leftAddress, "--no-auth", "--simulcast", "2",
        ])
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

        // The slow viewer's estimate falls below what the full size takes: it is moved to the
        // lower encoding, while the clean one stays on the upper.
        let metricsURL = Self.base + "metrics"
        var scrape = try Self.scrape(metricsURL, network: network)
        let encoding = { (scrape: EndToEnd.MetricsEndToEndTests.Scrape, resource: String) in
            scrape.value("camrtp_viewer_encoding", ["viewer": resource])
        }
        let deadline = TestPatience.deadline
        while !(encoding(scrape, slowResource) == 0 && encoding(scrape, cleanResource) == 1), Date() < deadline {
            try #require(server.isRunning, "\(server.output(.stderr))")
            try await Task.sleep(for: .milliseconds(200))
            scrape = try Self.scrape(metricsURL, network: network)
        }
        #expect(scrape.families["camrtp_viewer_encoding"] == "gauge", "\(scrape.text)")
        #expect(encoding(scrape, cleanResource) == 1, "\(scrape.text)")
        #expect(encoding(scrape, slowResource) == 0, "\(scrape.text)")

        // Both go on decoding, each at its own size.
        let cleanAt = Self.decodedFrames(in: clean.output(.stdout)), slowAt = Self.decodedFrames(in: slow.output(.stdout))
        #expect(Self.resource(clean, decoded: cleanAt + 60) != nil, "\(clean.output(.stdout))")
        #expect(Self.resource(slow, decoded: slowAt + 30) != nil, "\(slow.output(.stdout))")
        let cleanStats = Self.lastStats(clean), slowStats = Self.lastStats(slow)
        #expect(cleanStats?["frameWidth"] as? Int == 640 && cleanStats?["frameHeight"] as? Int == 360, "\(cleanStats ?? [:])")
        #expect(slowStats?["frameWidth"] as? Int == 320 && slowStats?["frameHeight"] as? Int == 180, "\(slowStats ?? [:])")
        for (name, stats) in [("clean", cleanStats), ("slow", slowStats)] {
            print("\(name) viewer in Chromium: \(stats?["frameWidth"] ?? "-")x\(stats?["frameHeight"] ?? "-"), "
                + "\(stats?["framesPerSecond"] ?? "-") fps, \(stats?["framesDecoded"] ?? "-") decoded, "
                + "\(stats?["freezeCount"] ?? "-") freezes, \(stats?["totalFreezesDuration"] ?? "-") s frozen")
        }

        stop(slow)
        stop(clean)
        server.interrupt()
        let result = server.wait(timeout: TestPatience.seconds)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains(" error "), "\(result.stderr)")
        for line in result.stderr.split(separator: "\n") where line.contains(" left: ") { print(line) }
    }
}
