import Foundation
import TestSupport
import Testing

extension EndToEnd.TemporalLayerViewersEndToEndTests {
    /// `serve --simulcast 2` with the same two Chromium viewers: the one behind the 400 kbit/s
    /// policer is moved to the lower encoding (320x180) on its keyframe, the clean one keeps the
    /// full size, and both play. The clean one's encoding is not held down by the slow one.
    @Test(.timeLimit(.minutes(5)))
    func aSlowViewerIsSentTheLowerEncodingWhileTheCleanOneKeepsTheFullSize() async throws {
        let options = ["--source", "testsrc:640x360@30", "--simulcast", "2"]
        try await withTwoViewers(serving: options) { network, server, clean, slow in
            // The slow viewer's estimate falls below what the full size takes: it is moved to the
            // lower encoding, while the clean one stays on the upper.
            let metricsURL = Self.base + "metrics"
            var scrape = try Self.scrape(metricsURL, network: network)
            let encoding = { (scrape: EndToEnd.MetricsEndToEndTests.Scrape, resource: String) in
                scrape.value("camrtp_viewer_encoding", ["viewer": resource])
            }
            let deadline = TestPatience.deadline
            while !(encoding(scrape, slow.resource) == 0 && encoding(scrape, clean.resource) == 1), Date() < deadline {
                try #require(server.isRunning, "\(server.output(.stderr))")
                try await Task.sleep(for: .milliseconds(200))
                scrape = try Self.scrape(metricsURL, network: network)
            }
            #expect(scrape.families["camrtp_viewer_encoding"] == "gauge", "\(scrape.text)")
            #expect(encoding(scrape, clean.resource) == 1, "\(scrape.text)")
            #expect(encoding(scrape, slow.resource) == 0, "\(scrape.text)")

            // Both go on decoding, each at its own size.
            let cleanAt = Self.decodedFrames(in: clean.process.output(.stdout)), slowAt = Self.decodedFrames(in: slow.process.output(.stdout))
            #expect(Self.resource(clean.process, decoded: cleanAt + 60) != nil, "\(clean.process.output(.stdout))")
            #expect(Self.resource(slow.process, decoded: slowAt + 30) != nil, "\(slow.process.output(.stdout))")
            let cleanStats = Self.lastStats(clean.process), slowStats = Self.lastStats(slow.process)
            #expect(cleanStats?["frameWidth"] as? Int == 640 && cleanStats?["frameHeight"] as? Int == 360, "\(cleanStats ?? [:])")
            #expect(slowStats?["frameWidth"] as? Int == 320 && slowStats?["frameHeight"] as? Int == 180, "\(slowStats ?? [:])")

            _ = stopAll(server: server, clean: clean, slow: slow)
        }
    }
}
