import CameraRTP
import Foundation
import Metrics
import MetricsTestKit
import MediaCore
import StreamMetrics
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

        #expect(try metrics.expectCounter("camrtp_frames_captured_total", dimensions).totalValue == 40)
        #expect(try metrics.expectCounter("camrtp_frames_encoded_total", dimensions).totalValue == Int64(stats.framesEncoded))
        #expect(try metrics.expectCounter("camrtp_frames_dropped_total", dimensions + [("reason", "fpsCap")]).totalValue == 20)
        #expect(try metrics.expectCounter("camrtp_keyframes_encoded_total", dimensions).totalValue == Int64(stats.keyframes))
        #expect(try metrics.expectCounter("camrtp_sent_packets_total", dimensions).totalValue == Int64(stats.packetsSent))
        #expect(try metrics.expectTimer("camrtp_encode_duration_seconds", dimensions).values.count == stats.framesEncoded)
    }
}

/// A sender's figures as series in Prometheus's units, per stream or per viewer.
@Suite struct SenderMetricsTests {
    @Test func countersGrowByWhatChangedAndGaugesAreInBaseUnits() throws {
        let metrics = MetricsTests.metrics
        let dimensions = [("viewer", UUID().uuidString)]
        var series = SenderMetrics(prefix: "camrtp_viewer", dimensions: dimensions)
        var statistics = SenderStatistics(startBitrateKbps: 300)
        statistics.rtcpReceived.nack = 2
        statistics.rtcpReceived.pli = 1
        statistics.nackedPackets = 5
        statistics.packetsRetransmitted = 4
        series.record(statistics)
        statistics.rtcpReceived.nack = 3
        statistics.nackedPackets = 7
        statistics.rttMs = .init(last: 12.5, p50: 10)
        statistics.receiverFractionLost = 0.25
        statistics.targetBitrateKbps.record(450)
        statistics.pacerQueueMs = .init(p99: 40, max: 80)
        series.record(statistics)

        #expect(try metrics.expectCounter("camrtp_viewer_rtcp_received_total", dimensions + [("type", "nack")]).totalValue == 3)
        #expect(try metrics.expectCounter("camrtp_viewer_rtcp_received_total", dimensions + [("type", "pli")]).totalValue == 1)
        #expect(try metrics.expectCounter("camrtp_viewer_nacked_packets_total", dimensions).totalValue == 7)
        #expect(try metrics.expectCounter("camrtp_viewer_retransmitted_packets_total", dimensions).totalValue == 4)
        #expect(try metrics.expectGauge("camrtp_viewer_rtt_seconds", dimensions).lastValue == 0.0125)
        #expect(try metrics.expectGauge("camrtp_viewer_receiver_loss_ratio", dimensions).lastValue == 0.25)
        #expect(try metrics.expectGauge("camrtp_viewer_target_bitrate_bits_per_second", dimensions).lastValue == 450_000)
        #expect(try metrics.expectGauge("camrtp_viewer_pacer_queue_delay_p99_seconds", dimensions).lastValue == 0.04)
        series.destroy()
        #expect(throws: (any Error).self) { try metrics.expectGauge("camrtp_viewer_rtt_seconds", dimensions) }
    }

    @Test func theSentBitrateIsMeasuredOverASecondOrMore() throws {
        let metrics = MetricsTests.metrics
        let dimensions = [("stream", UUID().uuidString)]
        var sent = SentTraffic(prefix: "camrtp", dimensions: dimensions)
        sent.record(packets: 1, bytes: 1000, nowNs: 0)
        sent.record(packets: 2, bytes: 2000, nowNs: 500_000_000)
        #expect(try metrics.expectGauge("camrtp_sent_bitrate_bits_per_second", dimensions).values.isEmpty)
        sent.record(packets: 2, bytes: 3000, nowNs: 1_250_000_000)
        // 5000 bytes after the first, over 1.25 s.
        #expect(try metrics.expectGauge("camrtp_sent_bitrate_bits_per_second", dimensions).lastValue == 32_000)
        #expect(try metrics.expectCounter("camrtp_sent_packets_total", dimensions).totalValue == 5)
        #expect(try metrics.expectCounter("camrtp_sent_bytes_total", dimensions).totalValue == 6000)
    }
}
