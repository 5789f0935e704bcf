import StreamControl
import Testing

@Suite struct CommandRateLimiterTests {
    @Test func aBurstPassesThenTheRateHolds() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 3)
        let start: Int64 = 5_000_000_000
        #expect((0..<3).allSatisfy { _ in limiter.admit(nowNs: start) })
        #expect(!limiter.admit(nowNs: start))
        // One token comes back every 100 ms.
        #expect(!limiter.admit(nowNs: start + 99_000_000))
        #expect(limiter.admit(nowNs: start + 100_000_000))
        #expect(!limiter.admit(nowNs: start + 150_000_000))
    }

    @Test func anIdleLimiterRefillsOnlyToItsBurst() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 2)
        #expect(limiter.admit(nowNs: 0) && limiter.admit(nowNs: 0))
        let later: Int64 = 60_000_000_000
        #expect(limiter.admit(nowNs: later) && limiter.admit(nowNs: later))
        #expect(!limiter.admit(nowNs: later))
    }

    @Test func aClockThatStepsBackGivesNothingBack() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 1)
        #expect(limiter.admit(nowNs: 1_000_000_000))
        #expect(!limiter.admit(nowNs: 500_000_000))
        #expect(!limiter.admit(nowNs: 1_050_000_000))
        #expect(limiter.admit(nowNs: 1_100_000_000))
    }
}
