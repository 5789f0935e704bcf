import TestSupport
import Testing
@testable import RTPSession

@Suite struct RTCPReportScheduleTests {
    static let ms: Int64 = 1_000_000

    @Test func noReportBeforeMedia() {
        var schedule = RTCPReportSchedule(random: SplitMix64(state: 1))
        func takeDueReport(atNs nowNs: Int64) -> Bool { schedule.takeDueReport(nowNs: nowNs) }
        #expect(schedule.nextReportNs == nil)
        for nowNs in [0, 1_000 * Self.ms, 60_000 * Self.ms] {
            #expect(!takeDueReport(atNs: nowNs))
        }
    }

    @Test func theFirstReportGoesWithTheFirstMedia() {
        var schedule = RTCPReportSchedule(random: SplitMix64(state: 1))
        func takeDueReport(atNs nowNs: Int64) -> Bool { schedule.takeDueReport(nowNs: nowNs) }
        schedule.mediaStarted(atNs: 5_000 * Self.ms)
        #expect(schedule.nextReportNs == 5_000 * Self.ms)
        // More media does not push the report back.
        schedule.mediaStarted(atNs: 5_040 * Self.ms)
        #expect(schedule.nextReportNs == 5_000 * Self.ms)
        #expect(!takeDueReport(atNs: 5_000 * Self.ms - 1))
        #expect(takeDueReport(atNs: 5_040 * Self.ms))
        #expect(!takeDueReport(atNs: 5_040 * Self.ms), "one report per due time")
        schedule.mediaStarted(atNs: 5_080 * Self.ms)
        #expect(schedule.nextReportNs.map { $0 >= 5_540 * Self.ms } == true)
    }

    @Test(arguments: [1, 42, 0xDEAD_BEEF] as [UInt64])
    func intervalsAreDrawnFromHalfToOneAndAHalfSeconds(seed: UInt64) throws {
        var schedule = RTCPReportSchedule(random: SplitMix64(state: seed))
        func takeDueReport(atNs nowNs: Int64) -> Bool { schedule.takeDueReport(nowNs: nowNs) }
        schedule.mediaStarted(atNs: 0)
        var intervalsNs: [Int64] = []
        var nowNs: Int64 = 0
        for _ in 0..<1_000 {
            #expect(takeDueReport(atNs: nowNs))
            let nextNs = try #require(schedule.nextReportNs)
            #expect(!takeDueReport(atNs: nextNs - 1))
            intervalsNs.append(nextNs - nowNs)
            nowNs = nextNs
        }
        #expect(intervalsNs.allSatisfy { (500 * Self.ms)...(1_500 * Self.ms) ~= $0 })
        // Spread over the whole range, one second on average: not a fixed interval.
        #expect(try #require(intervalsNs.min()) < 550 * Self.ms)
        #expect(try #require(intervalsNs.max()) > 1_450 * Self.ms)
        let meanNs = intervalsNs.reduce(0, +) / Int64(intervalsNs.count)
        #expect(abs(meanNs - 1_000 * Self.ms) < 50 * Self.ms)
    }

    @Test func theSameSeedGivesTheSameSchedule() {
        func schedule(seed: UInt64) -> [Int64?] {
            var schedule = RTCPReportSchedule(random: SplitMix64(state: seed))
            schedule.mediaStarted(atNs: 0)
            return (0..<10).map { _ in
                _ = schedule.takeDueReport(nowNs: schedule.nextReportNs ?? 0)
                return schedule.nextReportNs
            }
        }
        #expect(schedule(seed: 7) == schedule(seed: 7))
        #expect(schedule(seed: 7) != schedule(seed: 8))
    }

    @Test func aLateWakeUpSchedulesFromNow() throws {
        var schedule = RTCPReportSchedule(random: SplitMix64(state: 3))
        schedule.mediaStarted(atNs: 0)
        let isDue = schedule.takeDueReport(nowNs: 3_000 * Self.ms)
        #expect(isDue)
        let nextNs = try #require(schedule.nextReportNs)
        #expect(nextNs >= 3_500 * Self.ms && nextNs <= 4_500 * Self.ms)
    }
}
