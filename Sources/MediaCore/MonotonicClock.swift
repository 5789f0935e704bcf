#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: the clock every `timestampNs` in camrtp is on.
public enum MonotonicClock {
    public static func nowNs() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Sleeps until the clock reads `deadlineNs`; returns at once if it already has.
    public static func sleep(untilNs deadlineNs: Int64) {
        while true {
            let remaining = deadlineNs - nowNs()
            guard remaining > 0 else { return }
            var request = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
