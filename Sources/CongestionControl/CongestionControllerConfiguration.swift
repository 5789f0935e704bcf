/// The bounds and factors the controller works within.
public struct CongestionControllerConfiguration: Sendable, Hashable {
    /// Where the estimate starts (libwebrtc: 300 kbit/s).
    public var startBitrateBps: Int64
    /// The target never goes below this (libwebrtc's default video minimum: 30 kbit/s).
    public var minBitrateBps: Int64
    /// The target and the probes never go above this.
    public var maxBitrateBps: Int64
    /// Pacing rate = target × this, until the first transport feedback arrives.
    public var pacingFactorBeforeFeedback: Double
    /// Pacing rate = target × this, once transport feedback arrives. Close to the target, the
    /// pacer smooths what the bottleneck would otherwise queue (measured: queueing delay p95
    /// 85 ms behind an 800 kbit/s bottleneck at 1.1 ×, over 200 ms at 2.5 ×); the price is that a
    /// keyframe of up to nine frames' worth of bits takes up to 270 ms to leave.
    public var pacingFactor: Double
    /// Up to this rate (and never above the target) the pacer fills silence with padding;
    /// 0 for a camera, whose encoder fills the target.
    public var maxPaddingBitrateBps: Int64
    /// Start-up and periodic probing; off, the estimate only grows by AIMD.
    public var isProbingEnabled: Bool

    public init(
        startBitrateBps: Int64 = 300_000, minBitrateBps: Int64 = 30_000, maxBitrateBps: Int64 = 10_000_000,
        pacingFactorBeforeFeedback: Double = 2.5, pacingFactor: Double = 1.1, maxPaddingBitrateBps: Int64 = 0,
        isProbingEnabled: Bool = true
    ) {
        precondition(minBitrateBps > 0 && minBitrateBps <= maxBitrateBps, "bitrate bounds out of order")
        self.startBitrateBps = min(max(startBitrateBps, minBitrateBps), maxBitrateBps)
        self.minBitrateBps = minBitrateBps
        self.maxBitrateBps = maxBitrateBps
        self.pacingFactorBeforeFeedback = pacingFactorBeforeFeedback
        self.pacingFactor = pacingFactor
        self.maxPaddingBitrateBps = maxPaddingBitrateBps
        self.isProbingEnabled = isProbingEnabled
    }
}
