import Testing

@testable import CongestionControl

@Suite struct LossBasedBandwidthEstimatorTests {
    private let second: Int64 = 1_000_000_000

    private func makeEstimator() -> LossBasedBandwidthEstimator {
        LossBasedBandwidthEstimator(startBitrateBps: 1_000_000, minBitrateBps: 30_000, maxBitrateBps: 10_000_000)
    }

    @Test func lowLossRaisesTheRateEightPercentASecond() {
        var estimator = makeEstimator()
        var expectedBps = 1_000_000.0
        for step in 0..<5 {
            estimator.updatePacketsLost(lost: 0, expected: 100, nowNs: Int64(step) * second)
            expectedBps = (expectedBps * 1.08).rounded() + 1000
            #expect(estimator.targetBps == expectedBps)
            // Ticks within the second do not compound the increase.
            estimator.updateEstimate(nowNs: Int64(step) * second + 500_000_000)
            #expect(estimator.targetBps == expectedBps)
        }
    }

    @Test func moderateLossHolds() {
        var estimator = makeEstimator()
        for step in 0..<5 {
            estimator.updatePacketsLost(lost: 5, expected: 100, nowNs: Int64(step) * second)
            estimator.updateEstimate(nowNs: Int64(step) * second + 500_000_000)
        }
        #expect(estimator.targetBps == 1_000_000)
        #expect(estimator.lossFraction == 12.0 / 256)
    }

    @Test func highLossCutsByHalfTheLossOncePerReport() {
        var estimator = makeEstimator()
        estimator.updatePacketsLost(lost: 20, expected: 100, nowNs: 0)
        let q8 = 20 * 256 / 100
        #expect(estimator.targetBps == 1_000_000 * Double(512 - q8) / 512)
        estimator.updateEstimate(nowNs: second)
        #expect(estimator.targetBps == 1_000_000 * Double(512 - q8) / 512)
        estimator.updatePacketsLost(lost: 20, expected: 100, nowNs: 2 * second)
        #expect(estimator.targetBps == 1_000_000 * Double(512 - q8) / 512 * Double(512 - q8) / 512)
    }

    @Test func highLossCutsAtMostOncePerDecreaseIntervalAndRTT() {
        var estimator = makeEstimator()
        estimator.rttNs = 200_000_000
        estimator.updatePacketsLost(lost: 20, expected: 100, nowNs: 0)
        let afterFirstCut = estimator.targetBps
        estimator.updatePacketsLost(lost: 20, expected: 100, nowNs: 400_000_000)
        #expect(estimator.targetBps == afterFirstCut)
        estimator.updatePacketsLost(lost: 20, expected: 100, nowNs: 500_000_000)
        #expect(estimator.targetBps < afterFirstCut)
    }

    /// A path that loses 5 % whatever the rate, then one report of a burst (an outage): the
    /// cut is taken back at 8 % a second while the loss stays at the path's 5 %, up to the rate
    /// before the cut and no further.
    @Test func aCutThatDidNotLowerTheLossIsTakenBack() {
        var estimator = makeEstimator()
        for step in 0..<4 { estimator.updatePacketsLost(lost: 5, expected: 100, nowNs: Int64(step) * second) }
        #expect(estimator.targetBps == 1_000_000)
        estimator.updatePacketsLost(lost: 60, expected: 100, nowNs: 4 * second)
        let cut = estimator.targetBps
        #expect(cut < 800_000)
        var expectedBps = cut
        for step in 5..<12 {
            estimator.updatePacketsLost(lost: 5, expected: 100, nowNs: Int64(step) * second)
            expectedBps = min((expectedBps * 1.08).rounded() + 1000, 1_000_000)
            #expect(estimator.targetBps == expectedBps)
        }
        #expect(estimator.targetBps == 1_000_000)
        #expect(estimator.recovery == nil)
        for step in 12..<15 { estimator.updatePacketsLost(lost: 5, expected: 100, nowNs: Int64(step) * second) }
        #expect(estimator.targetBps == 1_000_000)
    }

    /// Loss that came with the cut and stays (the path was clean before) is ours: the lower
    /// rate holds, as in v1.
    @Test func aCutAfterACleanPathHoldsWhileTheLossStays() {
        var estimator = makeEstimator()
        estimator.setDelayBasedLimit(1_000_000)
        for step in 0..<4 { estimator.updatePacketsLost(lost: 0, expected: 100, nowNs: Int64(step) * second) }
        estimator.updatePacketsLost(lost: 60, expected: 100, nowNs: 4 * second)
        let cut = estimator.targetBps
        for step in 5..<10 { estimator.updatePacketsLost(lost: 5, expected: 100, nowNs: Int64(step) * second) }
        #expect(estimator.targetBps == cut)
    }

    /// The way back stops where the loss grows past what the path lost before the cut.
    @Test func takingACutBackStopsWhenTheLossGrows() {
        var estimator = makeEstimator()
        for step in 0..<4 { estimator.updatePacketsLost(lost: 4, expected: 100, nowNs: Int64(step) * second) }
        estimator.updatePacketsLost(lost: 60, expected: 100, nowNs: 4 * second)
        estimator.updatePacketsLost(lost: 4, expected: 100, nowNs: 5 * second)
        let climbed = estimator.targetBps
        estimator.updatePacketsLost(lost: 8, expected: 100, nowNs: 6 * second)
        #expect(estimator.targetBps == climbed)
        #expect(estimator.recovery != nil)
    }

    @Test func smallReportsAccumulateToTwentyPackets() {
        var estimator = makeEstimator()
        estimator.updatePacketsLost(lost: 5, expected: 10, nowNs: 0)
        #expect(estimator.lossFraction == 0)
        estimator.updatePacketsLost(lost: 0, expected: 10, nowNs: second)
        #expect(estimator.lossFraction == 64.0 / 256)
    }

    @Test func followsTheDelayBasedEstimateDuringStartUp() {
        var estimator = makeEstimator()
        estimator.setDelayBasedLimit(2_500_000)
        estimator.updateEstimate(nowNs: 0)
        #expect(estimator.targetBps == 2_500_000)
    }

    @Test func isCappedByTheDelayBasedEstimateAndTheReceiver() {
        var estimator = makeEstimator()
        estimator.setDelayBasedLimit(800_000)
        #expect(estimator.targetBps == 800_000)
        estimator.setReceiverLimit(500_000)
        #expect(estimator.targetBps == 500_000)
        estimator.updatePacketsLost(lost: 0, expected: 100, nowNs: 3 * second)
        #expect(estimator.targetBps == 500_000)
    }

    @Test func aProbeResultReplacesTheTarget() {
        var estimator = makeEstimator()
        estimator.setDelayBasedLimit(800_000)
        estimator.setSendBitrate(3_000_000)
        #expect(estimator.targetBps == 3_000_000)
    }

    @Test func neverGoesBelowTheMinimum() {
        var estimator = makeEstimator()
        estimator.setDelayBasedLimit(1000)
        #expect(estimator.targetBps == 30_000)
    }
}
