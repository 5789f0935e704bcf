import Testing
@testable import RTPSession

@Suite struct RepairShareTests {
    static let ms: Int64 = 1_000_000

    @Test func theShareIsOfTheLastSecondsBytes() {
        var share = RepairShare()
        #expect(share.share(atNs: 0) == 0, "nothing sent, nothing to take")
        for timeMs in stride(from: Int64(0), to: 1_000, by: 10) {
            share.record(bytes: 900, isRepair: false, atNs: timeMs * Self.ms)
            share.record(bytes: 100, isRepair: true, atNs: timeMs * Self.ms)
        }
        #expect(abs(share.share(atNs: 999 * Self.ms) - 0.1) < 1e-9)
        // A second later only what was sent since counts: repairs alone, capped at a half.
        share.record(bytes: 500, isRepair: true, atNs: 1_950 * Self.ms)
        #expect(share.share(atNs: 1_950 * Self.ms) == RepairShare.maximumShare)
        #expect(share.share(atNs: 5_000 * Self.ms) == 0, "a quiet second empties the window")
    }

    @Test func aLongGapClearsEveryBucketOnce() {
        var share = RepairShare()
        share.record(bytes: 1_000, isRepair: true, atNs: 50 * Self.ms)
        share.record(bytes: 1_000, isRepair: false, atNs: 3_600_000 * Self.ms)
        #expect(share.share(atNs: 3_600_000 * Self.ms) == 0)
    }
}

@Suite struct RecentLossTests {
    static let ms: Int64 = 1_000_000

    @Test func keepsTheHighestOfTenSeconds() {
        var loss = RecentLoss()
        loss.record(0.08, atNs: 0)
        for second in Int64(1)...10 { loss.record(0.01, atNs: second * 1_000 * Self.ms) }
        #expect(loss.maximum == 0.08, "ten seconds after the burst it still counts")
        loss.record(0.01, atNs: 10_001 * Self.ms)
        #expect(loss.maximum == 0.01, "and then it is gone")
    }

    @Test func samplesCloserThanHalfASecondShareOneSlot() {
        var loss = RecentLoss()
        for timeMs in Int64(0)..<2_000 { loss.record(timeMs == 1_234 ? 0.2 : 0, atNs: timeMs * Self.ms) }
        #expect(loss.maximum == 0.2)
    }
}
