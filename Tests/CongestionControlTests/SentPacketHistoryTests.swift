import Testing

@testable import CongestionControl

@Suite struct SentPacketHistoryTests {
    @Test func bytesStayInFlightUntilFeedbackCoversThem() {
        var history = SentPacketHistory()
        for (sequenceNumber, size) in [(0, 100), (1, 200), (2, 300)] as [(Int64, Int)] {
            history.add(SentPacket(sequenceNumber: sequenceNumber, sendTimeNs: sequenceNumber, sizeBytes: size))
        }
        #expect(history.bytesInFlight == 600)
        // Feedback for packet 1 also covers packet 0, whose report was lost.
        #expect(history.takeReport(sequenceNumber: 1)?.sizeBytes == 200)
        #expect(history.bytesInFlight == 300)
    }

    @Test func reportsEachPacketOnce() {
        var history = SentPacketHistory()
        history.add(
            SentPacket(sequenceNumber: 5, sendTimeNs: 42, sizeBytes: 1200, kind: .retransmission, probeClusterID: 3))
        let entry = history.takeReport(sequenceNumber: 5)
        #expect(entry?.sendTimeNs == 42)
        #expect(entry?.probeClusterID == 3)
        #expect(history.takeReport(sequenceNumber: 5) == nil)
        #expect(history.takeReport(sequenceNumber: 6) == nil)
    }

    @Test func forgetsPacketsOlderThanItsCapacity() {
        var history = SentPacketHistory(capacity: 4)
        for sequenceNumber in Int64(0)..<6 {
            history.add(SentPacket(sequenceNumber: sequenceNumber, sendTimeNs: 0, sizeBytes: 10))
        }
        #expect(history.takeReport(sequenceNumber: 1) == nil)
        #expect(history.takeReport(sequenceNumber: 5) != nil)
    }
}
