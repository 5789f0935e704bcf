import CongestionControl
import Testing

/// The controller through its public API, as the send loop will drive it.
@Suite struct CongestionControllerTests {
    private let ms: Int64 = 1_000_000

    /// Sends `count` 1000-byte packets 10 ms apart from `firstSequenceNumber` and reports them
    /// all received 20 ms later, 10 ms apart, in one feedback message.
    private func sendAndAcknowledge(
        _ controller: inout CongestionController, firstSequenceNumber: Int64, count: Int64, startNs: Int64,
        kind: PacketKind = .media
    ) -> NetworkControlUpdate {
        var reports: [TransportFeedback.PacketReport] = []
        for index in 0..<count {
            let sequenceNumber = firstSequenceNumber + index
            let sendTimeNs = startNs + index * 10 * ms
            controller.onPacketSent(
                SentPacket(sequenceNumber: sequenceNumber, sendTimeNs: sendTimeNs, sizeBytes: 1000, kind: kind))
            reports.append(
                TransportFeedback.PacketReport(sequenceNumber: sequenceNumber, receiveTimeNs: 5_000 * ms + sendTimeNs))
        }
        let feedbackTimeNs = startNs + count * 10 * ms + 20 * ms
        return controller.onTransportFeedback(TransportFeedback(feedbackTimeNs: feedbackTimeNs, packets: reports))
    }

    @Test func startsAtTheStartRatePacedAtTwoAndAHalfTimesWithTwoProbes() throws {
        var controller = CongestionController()
        let update = controller.start(nowNs: 0)
        let estimate = try #require(update.estimate)
        #expect(estimate.targetBitrateBps == 300_000)
        #expect(estimate.encoderBitrateBps == 300_000)
        #expect(estimate.pacingRateBps == 750_000)
        #expect(estimate.paddingRateBps == 0)
        #expect(estimate.congestionWindowBytes == nil)
        #expect(update.probeClusters.map(\.bitrateBps) == [900_000, 1_800_000])
        #expect(update.trace?.event == .start)
    }

    @Test func pacesAtTheConfiguredFactorOnceTransportFeedbackArrives() throws {
        var controller = CongestionController(configuration: CongestionControllerConfiguration(pacingFactor: 1.1))
        _ = controller.start(nowNs: 0)
        let update = sendAndAcknowledge(&controller, firstSequenceNumber: 0, count: 10, startNs: 0)
        let estimate = try #require(update.estimate)
        #expect(estimate.pacingRateBps == Int64(Double(estimate.targetBitrateBps) * 1.1))
        #expect(estimate.congestionWindowBytes != nil)
        #expect(update.trace?.event == .feedback)
    }

    @Test func feedbackForUnknownPacketsChangesNothing() {
        var controller = CongestionController()
        _ = controller.start(nowNs: 0)
        let feedback = TransportFeedback(
            feedbackTimeNs: 100 * ms, packets: [TransportFeedback.PacketReport(sequenceNumber: 99, receiveTimeNs: 0)])
        let update = controller.onTransportFeedback(feedback)
        #expect(update.estimate == nil)
        #expect(update.trace == nil)
        #expect(controller.estimate.pacingRateBps == 750_000)
    }

    @Test func countsBytesInFlightUntilFeedback() {
        var controller = CongestionController()
        _ = controller.start(nowNs: 0)
        for sequenceNumber in Int64(0)..<3 {
            controller.onPacketSent(
                SentPacket(sequenceNumber: sequenceNumber, sendTimeNs: sequenceNumber * ms, sizeBytes: 1000))
        }
        _ = controller.onRoundTripTime(50 * ms, nowNs: 3 * ms)
        #expect(controller.estimate.bytesInFlight == 3000)
    }

    @Test func rembCapsTheTargetUntilRaised() throws {
        var controller = CongestionController(
            configuration: CongestionControllerConfiguration(startBitrateBps: 1_000_000))
        _ = controller.start(nowNs: 0)
        let capped = controller.onReceiverEstimatedMaximumBitrate(400_000, nowNs: 10 * ms)
        #expect(capped.estimate?.targetBitrateBps == 400_000)
        #expect(capped.trace?.receiverLimitBps == 400_000)
        // Without loss the target stays at the cap; once the cap is lifted, it grows again.
        _ = controller.onReceiverReportLoss(lostPackets: 0, expectedPackets: 100, nowNs: 1000 * ms)
        #expect(controller.estimate.targetBitrateBps == 400_000)
        _ = controller.onReceiverEstimatedMaximumBitrate(0, nowNs: 2000 * ms)
        let raised = controller.onReceiverReportLoss(lostPackets: 0, expectedPackets: 100, nowNs: 3000 * ms)
        #expect(try #require(raised.estimate).targetBitrateBps == 400_000 * 108 / 100 + 1000)
        #expect(raised.trace?.receiverLimitBps == nil)
    }

    @Test func receiverReportLossRulesWithoutTransportFeedback() throws {
        var controller = CongestionController(
            configuration: CongestionControllerConfiguration(startBitrateBps: 1_000_000))
        _ = controller.start(nowNs: 0)
        let update = controller.onReceiverReportLoss(lostPackets: 30, expectedPackets: 100, nowNs: 1000 * ms)
        // 30 % loss: × (1 − 0.15), as libwebrtc computes it in 1/256.
        let estimate = try #require(update.estimate)
        #expect(estimate.targetBitrateBps == 1_000_000 * (512 - 76) / 512)
        #expect(estimate.lossFraction == 76.0 / 256)
    }

    @Test func receiverReportLossIsIgnoredOnceTransportFeedbackCountsLoss() {
        var controller = CongestionController(
            configuration: CongestionControllerConfiguration(startBitrateBps: 1_000_000))
        _ = controller.start(nowNs: 0)
        _ = sendAndAcknowledge(&controller, firstSequenceNumber: 0, count: 10, startNs: 0)
        let before = controller.estimate.targetBitrateBps
        _ = controller.onReceiverReportLoss(lostPackets: 50, expectedPackets: 100, nowNs: 200 * ms)
        #expect(controller.estimate.targetBitrateBps == before)
        #expect(controller.estimate.lossFraction == 0)
    }

    @Test func theEncoderGivesUpWhatRetransmissionsTake() {
        var controller = CongestionController(
            configuration: CongestionControllerConfiguration(startBitrateBps: 1_000_000))
        _ = controller.start(nowNs: 0)
        // 100 kbit/s of retransmissions over the last second.
        for index in Int64(0)..<10 {
            controller.onPacketSent(
                SentPacket(sequenceNumber: index, sendTimeNs: index * 100 * ms, sizeBytes: 1250, kind: .retransmission))
        }
        let estimate = controller.onRoundTripTime(50 * ms, nowNs: 950 * ms).estimate
        #expect(estimate?.targetBitrateBps == 1_000_000)
        #expect(estimate?.encoderBitrateBps == 900_000)
    }

    @Test func retransmissionsNeverTakeMoreThanHalf() {
        var controller = CongestionController(
            configuration: CongestionControllerConfiguration(startBitrateBps: 100_000))
        _ = controller.start(nowNs: 0)
        for index in Int64(0)..<100 {
            controller.onPacketSent(
                SentPacket(sequenceNumber: index, sendTimeNs: index * ms, sizeBytes: 1200, kind: .retransmission))
        }
        #expect(controller.onRoundTripTime(50 * ms, nowNs: 100 * ms).estimate?.encoderBitrateBps == 50_000)
    }

    @Test func aQuietTickReportsNothing() {
        var controller = CongestionController()
        _ = controller.start(nowNs: 0)
        let update = controller.process(nowNs: 25 * ms)
        #expect(update.estimate == nil)
        #expect(update.trace == nil)
        #expect(update.probeClusters.isEmpty)
    }

    @Test func staysWithinTheConfiguredBounds() {
        let configuration = CongestionControllerConfiguration(
            startBitrateBps: 50_000_000, minBitrateBps: 100_000, maxBitrateBps: 2_000_000)
        #expect(configuration.startBitrateBps == 2_000_000)
        var controller = CongestionController(configuration: configuration)
        _ = controller.start(nowNs: 0)
        #expect(
            controller.onReceiverReportLoss(lostPackets: 100, expectedPackets: 100, nowNs: ms).estimate?
                .targetBitrateBps ?? 0 >= 100_000)
        #expect(controller.estimate.targetBitrateBps <= 2_000_000)
    }
}
