import Testing

@testable import CongestionControl

@Suite struct OveruseDetectorTests {
    @Test func startsNormalWithTheInitialThreshold() {
        let detector = OveruseDetector()
        #expect(detector.state == .normal)
        #expect(detector.thresholdMs == 12.5)
    }

    @Test func overuseNeedsTwoGroupsAboveTheThresholdForMoreThanTenMilliseconds() {
        var detector = OveruseDetector()
        // 60 groups × 0.1 × gain 4 = a modified trend of 24 ms, above 12.5.
        #expect(detector.detect(trend: 0.1, deltaCount: 60, sendDeltaMs: 33, nowMs: 0) == .normal)
        #expect(detector.modifiedTrend == 24)
        #expect(detector.detect(trend: 0.1, deltaCount: 60, sendDeltaMs: 33, nowMs: 33) == .overusing)
    }

    @Test func aFallingTrendIsNotOveruse() {
        var detector = OveruseDetector()
        detector.detect(trend: 0.1, deltaCount: 60, sendDeltaMs: 33, nowMs: 0)
        #expect(detector.detect(trend: 0.09, deltaCount: 60, sendDeltaMs: 33, nowMs: 33) == .normal)
    }

    @Test func aShortOveruseIsNotEnough() {
        var detector = OveruseDetector()
        // 2 ms groups: half of the first plus the second is 3 ms, under 10.
        detector.detect(trend: 0.1, deltaCount: 60, sendDeltaMs: 2, nowMs: 0)
        #expect(detector.detect(trend: 0.1, deltaCount: 60, sendDeltaMs: 2, nowMs: 2) == .normal)
    }

    @Test func aFallingDelayIsUnderuse() {
        var detector = OveruseDetector()
        #expect(detector.detect(trend: -0.1, deltaCount: 60, sendDeltaMs: 33, nowMs: 0) == .underusing)
    }

    @Test func aYoungTrendCountsLess() {
        var detector = OveruseDetector()
        #expect(detector.detect(trend: 0.1, deltaCount: 1, sendDeltaMs: 33, nowMs: 0) == .normal)
        detector.detect(trend: 0.1, deltaCount: 10, sendDeltaMs: 33, nowMs: 33)
        #expect(detector.modifiedTrend == 4)
    }

    @Test func thresholdFallsTowardsASmallTrend() {
        var detector = OveruseDetector()
        detector.detect(trend: 0, deltaCount: 60, sendDeltaMs: 10, nowMs: 0)
        detector.detect(trend: 0, deltaCount: 60, sendDeltaMs: 10, nowMs: 10)
        #expect(abs(detector.thresholdMs - (12.5 - 0.039 * 12.5 * 10)) < 1e-9)
        for step in 2..<100 {
            detector.detect(trend: 0, deltaCount: 60, sendDeltaMs: 10, nowMs: Double(step) * 10)
        }
        #expect(detector.thresholdMs == 6)
    }

    @Test func thresholdRisesSlowlyTowardsALargerTrend() {
        var detector = OveruseDetector()
        // A modified trend of 17.5 ms: above the threshold, within 15 ms of it.
        detector.detect(trend: 17.5 / 240, deltaCount: 60, sendDeltaMs: 10, nowMs: 0)
        detector.detect(trend: 17.5 / 240, deltaCount: 60, sendDeltaMs: 10, nowMs: 10)
        #expect(abs(detector.thresholdMs - (12.5 + 0.0087 * 5 * 10)) < 1e-9)
    }

    @Test func aSpikeDoesNotMoveTheThreshold() {
        var detector = OveruseDetector()
        detector.detect(trend: 0.5, deltaCount: 60, sendDeltaMs: 10, nowMs: 0)
        detector.detect(trend: 0.5, deltaCount: 60, sendDeltaMs: 10, nowMs: 10)
        #expect(detector.thresholdMs == 12.5)
    }

    @Test func thresholdStepsUseAtMostOneHundredMilliseconds() {
        var detector = OveruseDetector()
        detector.detect(trend: 0, deltaCount: 60, sendDeltaMs: 10, nowMs: 0)
        detector.detect(trend: 5.0 / 240, deltaCount: 60, sendDeltaMs: 10, nowMs: 5000)
        #expect(abs(detector.thresholdMs - max(6, 12.5 - 0.039 * 7.5 * 100)) < 1e-9)
    }
}
