import TestSupport
import Testing
@testable import RTCP
import RTP

/// Compound and reduced-size datagrams as GStreamer 1.22's rtpbin sends them, and the rule for
/// malformed packets inside a compound.
@Suite struct RTCPCompoundFeedbackTests {
    static let gstreamerReceiverReport = "80c90001 b8771b28"
    static let gstreamerSourceDescription =
        "81ca0009 b8771b28 011c 757365723130383837333735333040686f73742d6539666133306464 0000"

    @Test func gstreamerReportWithPLIAndNACK() throws {
        let wire = bytes(Self.gstreamerReceiverReport + Self.gstreamerSourceDescription
            + "81ce0002 b8771b28 11223344" + "81cd0003 b8771b28 11223344 fffc 007d")
        let compound = try RTCPCompoundPacket(parsing: wire)
        #expect(compound.packets == [
            .receiverReport(RTCPReceiverReport(ssrc: 0xB877_1B28)),
            .sourceDescription(RTCPSourceDescription(ssrc: 0xB877_1B28, cname: "user1088737530@host-e9fa30dd")),
            .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344)),
            .genericNACK(RTCPGenericNACK(
                senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344, entries: [.init(packetID: 0xFFFC, lostPacketBitmask: 0x007D)])),
        ])
        #expect(compound.serialized() == wire)
    }

    @Test func gstreamerReportWithFIRAndNACK() throws {
        let wire = bytes("80c90001 167da06f"
            + "81ca0009 167da06f 011c 757365723330393731303435323840686f73742d3234393932626431 0000"
            + "84ce0004 167da06f 00000000 11223344 07000000" + "81cd0003 167da06f 11223344 0003 001f")
        let compound = try RTCPCompoundPacket(parsing: wire)
        #expect(compound.packets.count == 4)
        #expect(compound.packets[2] == .fullIntraRequest(
            RTCPFullIntraRequest(senderSSRC: 0x167D_A06F, entries: [.init(ssrc: 0x1122_3344, sequenceNumber: 7)])))
        #expect(compound.serialized() == wire)
    }

    @Test(arguments: [
        // GStreamer's transport-wide feedback, PLI and NACK; Janus sends PLI and REMB alone too.
        "8fcd0006 b8771b28 11223344 fffa 0003 000000 00 2003 028003 000000",
        "81ce0002 b8771b28 11223344",
        "81cd0003 b8771b28 11223344 fffa 0002",
        "8f ce 0007 12345678 00000000 52454d42 03 07fb93 23456789 2345678a 2345678b",
    ])
    func reducedSizePacketsParseAlone(wire: String) throws {
        let compound = try RTCPCompoundPacket(parsing: bytes(wire))
        #expect(compound.packets.count == 1)
        if case .other = compound.packets[0] { Issue.record("feedback parsed as an unknown packet") }
    }

    @Test func everyModelledTypeIsDispatched() throws {
        let wire = bytes(
            "8f ce 0007 12345678 00000000 52454d42 03 07fb93 23456789 2345678a 2345678b"
                + "83 cc 0004 11223344 5155414c 01020304 05060708"
                + "af cd 0005 fa17fa17 43032fa0 0099 0001 3de802 17 2001 94 01")
        let packets = try RTCPCompoundPacket(parsing: wire).packets
        #expect(packets == [
            .receiverEstimatedMaximumBitrate(try RTCPReceiverEstimatedMaximumBitrate(
                parsing: bytes("8f ce 0007 12345678 00000000 52454d42 03 07fb93 23456789 2345678a 2345678b"))),
            .applicationDefined(RTCPApplicationDefined(subtype: 3, ssrc: 0x1122_3344, name: "QUAL", data: [1, 2, 3, 4, 5, 6, 7, 8])),
            .transportWideFeedback(try RTCPTransportWideFeedback(
                parsing: bytes("af cd 0005 fa17fa17 43032fa0 0099 0001 3de802 17 2001 94 01"))),
        ])
        #expect(RTCPCompoundPacket(packets: packets).serialized() == wire)
    }

    @Test(arguments: [
        ("8f ce 0004 00000001 00000000 474f4f47 00000000", 206, 15),  // application layer feedback, not REMB
        ("83 cd 0004 00000001 00000002 00001234 00000000", 205, 3),  // TMMBR
        ("82 ce 0003 00000001 00000002 00040001", 206, 2),  // SLI
        ("81 c3 0001 00000001", 195, 1),  // IJ, extended jitter (RFC 5450)
    ] as [(String, UInt8, UInt8)])
    func unknownTypesAndFormatsStayOther(wire: String, packetType: UInt8, format: UInt8) throws {
        let compound = try RTCPCompoundPacket(parsing: bytes(wire))
        #expect(compound.packets == [.other(packetType: packetType, count: format, body: Array(bytes(wire).dropFirst(4)))])
        #expect(compound.serialized() == bytes(wire))
    }

    @Test func malformedPacketIsSkippedAlone() throws {
        // RR, then a FIR whose FCI is half an entry, then a PLI: the PLI still counts.
        let wire = bytes("80c90001 b8771b28" + "84ce0003 b8771b28 00000000 11223344" + "81ce0002 b8771b28 11223344")
        let result = wire.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        #expect(result.packets == [
            .receiverReport(RTCPReceiverReport(ssrc: 0xB877_1B28)),
            .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344)),
        ])
        #expect(result.rejections.count == 1)
        #expect(throws: result.rejections[0]) { try RTCPCompoundPacket(parsing: wire) }
    }

    @Test func brokenFramingRejectsTheRest() throws {
        // RR, then a header claiming more words than the datagram has: the PLI after it is lost.
        let wire = bytes("80c90001 b8771b28" + "81cd0009 b8771b28 11223344 fffa0002" + "81ce0002 b8771b28 11223344")
        let result = wire.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        #expect(result.packets == [.receiverReport(RTCPReceiverReport(ssrc: 0xB877_1B28))])
        #expect(result.rejections.count == 1)
        // A wrong version ends the datagram the same way.
        let wrongVersion = bytes("80c90001 b8771b28" + "41ce0002 b8771b28 11223344" + "81ce0002 b8771b28 11223344")
        let second = wrongVersion.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        #expect(second.packets.count == 1)
        #expect(second.rejections == [.invalid(structure: "RTCP packet", reason: "version 1, expected 2")])
    }

    @Test func emptyDatagramIsOneRejection() {
        let result = RTCPCompoundPacket.parseValidPackets(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(result.packets.isEmpty)
        #expect(result.rejections.count == 1)
    }
}
