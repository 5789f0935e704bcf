/// Maps capture times (nanoseconds on `CLOCK_MONOTONIC`) to RTP timestamps (RFC 3550 §5.1):
/// `offset + ns × clockRate / 10⁹`, truncated, modulo 2³².
///
/// The product is formed at 128-bit width, so it is exact for every `Int64` time and never goes
/// through a coarser unit such as milliseconds.
public struct RTPClock: Sendable, Equatable {
    /// The RTP clock rate of video (RFC 7741 §6.1).
    public static let videoClockRate: Int64 = 90_000

    public let clockRate: Int64
    /// The random starting point of the stream's timestamps (RFC 3550 §5.1).
    public let offset: UInt32

    public init(clockRate: Int64 = RTPClock.videoClockRate, offset: UInt32) {
        precondition(clockRate > 0 && clockRate <= Int64(UInt32.max), "RTP clock rate must be a positive 32-bit value")
        self.clockRate = clockRate
        self.offset = offset
    }

    public func rtpTimestamp(forNs timestampNs: Int64) -> UInt32 {
        offset &+ UInt32(truncatingIfNeeded: scaleNanoseconds(timestampNs, by: clockRate))
    }
}

/// `ns × factor / 10⁹` truncated toward zero, computed at 128-bit width so that no product
/// overflows. `factor` must be below 10⁹ · 2³¹ so that the quotient fits `Int64`.
func scaleNanoseconds(_ ns: Int64, by factor: Int64) -> Int64 {
    Int64(1_000_000_000).dividingFullWidth(ns.multipliedFullWidth(by: factor)).quotient
}
