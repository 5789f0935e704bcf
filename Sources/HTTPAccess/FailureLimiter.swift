import MediaCore

/// Slows down whoever keeps failing: each address has a `TokenBucket` of failures (a burst,
/// then a steady rate), and an address whose bucket is empty is told to wait (429 with
/// `Retry-After`) before it may try again, right or wrong. Successes cost nothing.
///
/// The table of addresses is bounded: when it is full, addresses whose buckets have refilled are
/// forgotten first (they are as good as new), then the one that failed longest ago. Pure, with
/// the clock passed in.
public struct FailureLimiter: Sendable {
    public let failuresPerSecond: Double
    public let burst: Int
    public let maximumAddresses: Int
    private var entries: [String: Entry] = [:]

    private struct Entry: Sendable {
        var bucket: TokenBucket
        var lastFailureNs: Int64
    }

    /// Ten failures at once, then one every six seconds, for at most 1024 addresses.
    public init(failuresPerSecond: Double = 1.0 / 6, burst: Int = 10, maximumAddresses: Int = 1024) {
        precondition(maximumAddresses >= 1, "a failure limiter needs room for an address")
        self.failuresPerSecond = failuresPerSecond
        self.burst = burst
        self.maximumAddresses = maximumAddresses
    }

    public var addressCount: Int { entries.count }

    /// How long `address` must wait before its next attempt: 0 when it may try now.
    public func waitNs(for address: String, nowNs: Int64) -> Int64 {
        entries[address]?.bucket.waitNs(nowNs: nowNs) ?? 0
    }

    /// Counts a failure against `address`.
    public mutating func recordFailure(from address: String, nowNs: Int64) {
        if entries[address] == nil {
            if entries.count >= maximumAddresses { makeRoom(nowNs: nowNs) }
            entries[address] = Entry(bucket: TokenBucket(ratePerSecond: failuresPerSecond, burst: burst), lastFailureNs: nowNs)
        }
        entries[address]?.lastFailureNs = nowNs
        _ = entries[address]?.bucket.admit(nowNs: nowNs)
    }

    private mutating func makeRoom(nowNs: Int64) {
        let refillNs = Int64((Double(burst) / failuresPerSecond * 1e9).rounded(.up))
        entries = entries.filter { nowNs - $0.value.lastFailureNs < refillNs }
        if entries.count >= maximumAddresses, let oldest = entries.min(by: { $0.value.lastFailureNs < $1.value.lastFailureNs }) {
            entries[oldest.key] = nil
        }
    }
}
