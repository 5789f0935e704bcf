import MediaCore

/// The figures of a run at one moment, as `--stats-json` writes them. The books balance:
/// `framesCaptured == framesEncoded + framesDropped.values.sum()` once the pipeline has stopped.
public struct StatsSnapshot: Sendable, Codable, Equatable {
    public struct EncodeTimes: Sendable, Codable, Equatable {
        public var p50: Double
        public var p99: Double
    }

    public struct Latencies: Sendable, Codable, Equatable {
        public var p50: Double
        public var p99: Double
        public var max: Double
    }

    public var framesCaptured: Int
    public var framesEncoded: Int
    /// Reason (a `FrameDropReason` raw value) to count; reasons with no drop are left out.
    public var framesDropped: [String: Int]
    public var keyframes: Int
    public var packetsSent: Int
    public var bytesSent: Int
    /// Wire bits per second over the run (RTP headers and SRTP tags included), in kbit/s.
    public var bitrateKbps: Double
    /// Time in `VP8Encoder.encode`, per frame.
    public var encodeMs: EncodeTimes
    /// From a frame's capture timestamp to its last packet leaving the socket; measured in real
    /// time only (zeros in `--pace fast`).
    public var latencyMs: Latencies
    public var durationSeconds: Double

    public var totalDropped: Int { framesDropped.values.reduce(0, +) }
}
