import MediaCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock (NTP, RFC 3550 §4) times for instants on the monotonic clock camrtp runs on,
/// through one offset read when the clock is made: every time derived from it (sender reports,
/// capture times) agrees with every other, and a wall clock stepped later does not make them jump.
public struct NTPClock: Sendable, Equatable {
    /// Unix time minus monotonic time, in nanoseconds.
    public let offsetNs: Int64

    /// The clock that puts `monotonicNs` at `unixTimeNs`.
    public init(monotonicNs: Int64, unixTimeNs: Int64) {
        offsetNs = unixTimeNs - monotonicNs
    }

    /// `CLOCK_REALTIME` against `CLOCK_MONOTONIC`, now.
    public static func system() -> NTPClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return NTPClock(monotonicNs: MonotonicClock.nowNs(), unixTimeNs: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    public func timestamp(atMonotonicNs monotonicNs: Int64) -> NTPTimestamp {
        NTPTimestamp(unixTimeNs: monotonicNs + offsetNs)
    }
}
