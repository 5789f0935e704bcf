import CameraRTP
import Foundation
import Metrics
import MetricsTestKit
import TestSupport
import Testing
import VP8

/// The figures reach an application's swift-metrics backend, counted where they happen.
@Suite struct MetricsTests {
    /// One backend for the whole test process: swift-metrics can be bootstrapped once.
    static let metrics: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    @Test func countersAndTimersMatchTheStats() async throws {
        let metrics = Self.metrics
        let dimensions = [("stream", UUID().uuidString)]
        var configuration = PipelineConfiguration(
            maxFps: 15, pace: .fast, frameLimit: 40)
        configuration.metricsDimensions = dimensions
        let pipeline = try StreamPipeline(
            source: .testPattern(width: 160, height: 120, fps: 30, pace: .fast, rotation: .deg0),
            configuration: configuration, sink: CollectingSink())
        let stats = try await pipeline.run()

        #expect(try metrics.expectCounter("camrtp_frames_captured", dimensions).totalValue == 40)
        #expect(try metrics.expectCounter("camrtp_frames_encoded", dimensions).totalValue == Int64(stats.framesEncoded))
        #expect(try metrics.expectCounter("camrtp_frames_dropped", dimensions + [("reason", "fpsCap")]).totalValue == 20)
        #expect(try metrics.expectCounter("camrtp_keyframes", dimensions).totalValue == Int64(stats.keyframes))
        #expect(try metrics.expectCounter("camrtp_packets_sent", dimensions).totalValue == Int64(stats.packetsSent))
        #expect(try metrics.expectTimer("camrtp_encode_time", dimensions).values.count == stats.framesEncoded)
    }
}
