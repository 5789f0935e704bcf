import MediaCore
import Metrics

/// A network sender's running figures (`SenderStatistics`) as swift-metrics series named
/// `<prefix>_…`, in the units Prometheus expects (seconds, ratios, bits per second):
///
/// | series | from |
/// |---|---|
/// | `<prefix>_rtcp_received_total{type}` | RTCP by type: rr, sr, nack, pli, fir, remb, twcc, other, rejected |
/// | `<prefix>_nacked_packets_total` | sequence numbers receivers asked for again |
/// | `<prefix>_retransmitted_packets_total`, `<prefix>_retransmitted_bytes_total` | what was sent again |
/// | `<prefix>_fec_packets_total`, `<prefix>_fec_bytes_total` | ULPFEC packets sent (RFC 5109) |
/// | `<prefix>_fec_protection_ratio` | FEC packets per media packet on delta frames, as now in force |
/// | `<prefix>_keyframes_on_request_total` | PLI and FIR passed to the encoder |
/// | `<prefix>_probe_packets_total` | probes for congestion control |
/// | `<prefix>_rtt_seconds` | the latest round-trip time |
/// | `<prefix>_receiver_loss_ratio` | the fraction lost of the latest receiver report |
/// | `<prefix>_target_bitrate_bits_per_second` | what congestion control allows |
/// | `<prefix>_pacer_queue_delay_p99_seconds`, `<prefix>_pacer_queue_delay_max_seconds` | pacer queue time so far |
///
/// Counters grow by what changed since the previous report. The series appear with the first
/// report (the RTT and loss with the first receiver report that gives them): a sink that never
/// reports (a file) has none, and `destroy()` removes them when the sender is gone (a viewer that
/// left).
public struct SenderMetrics: Sendable {
    private let prefix: String
    private let dimensions: [(String, String)]
    private var series: Series?
    private var roundTripTime: Gauge?
    private var lossRatio: Gauge?
    private var previous: SenderStatistics?

    public init(prefix: String, dimensions: [(String, String)] = []) {
        self.prefix = prefix
        self.dimensions = dimensions
    }

    public mutating func record(_ statistics: SenderStatistics) {
        let series = self.series ?? Series(prefix: prefix, dimensions: dimensions)
        self.series = series
        series.record(statistics, previous: previous)
        previous = statistics
        if let rtt = statistics.rttMs {
            roundTripTime = roundTripTime ?? Gauge(label: "\(prefix)_rtt_seconds", dimensions: dimensions)
            roundTripTime?.record(rtt.last / 1000)
        }
        if let lost = statistics.receiverFractionLost {
            lossRatio = lossRatio ?? Gauge(label: "\(prefix)_receiver_loss_ratio", dimensions: dimensions)
            lossRatio?.record(lost)
        }
    }

    /// Removes the series from the backend.
    public func destroy() {
        series?.destroy()
        roundTripTime?.destroy()
        lossRatio?.destroy()
    }

    private struct Series: Sendable {
        let rtcp: [(count: @Sendable (SenderStatistics.RTCPReceived) -> Int, counter: Counter)]
        let counts: [(count: @Sendable (SenderStatistics) -> Int, counter: Counter)]
        let targetBitrate: Gauge
        let pacerQueueP99: Gauge
        let pacerQueueMax: Gauge
        let fecProtection: Gauge

        init(prefix: String, dimensions: [(String, String)]) {
            let types: [(@Sendable (SenderStatistics.RTCPReceived) -> Int, String)] = [
                ({ $0.rr }, "rr"), ({ $0.sr }, "sr"), ({ $0.nack }, "nack"), ({ $0.pli }, "pli"), ({ $0.fir }, "fir"),
                ({ $0.remb }, "remb"), ({ $0.twcc }, "twcc"), ({ $0.other }, "other"), ({ $0.rejected }, "rejected"),
            ]
            rtcp = types.map { ($0.0, Counter(label: "\(prefix)_rtcp_received_total", dimensions: dimensions + [("type", $0.1)])) }
            let counted: [(@Sendable (SenderStatistics) -> Int, String)] = [
                ({ $0.nackedPackets }, "nacked_packets_total"), ({ $0.packetsRetransmitted }, "retransmitted_packets_total"),
                ({ $0.bytesRetransmitted }, "retransmitted_bytes_total"), ({ $0.keyframesOnRequest }, "keyframes_on_request_total"),
                ({ $0.probesSent }, "probe_packets_total"), ({ $0.fecPacketsSent }, "fec_packets_total"),
                ({ $0.fecBytesSent }, "fec_bytes_total"),
            ]
            counts = counted.map { ($0.0, Counter(label: "\(prefix)_\($0.1)", dimensions: dimensions)) }
            targetBitrate = Gauge(label: "\(prefix)_target_bitrate_bits_per_second", dimensions: dimensions)
            pacerQueueP99 = Gauge(label: "\(prefix)_pacer_queue_delay_p99_seconds", dimensions: dimensions)
            pacerQueueMax = Gauge(label: "\(prefix)_pacer_queue_delay_max_seconds", dimensions: dimensions)
            fecProtection = Gauge(label: "\(prefix)_fec_protection_ratio", dimensions: dimensions)
        }

        func record(_ statistics: SenderStatistics, previous: SenderStatistics?) {
            for (count, counter) in rtcp {
                counter.increment(by: Int64(max(0, count(statistics.rtcpReceived) - (previous.map { count($0.rtcpReceived) } ?? 0))))
            }
            for (count, counter) in counts {
                counter.increment(by: Int64(max(0, count(statistics) - (previous.map(count) ?? 0))))
            }
            targetBitrate.record(statistics.targetBitrateKbps.last * 1000)
            pacerQueueP99.record(statistics.pacerQueueMs.p99 / 1000)
            pacerQueueMax.record(statistics.pacerQueueMs.max / 1000)
            fecProtection.record(statistics.fecProtection)
        }

        func destroy() {
            for (_, counter) in rtcp { counter.destroy() }
            for (_, counter) in counts { counter.destroy() }
            for gauge in [targetBitrate, pacerQueueP99, pacerQueueMax, fecProtection] { gauge.destroy() }
        }
    }
}
