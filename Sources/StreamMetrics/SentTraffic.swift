import Metrics

/// What left for the network as swift-metrics series: `<prefix>_sent_packets_total`,
/// `<prefix>_sent_bytes_total`, and `<prefix>_sent_bitrate_bits_per_second`, the rate over the
/// last second or more (a gauge, so a dashboard needs no `rate()` to show it).
public struct SentTraffic: Sendable {
    static let rateWindowNs: Int64 = 1_000_000_000

    private let packets: Counter
    private let bytes: Counter
    private let bitrate: Gauge
    private var totalBytes = 0
    private var window: (startNs: Int64, bytes: Int)?

    public init(prefix: String, dimensions: [(String, String)] = []) {
        packets = Counter(label: "\(prefix)_sent_packets_total", dimensions: dimensions)
        bytes = Counter(label: "\(prefix)_sent_bytes_total", dimensions: dimensions)
        bitrate = Gauge(label: "\(prefix)_sent_bitrate_bits_per_second", dimensions: dimensions)
    }

    /// Counts `packets` and `bytes` that left; `nowNs` (when known) closes the rate's window once
    /// it spans a second.
    public mutating func record(packets: Int, bytes: Int, nowNs: Int64?) {
        self.packets.increment(by: Int64(packets))
        self.bytes.increment(by: Int64(bytes))
        totalBytes += bytes
        guard let nowNs else { return }
        guard let window else {
            self.window = (nowNs, totalBytes)
            return
        }
        let elapsedNs = nowNs - window.startNs
        if elapsedNs >= Self.rateWindowNs {
            bitrate.record(Double(totalBytes - window.bytes) * 8 * 1e9 / Double(elapsedNs))
            self.window = (nowNs, totalBytes)
        }
    }

    public func destroy() {
        packets.destroy()
        bytes.destroy()
        bitrate.destroy()
    }
}
