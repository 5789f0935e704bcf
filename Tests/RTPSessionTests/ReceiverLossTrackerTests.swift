import RTCP
import TestSupport
import Testing
@testable import RTPSession

/// A tracker whose answers compare with `==`.
final class LossReports {
    struct Loss: Equatable {
        var lost: Int
        var expected: Int
    }

    private var tracker = ReceiverLossTracker()

    func update(_ reporter: UInt32, _ block: RTCPReportBlock) -> Loss? {
        tracker.update(reporter: reporter, block: block).map { Loss(lost: $0.lost, expected: $0.expected) }
    }

    func update(_ reporter: UInt32, highest: UInt32, cumulativeLost: Int32) -> Loss? {
        update(reporter, RTCPReportBlock(
            ssrc: 0x1122_3344, fractionLost: 0, cumulativeLost: cumulativeLost, extendedHighestSequenceNumber: highest,
            interarrivalJitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0))
    }
}

@Suite struct ReceiverLossTrackerTests {
    typealias Loss = LossReports.Loss

    @Test func theFirstReportIsOnlyABaseline() {
        let reports = LossReports()
        #expect(reports.update(1, highest: 1_000, cumulativeLost: 5) == nil)
    }

    @Test func lossIsTheGrowthBetweenReports() {
        let reports = LossReports()
        _ = reports.update(1, highest: 1_000, cumulativeLost: 5)
        #expect(reports.update(1, highest: 1_100, cumulativeLost: 15) == Loss(lost: 10, expected: 100))
        // Across the 16-bit wrap of the sequence number the extended value keeps counting.
        _ = reports.update(1, highest: 0x0000_FFF0, cumulativeLost: 15)
        #expect(reports.update(1, highest: 0x0001_0010, cumulativeLost: 17) == Loss(lost: 2, expected: 32))
    }

    /// GStreamer reports a cumulative loss of −1 early on (a duplicate counted before the first
    /// loss): the field is signed 24 bits, 0xFFFFFF on the wire.
    @Test func aNegativeCumulativeLossFromTheWire() throws {
        let reports = LossReports()
        let early = try RTCPReportBlock(parsing: bytes("11223344 00 ffffff 00000064 00000000 00000000 00000000"))
        #expect(early.cumulativeLost == -1)
        #expect(reports.update(7, early) == nil)
        let later = try RTCPReportBlock(parsing: bytes("11223344 05 000002 000000c8 00000000 00000000 00000000"))
        #expect(reports.update(7, later) == Loss(lost: 3, expected: 100))
    }

    @Test func duplicatesNeverCountAsNegativeLoss() {
        let reports = LossReports()
        _ = reports.update(1, highest: 1_000, cumulativeLost: 10)
        #expect(reports.update(1, highest: 1_050, cumulativeLost: 4) == Loss(lost: 0, expected: 50))
    }

    @Test func lossNeverExceedsWhatWasExpected() {
        let reports = LossReports()
        _ = reports.update(1, highest: 1_000, cumulativeLost: 0)
        #expect(reports.update(1, highest: 1_010, cumulativeLost: 500) == Loss(lost: 10, expected: 10))
    }

    @Test func aReportWithNothingNewGivesNothingButMovesTheBaseline() {
        let reports = LossReports()
        _ = reports.update(1, highest: 1_000, cumulativeLost: 5)
        #expect(reports.update(1, highest: 1_000, cumulativeLost: 8) == nil)
        // A receiver that restarted reports lower numbers: a new baseline, not a huge loss.
        #expect(reports.update(1, highest: 10, cumulativeLost: 0) == nil)
        #expect(reports.update(1, highest: 110, cumulativeLost: 1) == Loss(lost: 1, expected: 100))
    }

    @Test func eachReporterHasItsOwnBaseline() {
        let reports = LossReports()
        _ = reports.update(1, highest: 1_000, cumulativeLost: 0)
        _ = reports.update(2, highest: 500, cumulativeLost: 50)
        #expect(reports.update(1, highest: 1_100, cumulativeLost: 1) == Loss(lost: 1, expected: 100))
        #expect(reports.update(2, highest: 700, cumulativeLost: 70) == Loss(lost: 20, expected: 200))
    }

    @Test func theReporterMemoryIsBounded() {
        let reports = LossReports()
        let reporters = UInt32(ReceiverLossTracker.maximumEntries)
        for reporter in 0...reporters {
            _ = reports.update(reporter, highest: 1_000, cumulativeLost: 0)
        }
        // Seventeen reporters, sixteen remembered: the first is forgotten.
        #expect(reports.update(0, highest: 1_100, cumulativeLost: 1) == nil)
        #expect(reports.update(reporters, highest: 1_100, cumulativeLost: 2) == Loss(lost: 2, expected: 100))
    }
}
