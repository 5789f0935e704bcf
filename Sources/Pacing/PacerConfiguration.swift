/// The pacer's limits; the defaults are libwebrtc's (`PacingController`, `BitrateProber`).
public struct PacerConfiguration: Sendable, Hashable {
    /// Off, every queued packet is released at once; probe clusters still run (on padding when
    /// nothing is queued) and set the pace while they do.
    public var isPacingEnabled: Bool
    /// After a quiet spell, up to this much time's worth of data may leave at once.
    public var burstIntervalNs: Int64
    /// ... and never more than this many bytes, however high the rate.
    public var maxBurstBytes: Int
    /// The pacer raises its rate so that queued packets wait no longer than this on average.
    public var queueTimeLimitNs: Int64
    /// Sending is never more than this far behind the rate (libwebrtc's `kMaxDebtInTime`).
    public var maxDebtNs: Int64
    /// Padding is requested in chunks of this much time at the padding rate.
    public var paddingChunkNs: Int64
    /// A probe step sends at least this much time's worth of the probe rate.
    public var probeMinDeltaNs: Int64
    /// A probe cluster that falls further behind its schedule than this is dropped: its timing
    /// would measure our own lateness, not the path.
    public var probeMaxDelayNs: Int64
    /// A probe cluster not started this long after it was requested is dropped.
    public var probeClusterTimeoutNs: Int64
    /// A probe starts only once a packet at least this big (or the probe step) is queued.
    public var probeMinPacketBytes: Int
    /// While the sender is congested and nothing else goes out, one packet leaves this often
    /// (libwebrtc's `kCongestedPacketInterval`), so that feedback still comes.
    public var keepAliveIntervalNs: Int64

    public init(
        isPacingEnabled: Bool = true, burstIntervalNs: Int64 = 40_000_000, maxBurstBytes: Int = 63_000,
        queueTimeLimitNs: Int64 = 2_000_000_000, maxDebtNs: Int64 = 500_000_000, paddingChunkNs: Int64 = 5_000_000,
        probeMinDeltaNs: Int64 = 2_000_000, probeMaxDelayNs: Int64 = 10_000_000,
        probeClusterTimeoutNs: Int64 = 5_000_000_000, probeMinPacketBytes: Int = 200,
        keepAliveIntervalNs: Int64 = 500_000_000
    ) {
        self.isPacingEnabled = isPacingEnabled
        self.burstIntervalNs = burstIntervalNs
        self.maxBurstBytes = maxBurstBytes
        self.queueTimeLimitNs = queueTimeLimitNs
        self.maxDebtNs = maxDebtNs
        self.paddingChunkNs = paddingChunkNs
        self.probeMinDeltaNs = probeMinDeltaNs
        self.probeMaxDelayNs = probeMaxDelayNs
        self.probeClusterTimeoutNs = probeClusterTimeoutNs
        self.probeMinPacketBytes = probeMinPacketBytes
        self.keepAliveIntervalNs = keepAliveIntervalNs
    }
}
