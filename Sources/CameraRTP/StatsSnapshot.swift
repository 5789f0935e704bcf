import MediaCore

/// The figures of a run at one moment, as `--stats-json` writes them. The books balance:
/// `framesCaptured == framesEncoded + framesDropped.values.sum()` once the pipeline has stopped.
/// A network sink's figures (`sender`) are written at the same level as the pipeline's.
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
    /// Everything that left: media, retransmissions, padding and RTCP.
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
    /// What an RTP sender heard and did (RTCP, retransmissions, RTT, target rate); nil for a file.
    public var sender: SenderStatistics?

    public var totalDropped: Int { framesDropped.values.reduce(0, +) }

    private enum CodingKeys: String, CodingKey {
        case framesCaptured, framesEncoded, framesDropped, keyframes, packetsSent, bytesSent, bitrateKbps, encodeMs,
             latencyMs, durationSeconds
    }

    init(
        framesCaptured: Int, framesEncoded: Int, framesDropped: [String: Int], keyframes: Int, packetsSent: Int,
        bytesSent: Int, bitrateKbps: Double, encodeMs: EncodeTimes, latencyMs: Latencies, durationSeconds: Double,
        sender: SenderStatistics?
    ) {
        self.framesCaptured = framesCaptured
        self.framesEncoded = framesEncoded
        self.framesDropped = framesDropped
        self.keyframes = keyframes
        self.packetsSent = packetsSent
        self.bytesSent = bytesSent
        self.bitrateKbps = bitrateKbps
        self.encodeMs = encodeMs
        self.latencyMs = latencyMs
        self.durationSeconds = durationSeconds
        self.sender = sender
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        framesCaptured = try container.decode(Int.self, forKey: .framesCaptured)
        framesEncoded = try container.decode(Int.self, forKey: .framesEncoded)
        framesDropped = try container.decode([String: Int].self, forKey: .framesDropped)
        keyframes = try container.decode(Int.self, forKey: .keyframes)
        packetsSent = try container.decode(Int.self, forKey: .packetsSent)
        bytesSent = try container.decode(Int.self, forKey: .bytesSent)
        bitrateKbps = try container.decode(Double.self, forKey: .bitrateKbps)
        encodeMs = try container.decode(EncodeTimes.self, forKey: .encodeMs)
        latencyMs = try container.decode(Latencies.self, forKey: .latencyMs)
        durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
        sender = try? SenderStatistics(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(framesCaptured, forKey: .framesCaptured)
        try container.encode(framesEncoded, forKey: .framesEncoded)
        try container.encode(framesDropped, forKey: .framesDropped)
        try container.encode(keyframes, forKey: .keyframes)
        try container.encode(packetsSent, forKey: .packetsSent)
        try container.encode(bytesSent, forKey: .bytesSent)
        try container.encode(bitrateKbps, forKey: .bitrateKbps)
        try container.encode(encodeMs, forKey: .encodeMs)
        try container.encode(latencyMs, forKey: .latencyMs)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try sender?.encode(to: encoder)
    }
}
