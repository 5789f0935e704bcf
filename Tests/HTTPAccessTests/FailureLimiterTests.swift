import HTTPAccess
import Testing

@Suite struct FailureLimiterTests {
    static let second: Int64 = 1_000_000_000

    @Test func aBurstOfFailuresThenOneEverySixSeconds() {
        var limiter = FailureLimiter()
        for _ in 0..<10 {
            #expect(limiter.waitNs(for: "192.0.2.1", nowNs: 0) == 0)
            limiter.recordFailure(from: "192.0.2.1", nowNs: 0)
        }
        #expect(limiter.waitNs(for: "192.0.2.1", nowNs: 0) == 6 * Self.second)
        #expect(limiter.waitNs(for: "192.0.2.1", nowNs: 4 * Self.second) == 2 * Self.second)
        #expect(limiter.waitNs(for: "192.0.2.1", nowNs: 6 * Self.second) == 0)
        limiter.recordFailure(from: "192.0.2.1", nowNs: 6 * Self.second)
        #expect(limiter.waitNs(for: "192.0.2.1", nowNs: 6 * Self.second) > 0)
        // Another address is not held back.
        #expect(limiter.waitNs(for: "192.0.2.2", nowNs: 0) == 0)
    }

    @Test func theTableIsBoundedForgettingRefilledAddressesFirstThenTheOldest() {
        var limiter = FailureLimiter(failuresPerSecond: 1, burst: 2, maximumAddresses: 3)
        limiter.recordFailure(from: "a", nowNs: 0)
        limiter.recordFailure(from: "b", nowNs: 5 * Self.second)
        limiter.recordFailure(from: "b", nowNs: 5 * Self.second)
        limiter.recordFailure(from: "c", nowNs: 5 * Self.second)
        // At 5 s "a" has refilled (2 tokens at 1/s): it makes room for "d".
        limiter.recordFailure(from: "d", nowNs: 5 * Self.second)
        #expect(limiter.addressCount == 3)
        #expect(limiter.waitNs(for: "b", nowNs: 5 * Self.second) > 0)
        // Nothing has refilled at 5.5 s: the oldest failure ("b"'s, "c"'s or "d"'s, all at 5 s) goes.
        limiter.recordFailure(from: "e", nowNs: 5_500_000_000)
        #expect(limiter.addressCount == 3)
    }
}
