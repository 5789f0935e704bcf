import Testing
import MediaCore

@Suite struct TokenBucketTests {
    static let ms: Int64 = 1_000_000

    @Test func aBurstPassesThenTheRestIsRefused() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        let admitted = (0..<1_000).filter { _ in admit(atNs: 0) }.count
        #expect(admitted == 200)
    }

    @Test func tokensComeBackAtTheRate() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        for _ in 0..<200 { _ = admit(atNs: 0) }
        #expect(!admit(atNs: 1 * Self.ms - 1))
        let admitted = (0..<100).filter { _ in admit(atNs: 10 * Self.ms) }.count
        #expect(admitted == 10)
    }

    /// A flood of 20 000 datagrams per second for two seconds: what passes is the burst plus the
    /// rate, not the flood.
    @Test func aSustainedFloodIsCutToTheRate() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        var admitted = 0
        for index in Int64(0)..<40_000 where admit(atNs: index * 50_000) { admitted += 1 }
        #expect(admitted >= 2_000)
        #expect(admitted <= 2_200)
    }

    @Test func anIdleBucketHoldsNoMoreThanItsBurst() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(admit(atNs: 0))
        let admitted = (0..<1_000).filter { _ in admit(atNs: 10_000 * Self.ms) }.count
        #expect(admitted == 200)
    }

    @Test func aPartlyUsedBucketRefillsOnlyToItsBurst() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(admit(atNs: 0))
        // 100 ms bring 100 tokens, of which one fits.
        let admitted = (0..<1_000).filter { _ in admit(atNs: 100 * Self.ms) }.count
        #expect(admitted == 200)
    }

    @Test func aYearWithoutFeedbackRefillsTheBucketOnce() {
        var bucket = TokenBucket(ratePerSecond: 1_000, burst: 200)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(admit(atNs: 0))
        let yearNs: Int64 = 365 * 86_400 * 1_000 * Self.ms
        let admitted = (0..<1_000).filter { _ in admit(atNs: yearNs) }.count
        #expect(admitted == 200)
        #expect(!admit(atNs: yearNs + 1 * Self.ms - 1))
        #expect(admit(atNs: yearNs + 1 * Self.ms))
    }

    @Test func ratesThatDoNotDivideASecondKeepTheirPace() {
        // One token every 333.33 ms: thirty in ten seconds, the rounding never adding up.
        var bucket = TokenBucket(ratePerSecond: 3, burst: 2)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(admit(atNs: 0))
        #expect(admit(atNs: 0))
        #expect(!admit(atNs: 333 * Self.ms))
        #expect(admit(atNs: 334 * Self.ms))
        var admitted = 1
        for tick in Int64(335)...10_000 where admit(atNs: tick * Self.ms) { admitted += 1 }
        #expect(admitted == 30)
    }

    @Test func aClockThatStepsBackGivesNothingBack() {
        var bucket = TokenBucket(ratePerSecond: 10, burst: 1)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        let times: [Int64] = [1_000 * Self.ms, 500 * Self.ms, 1_050 * Self.ms, 1_100 * Self.ms]
        #expect(times.map(admit(atNs:)) == [true, false, false, true])
    }

    @Test func slowRatesWork() {
        // One token every 100 s.
        var bucket = TokenBucket(ratePerSecond: 0.01, burst: 1)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(admit(atNs: 0))
        #expect(!admit(atNs: 99_999 * Self.ms))
        #expect(admit(atNs: 100_000 * Self.ms))
    }

    /// What a refused client is told to wait (Retry-After): admitted exactly then, not before.
    @Test func theWaitIsUntilTheNextToken() {
        var bucket = TokenBucket(ratePerSecond: 3, burst: 2)
        func admit(atNs nowNs: Int64) -> Bool { bucket.admit(nowNs: nowNs) }
        #expect(bucket.waitNs(nowNs: 0) == 0)
        #expect(admit(atNs: 0))
        #expect(admit(atNs: 0))
        let waitNs = bucket.waitNs(nowNs: 100 * Self.ms)
        #expect(waitNs == 333_333_334 - 100 * Self.ms)
        #expect(!admit(atNs: 100 * Self.ms + waitNs - 1))
        #expect(admit(atNs: 100 * Self.ms + waitNs))
        #expect(bucket.waitNs(nowNs: 100 * Self.ms + waitNs) > 0)
    }
}
