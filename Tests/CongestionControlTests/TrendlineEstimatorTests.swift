import Testing

@testable import CongestionControl

@Suite struct TrendlineEstimatorTests {
    @Test func fitsTheSlopeOfALine() {
        #expect(TrendlineEstimator.linearFitSlope([(0, 1), (1, 3), (2, 5), (3, 7)]) == 2)
        #expect(TrendlineEstimator.linearFitSlope([(5, 1), (5, 3)]) == nil)
    }

    /// Feeds `count` groups sent 33 ms apart that arrive `arrivalDeltaMs` apart.
    private func trend(afterGroups count: Int, arrivalDeltaMs: Double) -> Double {
        var estimator = TrendlineEstimator()
        var arrivalMs = 1_000_000.0
        var trend = 0.0
        for _ in 0..<count {
            arrivalMs += arrivalDeltaMs
            trend = estimator.update(arrivalDeltaMs: arrivalDeltaMs, sendDeltaMs: 33, arrivalTimeMs: arrivalMs)
        }
        return trend
    }

    @Test func steadyDelayHasNoTrend() {
        #expect(trend(afterGroups: 100, arrivalDeltaMs: 33) == 0)
    }

    @Test func growingQueueGivesItsGrowthRate() {
        // Each group arrives 3.3 ms later than the last relative to its send time: the queue
        // grows by 3.3 ms every 36.3 ms of arrival time.
        #expect(abs(trend(afterGroups: 300, arrivalDeltaMs: 36.3) - 3.3 / 36.3) < 1e-6)
    }

    @Test func drainingQueueGivesANegativeTrend() {
        #expect(abs(trend(afterGroups: 300, arrivalDeltaMs: 29.7) + 3.3 / 29.7) < 1e-6)
    }

    @Test func needsAFullWindowBeforeItHasATrend() {
        #expect(trend(afterGroups: TrendlineEstimator.defaultWindowSize - 1, arrivalDeltaMs: 40) == 0)
        #expect(trend(afterGroups: TrendlineEstimator.defaultWindowSize, arrivalDeltaMs: 40) > 0)
    }

    @Test func countsGroupsUpToTheCap() {
        var estimator = TrendlineEstimator()
        for index in 0..<1200 {
            _ = estimator.update(arrivalDeltaMs: 33, sendDeltaMs: 33, arrivalTimeMs: Double(index) * 33)
        }
        #expect(estimator.deltaCount == TrendlineEstimator.maxDeltaCount)
    }
}
