import StreamControl
import Testing

@Suite struct CommandRateLimiterTests {
    static func admissions(_ limiter: inout CommandRateLimiter, at times: [Int64]) -> [Bool] {
        times.map { limiter.admit(nowNs: $0) }
    }

    @Test func aBurstPassesThenTheRateHolds() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 3)
        let start: Int64 = 5_000_000_000
        // One token comes back every 100 ms.
        let times = [start, start, start, start, start + 99_000_000, start + 100_000_000, start + 150_000_000]
        #expect(Self.admissions(&limiter, at: times) == [true, true, true, false, false, true, false])
    }

    @Test func anIdleLimiterRefillsOnlyToItsBurst() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 2)
        let later: Int64 = 60_000_000_000
        #expect(Self.admissions(&limiter, at: [0, 0, later, later, later]) == [true, true, true, true, false])
    }

    @Test func aClockThatStepsBackGivesNothingBack() {
        var limiter = CommandRateLimiter(commandsPerSecond: 10, burst: 1)
        let times: [Int64] = [1_000_000_000, 500_000_000, 1_050_000_000, 1_100_000_000]
        #expect(Self.admissions(&limiter, at: times) == [true, false, false, true])
    }
}
