import CongestionControl
import Pacing
import RTCP
import TestSupport
import Testing

@testable import RTPSession

/// A padding probe fills the path up to a rate and fails at the first losses beyond noise: what
/// `serve` asks of a viewer's sender before moving the viewer up to a larger encoding.
@Suite struct PaddingProbeTests {
    static func reports(from first: Int64, count: Int, lost: Set<Int64> = []) -> [TransportFeedback.PacketReport] {
        (first..<(first + Int64(count))).map { .init(sequenceNumber: $0, receiveTimeNs: lost.contains($0) ? nil : $0 * 1_000_000) }
    }

    @Test func randomLossPassesAndAPolicersLossFails() {
        var probe = PaddingProbe(goalBps: 1_000_000, firstSequenceNumber: 100)
        let verdicts = [
            probe.record(Self.reports(from: 90, count: 10, lost: [91, 92, 93])),  // sent before the probe began
            probe.record(Self.reports(from: 100, count: 60, lost: [130])),  // one loss is noise
            probe.record(Self.reports(from: 160, count: 40, lost: [170])),  // 2 lost of 100: random loss
            probe.record(Self.reports(from: 200, count: 10, lost: [201, 203, 205, 207])),  // 6 of 110, 4 of them at once
        ]
        #expect(verdicts == [false, false, false, true])
        #expect(probe.reported == 110 && probe.lost == 6)
    }

    /// A session with pacing and transport-wide feedback, past its first feedback (padding waits
    /// for it), at 1500 kbit/s.
    static func pacedSession() throws -> (SessionDriver, nextSequenceNumber: Int64) {
        let driver = try SessionDriver { $0.pacing = PacerConfiguration() }
        driver.send(testFrames([2_000])[0])
        let packets = try driver.run(forMs: 20).map(WirePacket.init)
        try acknowledge(packets, in: driver)
        return (driver, Int64(packets.count))
    }

    /// Feedback for `packets`, the ones at `lostIndexes` reported lost.
    static func acknowledge(_ packets: [WirePacket], lost lostIndexes: Set<Int> = [], in driver: SessionDriver) throws {
        let results = try packets.enumerated().map { index, packet in
            RTCPTransportWideFeedback.PacketResult(
                sequenceNumber: try #require(packet.transportSequenceNumber),
                receiveTimeUs: lostIndexes.contains(index) ? nil : driver.nowNs / 1_000 + Int64(index) * 100)
        }
        driver.advance(byMs: 10)
        let feedback = try RTCPTransportWideFeedback(
            senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 0), feedbackPacketCount: 0, packets: results)
        driver.receive([.transportWideFeedback(feedback)])
    }

    @Test func theSessionPadsToTheGoalAndStopsWhenThePathLoses() throws {
        let (driver, _) = try Self.pacedSession()
        driver.session.setPaddingProbe(kbps: 800, nowNs: driver.nowNs)
        let padding = try driver.run(forMs: 200).map(WirePacket.init)
        let paddingBytes = padding.filter { $0.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 0) }.reduce(0) { $0 + $1.bytes.count }
        // 800 kbit/s for 200 ms is 20 kbyte.
        #expect(paddingBytes > 15_000 && paddingBytes < 25_000, "\(paddingBytes) bytes of padding")
        #expect(driver.takeCommands().allSatisfy { $0 != .paddingProbeFailed })

        try Self.acknowledge(padding, lost: Set(stride(from: 0, to: padding.count, by: 3)), in: driver)
        #expect(driver.takeCommands().contains(.paddingProbeFailed))
        let after = driver.run(forMs: 200)
        #expect(after.isEmpty, "a failed probe pads no more")
        driver.session.setPaddingProbe(kbps: 900, nowNs: driver.nowNs)
        #expect(driver.run(forMs: 100).isEmpty, "nor does a new rate, until the request is withdrawn")
        driver.session.setPaddingProbe(kbps: 0, nowNs: driver.nowNs)
        driver.session.setPaddingProbe(kbps: 800, nowNs: driver.nowNs)
        #expect(!driver.run(forMs: 100).isEmpty, "a new request probes again")
    }

    @Test func aProbeThePathCarriesGoesOnAndEndsWhenWithdrawn() throws {
        let (driver, _) = try Self.pacedSession()
        driver.session.setPaddingProbe(kbps: 800, nowNs: driver.nowNs)
        let padding = try driver.run(forMs: 200).map(WirePacket.init)
        try Self.acknowledge(padding, lost: [5], in: driver)
        #expect(driver.takeCommands().allSatisfy { $0 != .paddingProbeFailed })
        #expect(!driver.run(forMs: 100).isEmpty)
        driver.session.setPaddingProbe(kbps: 0, nowNs: driver.nowNs)
        #expect(driver.run(forMs: 100).isEmpty)
    }
}
