import Testing

@testable import CongestionControl

@Suite struct ProbeControllerTests {
    private let second: Int64 = 1_000_000_000

    @Test func probesThreeAndSixTimesTheStartRateOnce() {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        let clusters = controller.start(nowNs: 0)
        #expect(clusters.map(\.bitrateBps) == [900_000, 1_800_000])
        #expect(clusters.map(\.minPackets) == [5, 5])
        #expect(clusters.map(\.minBytes) == [1687, 3375])
        #expect(Set(clusters.map(\.id)).count == 2)
        #expect(controller.start(nowNs: 0).isEmpty)
    }

    @Test func probesFurtherAtTwiceASuccessfulResult() {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        _ = controller.start(nowNs: 0)
        #expect(controller.setEstimatedBitrate(1_200_000, nowNs: 100_000_000).isEmpty)
        let further = controller.setEstimatedBitrate(1_700_000, nowNs: 200_000_000)
        #expect(further.map(\.bitrateBps) == [3_400_000])
        // 3.4 Mbit/s came back as 2 Mbit/s: below 70 %, the search ends.
        #expect(controller.setEstimatedBitrate(2_000_000, nowNs: 300_000_000).isEmpty)
    }

    @Test func stopsWaitingForAResultAfterASecond() {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        _ = controller.start(nowNs: 0)
        _ = controller.process(nowNs: 1_100_000_000, lossFraction: 0)
        #expect(controller.state == .complete)
        #expect(controller.setEstimatedBitrate(1_700_000, nowNs: 1_200_000_000).isEmpty)
    }

    @Test func neverProbesAboveTheMaximumOrTheReceiverLimit() {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 1_000_000)
        #expect(controller.start(nowNs: 0).map(\.bitrateBps) == [900_000, 1_000_000])
        #expect(controller.state == .complete)

        var limited = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        limited.receiverLimitBps = 500_000
        #expect(limited.start(nowNs: 0).map(\.bitrateBps) == [500_000, 500_000])
    }

    /// A controller that settled at 2 Mbit/s, then saw the estimate fall to 1 Mbit/s at 10 s.
    private func afterLargeDrop() -> ProbeController {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        _ = controller.start(nowNs: 0)
        _ = controller.process(nowNs: 2 * second, lossFraction: 0)
        _ = controller.setEstimatedBitrate(2_000_000, nowNs: 9 * second)
        _ = controller.setEstimatedBitrate(1_000_000, nowNs: 10 * second)
        return controller
    }

    @Test func probesForTheLostCapacityFromFiveSecondsAfterALargeDrop() {
        var controller = afterLargeDrop()
        #expect(controller.process(nowNs: 14 * second, lossFraction: 0).isEmpty)
        #expect(controller.process(nowNs: 15 * second, lossFraction: 0).map(\.bitrateBps) == [1_700_000])
        #expect(controller.process(nowNs: 17 * second, lossFraction: 0).isEmpty)
        #expect(controller.process(nowNs: 20 * second, lossFraction: 0).map(\.bitrateBps) == [1_700_000])
    }

    @Test func aSawtoothIsNotALargeDrop() {
        var controller = ProbeController(startBitrateBps: 300_000, maxBitrateBps: 10_000_000)
        _ = controller.start(nowNs: 0)
        _ = controller.setEstimatedBitrate(2_000_000, nowNs: 9 * second)
        _ = controller.setEstimatedBitrate(1_700_000, nowNs: 10 * second)
        #expect(controller.process(nowNs: 15 * second, lossFraction: 0).isEmpty)
    }

    @Test func noRecoveryProbeUnderLossOrOnceRecovered() {
        var lossy = afterLargeDrop()
        #expect(lossy.process(nowNs: 15 * second, lossFraction: 0.05).isEmpty)

        var recovered = afterLargeDrop()
        _ = recovered.setEstimatedBitrate(1_650_000, nowNs: 12 * second)
        #expect(recovered.process(nowNs: 15 * second, lossFraction: 0).isEmpty)
    }

    @Test func givesUpOnTheLostCapacityAfterAMinute() {
        var controller = afterLargeDrop()
        #expect(controller.process(nowNs: 71 * second, lossFraction: 0).isEmpty)
        #expect(controller.process(nowNs: 80 * second, lossFraction: 0).isEmpty)
    }
}
