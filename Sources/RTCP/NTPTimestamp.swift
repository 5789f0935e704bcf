import RTP

/// A 64-bit NTP timestamp (RFC 3550 §4): seconds since 1 January 1900 and a binary fraction
/// of a second, as RTCP sender reports carry the wall-clock time.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 seconds since 1900-01-01 00:00 UTC            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 fraction of a second (1 / 2³²)                |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The seconds wrap in 2036 (the start of NTP era 1), which RTCP tolerates by design.
public struct NTPTimestamp: Equatable, Hashable, Sendable {
    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let unixEpochOffsetSeconds: Int64 = 2_208_988_800

    public var seconds: UInt32
    public var fraction: UInt32

    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// From nanoseconds since the Unix epoch, the fraction truncated to 1/2³² s.
    public init(unixTimeNs: Int64) {
        var (wholeSeconds, ns) = unixTimeNs.quotientAndRemainder(dividingBy: 1_000_000_000)
        if ns < 0 {
            wholeSeconds -= 1
            ns += 1_000_000_000
        }
        seconds = UInt32(truncatingIfNeeded: wholeSeconds + Self.unixEpochOffsetSeconds)
        fraction = UInt32((ns << 32) / 1_000_000_000)
    }

    /// Nanoseconds since the Unix epoch, within NTP era 0, truncated.
    public var unixTimeNs: Int64 {
        (Int64(seconds) - Self.unixEpochOffsetSeconds) * 1_000_000_000 + (Int64(fraction) * 1_000_000_000) >> 32
    }

    /// The middle 32 bits, as report blocks echo them in LSR (RFC 3550 §6.4.1).
    public var middle32Bits: UInt32 { seconds << 16 | fraction >> 16 }
}
