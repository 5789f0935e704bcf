import RTCP
import TestSupport
import Testing
@testable import RTPSession

@Suite struct RoundTripTimeEstimatorTests {
    static let ms: Int64 = 1_000_000

    /// RTT = arrival − DLSR − send time of the SR whose NTP middle bits the block echoes as LSR
    /// (RFC 3550 §6.4.1), with DLSR in 1/65536 s, from the bytes of a receiver report block.
    @Test func roundTripFromReportBlockBytes() throws {
        var estimator = RoundTripTimeEstimator()
        let ntp = NTPTimestamp(seconds: 0xE8A1_3C5A, fraction: 0x8000_0000)
        #expect(ntp.middle32Bits == 0x3C5A_8000)
        estimator.senderReportSent(middleBits: ntp.middle32Bits, atNs: 10_000 * Self.ms)
        // SSRC, fraction lost 0, cumulative 0, highest 4096, jitter 0, LSR 3c5a8000, DLSR 1.5 s.
        let block = try RTCPReportBlock(parsing: bytes("11223344 00 000000 00001000 00000000 3c5a8000 00018000"))
        #expect(block.delaySinceLastSenderReport == 98_304)
        let rttNs = estimator.onReportBlock(
            lastSenderReport: block.lastSenderReport, delaySinceLastSenderReport: block.delaySinceLastSenderReport,
            arrivalNs: 11_542 * Self.ms)
        #expect(rttNs == 42 * Self.ms)
        #expect(estimator.lastNs == 42 * Self.ms)
    }

    @Test func fractionalDelaysTruncateToNanoseconds() {
        var estimator = RoundTripTimeEstimator()
        estimator.senderReportSent(middleBits: 0x0001_0000, atNs: 0)
        // 3277/65536 s = 50 003 051.76 ns.
        let rttNs = estimator.onReportBlock(
            lastSenderReport: 0x0001_0000, delaySinceLastSenderReport: 3_277, arrivalNs: 50_003_051 + 30 * Self.ms)
        #expect(rttNs == 30 * Self.ms)
    }

    @Test func aLateReportAnswersAnOlderSenderReport() {
        var estimator = RoundTripTimeEstimator()
        estimator.senderReportSent(middleBits: 0xA000_0000, atNs: 0)
        estimator.senderReportSent(middleBits: 0xB000_0000, atNs: 1_000 * Self.ms)
        estimator.senderReportSent(middleBits: 0xC000_0000, atNs: 2_000 * Self.ms)
        // The receiver last saw the first SR and held it 2 s (0x20000 / 65536).
        let late = estimator.onReportBlock(
            lastSenderReport: 0xA000_0000, delaySinceLastSenderReport: 0x0002_0000, arrivalNs: 2_060 * Self.ms)
        #expect(late == 60 * Self.ms)
        // The newest SR, held 31.25 ms (0x800 / 65536).
        let current = estimator.onReportBlock(
            lastSenderReport: 0xC000_0000, delaySinceLastSenderReport: 0x0000_0800, arrivalNs: 2_051_250_000)
        #expect(current == 20 * Self.ms)
        #expect(estimator.lastNs == 20 * Self.ms)
    }

    @Test func sixteenSenderReportsAreRemembered() {
        var estimator = RoundTripTimeEstimator()
        for index in 0...RoundTripTimeEstimator.reportsRemembered {
            estimator.senderReportSent(middleBits: UInt32(0x100 + index), atNs: Int64(index) * 1_000 * Self.ms)
        }
        // The 17th SR overwrote the first.
        let rttsNs = [0x100, 0x101, 0x110].map { lastSenderReport in
            estimator.onReportBlock(lastSenderReport: lastSenderReport, delaySinceLastSenderReport: 0, arrivalNs: 20_000 * Self.ms)
        }
        #expect(rttsNs == [nil, 19_000 * Self.ms, 4_000 * Self.ms])
    }

    @Test func reportsThatNameNoSenderReportAreIgnored() {
        var estimator = RoundTripTimeEstimator()
        // LSR 0: the receiver has had no SR yet, even if one of ours happened to have middle bits 0.
        estimator.senderReportSent(middleBits: 0, atNs: 0)
        estimator.senderReportSent(middleBits: 0x1234_5678, atNs: 0)
        // LSR 0, and an LSR we never sent.
        let rttsNs = [0, 0x1234_5679].map { lastSenderReport in
            estimator.onReportBlock(lastSenderReport: lastSenderReport, delaySinceLastSenderReport: 0, arrivalNs: 100 * Self.ms)
        }
        #expect(rttsNs == [nil, nil])
        #expect(estimator.lastNs == nil)
        #expect(estimator.medianMs == nil)
    }

    @Test func theRoundTripIsAtLeastOneMillisecond() {
        var estimator = RoundTripTimeEstimator()
        estimator.senderReportSent(middleBits: 0x0001_0000, atNs: 0)
        // 200 µs on a loopback.
        let loopback = estimator.onReportBlock(lastSenderReport: 0x0001_0000, delaySinceLastSenderReport: 0, arrivalNs: 200_000)
        #expect(loopback == RoundTripTimeEstimator.minimumNs)
        // A delay longer than the time since the SR (a receiver clock running fast).
        let negative = estimator.onReportBlock(
            lastSenderReport: 0x0001_0000, delaySinceLastSenderReport: 0x0001_0000, arrivalNs: 500 * Self.ms)
        #expect(negative == 1 * Self.ms)
    }

    @Test func theMedianOverTheRunIgnoresOutliers() throws {
        var estimator = RoundTripTimeEstimator()
        estimator.senderReportSent(middleBits: 0x0001_0000, atNs: 0)
        for rttMs: Int64 in [20, 10, 30, 25, 900] {
            _ = estimator.onReportBlock(lastSenderReport: 0x0001_0000, delaySinceLastSenderReport: 0, arrivalNs: rttMs * Self.ms)
        }
        #expect(estimator.lastNs == 900 * Self.ms)
        let medianMs = try #require(estimator.medianMs)
        // The middle value, 25 ms, to the histogram's two significant digits.
        #expect(abs(medianMs - 25) <= 0.25)
    }
}
