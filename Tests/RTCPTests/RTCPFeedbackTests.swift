import TestSupport
import Testing
@testable import RTCP
import RTP

/// Vectors marked "GStreamer" were captured from GStreamer 1.22's rtpbin receiving a stream with
/// gaps near the 16-bit wrap (`rtcp-fb-nack-pli`, `rtcp-fb-ccm-fir`).
@Suite struct RTCPGenericNACKTests {
    @Test func pionVector() throws {
        let wire = bytes("81 cd 0003 902f9e2e 902f9e2e aaaa 5555")
        let nack = try RTCPGenericNACK(parsing: wire)
        #expect(nack == RTCPGenericNACK(
            senderSSRC: 0x902F_9E2E, mediaSSRC: 0x902F_9E2E, entries: [.init(packetID: 0xAAAA, lostPacketBitmask: 0x5555)]))
        // BLP 0101 0101 0101 0101: every other packet of the 16 after the PID.
        #expect(nack.lostSequenceNumbers == [0xAAAA] + stride(from: 0xAAAB, through: 0xAAB9, by: 2).map { UInt16($0) })
        #expect(nack.serialized() == wire)
    }

    @Test(arguments: [
        // GStreamer: 65530 and 65532 lost.
        ("81cd0003 b8771b28 11223344 fffa 0002", [65530, 65532]),
        // GStreamer, across the wrap.
        ("81cd0003 b8771b28 11223344 fffc 007d", [65532, 65533, 65535, 0, 1, 2, 3]),
        ("81cd0003 b8771b28 11223344 0020 001f", [32, 33, 34, 35, 36, 37]),
        ("81cd0003 b8771b28 11223344 002d 0000", [45]),
    ] as [(String, [UInt16])])
    func gstreamerVectorsBothWays(wire: String, lost: [UInt16]) throws {
        let nack = try RTCPGenericNACK(parsing: bytes(wire))
        #expect(nack.lostSequenceNumbers == lost)
        let built = RTCPGenericNACK(senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344, lostSequenceNumbers: lost.reversed())
        #expect(built == nack)
        #expect(built.serialized() == bytes(wire))
    }

    @Test(arguments: [
        // Pion's NackPairsFromSequenceNumbers cases.
        ([100], [(100, 0x0000)]),
        ([100, 101, 105, 115], [(100, 0x4011)]),
        ([100, 117, 500, 501, 502], [(100, 0x0000), (117, 0x0000), (500, 0x0003)]),
        // PID + 16 is the last BLP bit; PID + 17 needs another entry.
        ([42, 58], [(42, 0x8000)]),
        ([42, 59], [(42, 0x0000), (59, 0x0000)]),
        // Around the wrap, whatever the order given.
        ([0, 65535], [(65535, 0x0001)]),
        ([3, 65534, 0, 65535, 1], [(65534, 0x0017)]),
        ([20, 65534, 0, 65535, 1], [(65534, 0x0007), (20, 0x0000)]),
        // Duplicates are named once.
        ([7, 7, 8], [(7, 0x0001)]),
        ([], []),
    ] as [([UInt16], [(UInt16, UInt16)])])
    func minimalEntries(lost: [UInt16], expected: [(UInt16, UInt16)]) {
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
        #expect(nack.entries == expected.map { RTCPGenericNACK.Entry(packetID: $0.0, lostPacketBitmask: $0.1) })
    }

    @Test func randomSetsRoundTrip() throws {
        var generator = SplitMix64(state: 21)
        for _ in 0..<500 {
            let start = UInt16.random(in: 0...UInt16.max, using: &generator)
            let span = Int.random(in: 1...200, using: &generator)
            let lost = Set((0..<Int.random(in: 1...40, using: &generator)).map { _ in
                start &+ UInt16(Int.random(in: 0..<span, using: &generator))
            })
            let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
            #expect(Set(nack.lostSequenceNumbers) == lost)
            #expect(nack.lostSequenceNumbers.count == lost.count)
            // Greedy from the start of the run: every entry begins past the previous one's reach.
            for (previous, next) in zip(nack.entries, nack.entries.dropFirst()) {
                #expect(next.packetID &- previous.packetID > 16)
            }
            #expect(try RTCPGenericNACK(parsing: nack.serialized()) == nack)
        }
    }

    @Test(arguments: [
        "81 cd 0002 11223344 55667788",  // no FCI entry
        "a1 cd 0003 11223344 55667788 0001 0002",  // padding leaves 2 FCI bytes
        "82 cd 0003 11223344 55667788 0001 0000",  // FMT 2
        "81 ce 0003 11223344 55667788 0001 0000",  // PSFB
    ])
    func malformedThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPGenericNACK(parsing: bytes(wire)) }
    }

    @Test func emptyNACKIsNotWritten() {
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, entries: [])
        var storage = [UInt8](repeating: 0, count: 64)
        #expect(throws: WireFormatError.self) {
            try storage.withUnsafeMutableBytes { buffer in
                Result { () throws(WireFormatError) in try nack.serialize(into: buffer) }
            }.get()
        }
    }
}

@Suite struct RTCPKeyframeRequestTests {
    @Test func gstreamerPLI() throws {
        let wire = bytes("81ce0002 b8771b28 11223344")
        let pli = try RTCPPictureLossIndication(parsing: wire)
        #expect(pli == RTCPPictureLossIndication(senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344))
        #expect(pli.serialized() == wire)
    }

    @Test func pliIgnoresFCI() throws {
        let pli = try RTCPPictureLossIndication(parsing: bytes("81ce0003 b8771b28 11223344 deadbeef"))
        #expect(pli == RTCPPictureLossIndication(senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344))
    }

    @Test func gstreamerFIR() throws {
        let wire = bytes("84ce0004 167da06f 00000000 11223344 02000000")
        let fir = try RTCPFullIntraRequest(parsing: wire)
        #expect(fir == RTCPFullIntraRequest(senderSSRC: 0x167D_A06F, entries: [.init(ssrc: 0x1122_3344, sequenceNumber: 2)]))
        #expect(fir.serialized() == wire)
    }

    @Test func firWithTwoEntries() throws {
        // RFC 5104 §4.3.1.1: SSRC, Seq nr., 3 reserved bytes per entry; media SSRC 0.
        let wire = bytes("84ce0006 00000001 00000000 11223344 05000000 55667788 ff000000")
        let fir = RTCPFullIntraRequest(senderSSRC: 1, entries: [
            .init(ssrc: 0x1122_3344, sequenceNumber: 5), .init(ssrc: 0x5566_7788, sequenceNumber: 255),
        ])
        #expect(fir.serialized() == wire)
        #expect(try RTCPFullIntraRequest(parsing: wire) == fir)
        // Reserved bits set by a peer are ignored.
        #expect(try RTCPFullIntraRequest(parsing: bytes("84ce0006 00000001 00000000 11223344 05abcdef 55667788 ff000001")) == fir)
    }

    @Test(arguments: [
        "84ce0002 00000001 00000000",  // no entry
        "84ce0003 00000001 00000000 11223344",  // half an entry
        "81ce0004 00000001 00000000 11223344 02000000",  // FMT 1
    ])
    func malformedFIRThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPFullIntraRequest(parsing: bytes(wire)) }
    }
}

@Suite struct RTCPReceiverEstimatedMaximumBitrateTests {
    // libwebrtc's remb_unittest.cc: 0x3fb93 × 2¹ = 522022 bit/s for three SSRCs.
    static let libwebrtcWire = "8f ce 0007 12345678 00000000 52454d42 03 07fb93 23456789 2345678a 2345678b"

    @Test func libwebrtcVector() throws {
        let remb = try RTCPReceiverEstimatedMaximumBitrate(parsing: bytes(Self.libwebrtcWire))
        #expect(remb.senderSSRC == 0x1234_5678)
        #expect(remb.bitrateBps == 522_022)
        #expect(remb.exponent == 1 && remb.mantissa == 0x3_FB93)
        #expect(remb.ssrcs == [0x2345_6789, 0x2345_678A, 0x2345_678B])
        let built = RTCPReceiverEstimatedMaximumBitrate(
            senderSSRC: 0x1234_5678, bitrateBps: 522_022, ssrcs: [0x2345_6789, 0x2345_678A, 0x2345_678B])
        #expect(built == remb)
        #expect(built.serialized() == bytes(Self.libwebrtcWire))
    }

    @Test(arguments: [
        (0, 0, 0),
        (1, 0, 1),
        (0x3_FFFF, 0, 0x3_FFFF),
        (0x4_0000, 1, 0x2_0000),
        (522_022, 1, 0x3_FB93),
        // libwebrtc's 64-bit case.
        (0x3_FB93 << 30, 30, 0x3_FB93),
        (UInt64.max, 46, 0x3_FFFF),
    ] as [(UInt64, UInt8, UInt32)])
    func smallestExponentThatFits(bitrateBps: UInt64, exponent: UInt8, mantissa: UInt32) throws {
        let remb = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrateBps: bitrateBps, ssrcs: [2])
        #expect(remb.exponent == exponent && remb.mantissa == mantissa)
        #expect(try RTCPReceiverEstimatedMaximumBitrate(parsing: remb.serialized()) == remb)
    }

    @Test func bitrateRoundsDownWithinOneMantissaStep() {
        var generator = SplitMix64(state: 5)
        for _ in 0..<2_000 {
            let bitrate = UInt64.random(in: 0...UInt64.max, using: &generator) >> Int.random(in: 0..<64, using: &generator)
            var remb = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrateBps: 0, ssrcs: [])
            remb.bitrateBps = bitrate
            #expect(remb.bitrateBps <= bitrate)
            #expect(bitrate - remb.bitrateBps < 1 << remb.exponent)
            // Smallest exponent: a shorter one would overflow the 18-bit mantissa.
            #expect(remb.exponent == 0 || remb.mantissa >= 0x2_0000)
        }
    }

    @Test(arguments: [
        ("8fce0004 00000001 00000000 52454d42 00 fcffff", UInt64.max),  // exponent 63: saturates
        ("8fce0004 00000001 00000000 52454d42 00 bbffff", UInt64(0x3_FFFF) << 46),  // exponent 46: fits exactly
        ("8fce0004 00000001 00000000 52454d42 00 bfffff", UInt64.max),  // exponent 47, 18-bit mantissa
        ("8fce0004 00000001 00000000 52454d42 00 bdffff", UInt64(0x1_FFFF) << 47),  // exponent 47, 17 bits
    ])
    func hugeWireValuesSaturate(wire: String, bitrateBps: UInt64) throws {
        let remb = try RTCPReceiverEstimatedMaximumBitrate(parsing: bytes(wire))
        #expect(remb.bitrateBps == bitrateBps)
        #expect(remb.serialized() == bytes(wire))
    }

    @Test(arguments: [
        // libwebrtc's failure cases: not "REMB", SSRC count beyond the packet, too short.
        "8f ce 0007 12345678 00000000 4e454d42 03 07fb93 23456789 2345678a 2345678b",
        "8f ce 0007 12345678 00000000 52454d42 04 07fb93 23456789 2345678a 2345678b",
        "8f ce 0003 12345678 00000000 52454d42",
    ])
    func malformedThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPReceiverEstimatedMaximumBitrate(parsing: bytes(wire)) }
    }
}

@Suite struct RTCPApplicationDefinedTests {
    @Test func wireBytes() throws {
        let app = RTCPApplicationDefined(subtype: 3, ssrc: 0x1122_3344, name: "QUAL", data: [1, 2, 3, 4, 5, 6, 7, 8])
        let wire = bytes("83 cc 0004 11223344 5155414c 01020304 05060708")
        #expect(app.serialized() == wire)
        #expect(try RTCPApplicationDefined(parsing: wire) == app)
    }

    @Test func anyNameBytesRoundTrip() throws {
        let wire = bytes("80 cc 0002 11223344 00ff7f80")
        let app = try RTCPApplicationDefined(parsing: wire)
        #expect(app.name.unicodeScalars.map(\.value) == [0x00, 0xFF, 0x7F, 0x80])
        #expect(app.data.isEmpty)
        #expect(app.serialized() == wire)
    }

    @Test(arguments: [
        RTCPApplicationDefined(subtype: 32, ssrc: 1, name: "QUAL"),
        RTCPApplicationDefined(subtype: 0, ssrc: 1, name: "QUA"),
        RTCPApplicationDefined(subtype: 0, ssrc: 1, name: "QUAL€"),
        RTCPApplicationDefined(subtype: 0, ssrc: 1, name: "QUA€"),
        RTCPApplicationDefined(subtype: 0, ssrc: 1, name: "QUAL", data: [1, 2, 3]),
    ])
    func invalidFieldsAreRefused(app: RTCPApplicationDefined) {
        var storage = [UInt8](repeating: 0, count: 64)
        #expect(throws: WireFormatError.self) {
            try storage.withUnsafeMutableBytes { buffer in
                Result { () throws(WireFormatError) in try app.serialize(into: buffer) }
            }.get()
        }
    }

    @Test(arguments: [
        "80 cc 0001 11223344",  // no name
        "a0 cc 0003 11223344 5155414c 01020302",  // padding leaves 2 data bytes
    ])
    func malformedThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPApplicationDefined(parsing: bytes(wire)) }
    }
}
