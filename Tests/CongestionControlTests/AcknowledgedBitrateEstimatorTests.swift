import Testing

@testable import CongestionControl

@Suite struct AcknowledgedBitrateEstimatorTests {
    /// Feeds 1250-byte packets at `bitrateBps` from `startNs` for `durationNs`.
    private func feed(
        _ estimator: inout AcknowledgedBitrateEstimator, bitrateBps: Int64, startNs: Int64, durationNs: Int64
    ) {
        let intervalNs = 1250 * 8 * 1_000_000_000 / bitrateBps
        var timeNs = startNs
        while timeNs < startNs + durationNs {
            estimator.update(receiveTimeNs: timeNs, sizeBytes: 1250)
            timeNs += intervalNs
        }
    }

    @Test func measuresASteadyRate() {
        var estimator = AcknowledgedBitrateEstimator()
        feed(&estimator, bitrateBps: 1_000_000, startNs: 0, durationNs: 400_000_000)
        #expect(estimator.bitrateBps == nil)
        feed(&estimator, bitrateBps: 1_000_000, startNs: 400_000_000, durationNs: 1_600_000_000)
        #expect(abs((estimator.bitrateBps ?? 0) - 1_000_000) < 20_000)
    }

    @Test func aSingleBurstMovesTheEstimateLittle() {
        var estimator = AcknowledgedBitrateEstimator()
        feed(&estimator, bitrateBps: 1_000_000, startNs: 0, durationNs: 2_000_000_000)
        feed(&estimator, bitrateBps: 3_000_000, startNs: 2_000_000_000, durationNs: 150_000_000)
        feed(&estimator, bitrateBps: 1_000_000, startNs: 2_150_000_000, durationNs: 160_000_000)
        #expect(abs((estimator.bitrateBps ?? 0) - 1_000_000) < 100_000)
    }
}
