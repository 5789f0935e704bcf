import Testing

@testable import CongestionControl

@Suite struct ProbeBitrateEstimatorTests {
    private let ms: Int64 = 1_000_000
    private let cluster = ProbeCluster(id: 7, bitrateBps: 2_000_000, minPackets: 5, minBytes: 3750, createdAtNs: 0)

    /// Five 1000-byte probes sent 4 ms apart (2 Mbit/s), received `receiveSpacingMs` apart.
    private func estimate(receiveSpacingMs: Int64, count: Int = 5) -> ProbeBitrateEstimator.Result? {
        var estimator = ProbeBitrateEstimator()
        var result: ProbeBitrateEstimator.Result?
        for index in 0..<Int64(count) {
            result = estimator.handle(
                cluster: cluster, sendTimeNs: index * 4 * ms, receiveTimeNs: 50 * ms + index * receiveSpacingMs * ms,
                sizeBytes: 1000)
        }
        return result
    }

    @Test func aSaturatedPathGivesNinetyFivePercentOfItsReceiveRate() {
        let result = estimate(receiveSpacingMs: 8)
        #expect(result == ProbeBitrateEstimator.Result(bitrateBps: 0.95 * 1_000_000, capacityBps: 1_000_000))
    }

    @Test func anUnsaturatedPathGivesTheProbeRate() {
        #expect(estimate(receiveSpacingMs: 4) == ProbeBitrateEstimator.Result(bitrateBps: 2_000_000, capacityBps: nil))
    }

    @Test func needsMostOfTheCluster() {
        #expect(estimate(receiveSpacingMs: 8, count: 3) == nil)
    }

    @Test func rejectsAReceiveRateFarAboveTheSendRate() {
        #expect(estimate(receiveSpacingMs: 1) == nil)
    }

    @Test func handsOutAResultOnce() {
        var estimator = ProbeBitrateEstimator()
        for index in 0..<Int64(5) {
            estimator.handle(
                cluster: cluster, sendTimeNs: index * 4 * ms, receiveTimeNs: index * 4 * ms, sizeBytes: 1000)
        }
        #expect(estimator.takeResult() != nil)
        #expect(estimator.takeResult() == nil)
    }
}
