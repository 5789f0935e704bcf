import Testing

@testable import CongestionControl

@Suite struct BWETraceRecordTests {
    private let record = BWETraceRecord(
        timeNs: 1_234_567_890, event: .feedback, targetBitrateBps: 900_000, encoderBitrateBps: 850_000,
        pacingRateBps: 990_000, delayBasedBitrateBps: 950_000, lossBasedBitrateBps: 900_000,
        acknowledgedBitrateBps: 880_000, probeBitrateBps: nil, receiverLimitBps: nil, trend: 0.012_345_6,
        modifiedTrend: 2.9629, thresholdMs: 12.5, detectorState: .overusing, rateControlState: .decrease,
        lossFraction: 0.0234, roundTripTimeNs: 48_250_000, congestionWindowBytes: 45_000, bytesInFlight: 12_000)

    @Test func writesOneCellPerHeaderColumn() {
        let header = BWETraceRecord.csvHeader.split(separator: ",", omittingEmptySubsequences: false)
        let cells = record.csvLine.split(separator: ",", omittingEmptySubsequences: false)
        #expect(header.count == cells.count)
        #expect(header.first == "time_ms")
    }

    @Test func writesFixedDecimalsAndEmptyCellsForAbsentValues() {
        let expected = [
            "1234.568", "feedback", "900000", "850000", "990000", "950000", "900000", "880000", "", "", "0.012346",
            "2.963", "12.500", "overusing", "decrease", "0.0234", "48.3", "45000", "12000",
        ]
        #expect(record.csvLine == expected.joined(separator: ","))
    }

    @Test func negativeValuesKeepTheirSign() {
        var negative = record
        negative.trend = -0.5
        negative.modifiedTrend = -0.0001
        #expect(negative.csvLine.contains(",-0.500000,0.000,"))
    }
}
