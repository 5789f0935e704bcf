import TestSupport
import Testing
@testable import RTCP
import RTP

/// RTCP XR (RFC 3611): the receiver reference time a browser sends (§4.4) and the DLRR a sender
/// answers with (§4.5), in the compounds they travel in.
@Suite struct RTCPExtendedReportTests {
    /// A receiver's RR and XR RRTR, as a receive-only browser sends them with `rcvr-rtt=all`.
    static let receiverReportWithReferenceTime = "80c90001 0000beef" + "80cf0004 0000beef 04000002 e8fe6f80 80000000"

    @Test func aReceiverReferenceTimeIsRead() throws {
        let compound = try RTCPCompoundPacket(parsing: bytes(Self.receiverReportWithReferenceTime))
        #expect(compound.packets == [
            .receiverReport(RTCPReceiverReport(ssrc: 0xBEEF)),
            .extendedReport(RTCPExtendedReport(
                ssrc: 0xBEEF, blocks: [.receiverReferenceTime(NTPTimestamp(seconds: 0xE8FE_6F80, fraction: 0x8000_0000))])),
        ])
        #expect(compound.serialized() == bytes(Self.receiverReportWithReferenceTime))
    }

    @Test func aDLRRBlockIsWrittenPerReceiver() throws {
        let report = RTCPExtendedReport(ssrc: 0x1122_3344, blocks: [.delaySinceLastReceiverReport([
            .init(ssrc: 0xBEEF, lastReceiverReport: 0x6F80_8000, delay: 0x0001_8000),
            .init(ssrc: 0xCAFE, lastReceiverReport: 0x0102_0304, delay: 0),
        ])])
        let wire = bytes("80cf0008 11223344 05000006 0000beef 6f808000 00018000 0000cafe 01020304 00000000")
        #expect(report.serialized() == wire)
        #expect(try RTCPExtendedReport(parsing: wire) == report)
    }

    @Test func blocksOfOtherTypesAreKeptAsTheyCame() throws {
        // A statistics summary block (BT=6) of 9 words, then an RRTR.
        let wire = bytes("80cf000e 0000beef 06e00009" + String(repeating: "00000001", count: 9) + "04000002 00000001 00000002")
        let report = try RTCPExtendedReport(parsing: wire)
        #expect(report.blocks.count == 2)
        #expect(report.blocks[0] == .other(blockType: 6, typeSpecific: 0xE0, contents: Array(wire[12..<48])))
        #expect(report.blocks[1] == .receiverReferenceTime(NTPTimestamp(seconds: 1, fraction: 2)))
        #expect(report.serialized() == wire)
    }

    @Test(arguments: [
        // An RRTR of one word, a DLRR of two, a block longer than the packet, a missing SSRC.
        "80cf0003 0000beef 04000001 00000001",
        "80cf0004 0000beef 05000002 00000001 00000002",
        "80cf0003 0000beef 04000005 00000001",
        "80cf0000",
    ])
    func malformedReportsAreRefusedAndTheRestOfTheCompoundKept(xr: String) {
        let parsed = bytes("80c90001 0000beef" + xr).withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        #expect(parsed.packets == [.receiverReport(RTCPReceiverReport(ssrc: 0xBEEF))])
        #expect(parsed.rejections.count == 1)
    }

    @Test func aSendersReportCarriesItsAnswerBeforeBye() throws {
        let report = RTCPSenderReport(
            ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(seconds: 1, fraction: 0), rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        let answer = RTCPExtendedReport(ssrc: 0x1122_3344, blocks: [.delaySinceLastReceiverReport([
            .init(ssrc: 0xBEEF, lastReceiverReport: 1, delay: 2),
        ])])
        let compound = RTCPCompoundPacket.senderReports([report], cname: "cam", extendedReport: answer, bye: true)
        let types = try RTCPCompoundPacket(parsing: compound.serialized()).packets.map { packet -> String in
            switch packet {
            case .senderReport: "SR"
            case .sourceDescription: "SDES"
            case .extendedReport: "XR"
            case .bye: "BYE"
            default: "other"
            }
        }
        #expect(types == ["SR", "SDES", "XR", "BYE"])
    }
}
