import TestSupport
import Testing
@testable import RTCP
import RTP

/// Vectors: Chrome's feedback as Pion's transport_layer_cc_test.go and a Wireshark dissection
/// carry it (P set, padding counted), and GStreamer 1.22's rtpbin captured here (zero padding
/// without P), fed transport-wide sequence numbers from 65530 so that they wrap.
@Suite struct RTCPTransportWideFeedbackTests {
    typealias PacketResult = RTCPTransportWideFeedback.PacketResult

    /// Results from the reference time (units of 64 ms) and each packet's delta in µs, nil if lost.
    static func results(base: UInt16, referenceTime: Int64, deltasUs: [Int64?]) -> [PacketResult] {
        var timeUs = referenceTime * 64_000
        return deltasUs.enumerated().map { index, delta in
            let sequenceNumber = base &+ UInt16(index)
            guard let delta else { return PacketResult(sequenceNumber: sequenceNumber, receiveTimeUs: nil) }
            timeUs += delta
            return PacketResult(sequenceNumber: sequenceNumber, receiveTimeUs: timeUs)
        }
    }

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let wire: String
        let senderSSRC: UInt32
        let mediaSSRC: UInt32
        let feedbackPacketCount: UInt8
        let base: UInt16
        let referenceTime: Int64
        let deltasUs: [Int64?]
        var testDescription: String { name }
    }

    static let libwebrtcVectors: [Vector] = [
        Vector(
            name: "one small delta, run length chunk",
            wire: "af cd 0005 fa17fa17 43032fa0 0099 0001 3de802 17 2001 94 01",
            senderSSRC: 0xFA17_FA17, mediaSSRC: 0x4303_2FA0, feedbackPacketCount: 23, base: 153, referenceTime: 4_057_090,
            deltasUs: [37_000]),
        Vector(
            name: "run length chunk of 7",
            wire: "af cd 0007 fa17fa17 193dd8bb 0004 0007 10636e 01 2007 4c 24 24 10 0c 0c 10 000003",
            senderSSRC: 0xFA17_FA17, mediaSSRC: 0x193D_D8BB, feedbackPacketCount: 1, base: 4, referenceTime: 1_074_030,
            deltasUs: [19_000, 9_000, 9_000, 4_000, 3_000, 3_000, 4_000]),
        Vector(
            name: "one-bit status vector",
            wire: "af cd 0006 fa17fa17 193dd8bb 0001 000e 10636d 00 ba00 10 0c 0c 10 0002",
            senderSSRC: 0xFA17_FA17, mediaSSRC: 0x193D_D8BB, feedbackPacketCount: 0, base: 1, referenceTime: 1_074_029,
            deltasUs: [4_000, 3_000, 3_000, nil, 4_000] + Array(repeating: nil, count: 9)),
        Vector(
            name: "two-bit status vector, then a run longer than the count",
            wire: "af cd 0007 9b74f61f 9371dcbc 853c 0009 63f916 b3 d552 0030 9b aa 6a aa 7b 0109 01",
            senderSSRC: 0x9B74_F61F, mediaSSRC: 0x9371_DCBC, feedbackPacketCount: 179, base: 34_108,
            referenceTime: 6_551_830,
            deltasUs: [38_750, 42_500, 26_500, 42_500, 30_750, nil, 66_250, nil, nil]),
        Vector(
            name: "one-bit status vector of 12",
            wire: "af cd 0007 fa17fa17 43032fa0 9c14 000c 758420 00 bec0 c1 3f 3b 3f 53 90 3b 000003",
            senderSSRC: 0xFA17_FA17, mediaSSRC: 0x4303_2FA0, feedbackPacketCount: 0, base: 39_956, referenceTime: 7_701_536,
            deltasUs: [48_250, 15_750, 14_750, 15_750, 20_750, nil, 36_000, 14_750, nil, nil, nil, nil]),
        Vector(
            name: "Chrome capture, run length chunk of 9",
            wire: "af cd 0007 00000001 dd586eb6 0001 0009 5e9110 00 2009 1c 0c 2c 38 00 04 00 08 18 01",
            senderSSRC: 1, mediaSSRC: 0xDD58_6EB6, feedbackPacketCount: 0, base: 1, referenceTime: 6_197_520,
            deltasUs: [7_000, 3_000, 11_000, 14_000, 0, 1_000, 0, 2_000, 6_000]),
        // Pion's example 3 sets P without padding, which RFC 3550 forbids; with P clear it is whole.
        Vector(
            name: "large deltas, no padding",
            wire: "8f cd 0007 fa17fa17 193dd8bb 0174 0006 45b15a 40 4002 2004 1ffe 1f9a d0 00 d0 00",
            senderSSRC: 0xFA17_FA17, mediaSSRC: 0x193D_D8BB, feedbackPacketCount: 64, base: 372, referenceTime: 4_567_386,
            deltasUs: [2_047_500, 2_022_500, 52_000, 0, 52_000, 0]),
        Vector(
            name: "no status",
            wire: "8f cd 0004 9acb0442 00000000 0000 0000 000000 00",
            senderSSRC: 0x9ACB_0442, mediaSSRC: 0, feedbackPacketCount: 0, base: 0, referenceTime: 0, deltasUs: []),
    ]

    static let gstreamerVectors: [Vector] = [
        Vector(
            name: "GStreamer, run length chunk, zero padding",
            wire: "8fcd0006 b8771b28 11223344 fffa 0003 000000 00 2003 02 80 03 000000",
            senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344, feedbackPacketCount: 0, base: 65_530, referenceTime: 0,
            deltasUs: [500, 32_000, 750]),
        Vector(
            name: "GStreamer, across the wrap, two-bit vector with a large delta",
            wire: "8fcd0007 b8771b28 11223344 fffd 0009 000001 01 d442 2002 1c 35 c5 010d 32 60 00",
            senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344, feedbackPacketCount: 1, base: 65_533, referenceTime: 1,
            deltasUs: [7_000, 13_250, nil, 49_250, nil, nil, 67_250, 12_500, 24_000]),
        Vector(
            name: "GStreamer, lost packets inside a two-bit vector",
            wire: "8fcd0006 b8771b28 11223344 000c 0006 000005 04 d408 f5 00 0110 0000",
            senderSSRC: 0xB877_1B28, mediaSSRC: 0x1122_3344, feedbackPacketCount: 4, base: 12, referenceTime: 5,
            deltasUs: [61_250, 0, nil, nil, nil, 68_000]),
    ]

    func check(_ feedback: RTCPTransportWideFeedback, against vector: Vector) {
        #expect(feedback.senderSSRC == vector.senderSSRC)
        #expect(feedback.mediaSSRC == vector.mediaSSRC)
        #expect(feedback.feedbackPacketCount == vector.feedbackPacketCount)
        #expect(feedback.baseSequenceNumber == vector.base)
        #expect(feedback.packetStatusCount == vector.deltasUs.count)
        #expect(feedback.referenceTimeUs == vector.referenceTime * 64_000)
        #expect(Array(feedback.packetResults)
            == Self.results(base: vector.base, referenceTime: vector.referenceTime, deltasUs: vector.deltasUs))
    }

    @Test(arguments: libwebrtcVectors)
    func libwebrtcVectorsRoundTripExactly(vector: Vector) throws {
        let feedback = try RTCPTransportWideFeedback(parsing: bytes(vector.wire))
        check(feedback, against: vector)
        #expect(feedback.serialized() == bytes(vector.wire))
    }

    @Test(arguments: zip(gstreamerVectors, [
        "afcd0006 b8771b28 11223344 fffa 0003 000000 00 2003 02 80 03 000003",
        "afcd0007 b8771b28 11223344 fffd 0009 000001 01 d442 2002 1c 35 c5 010d 32 60 01",
        "afcd0006 b8771b28 11223344 000c 0006 000005 04 d408 f5 00 0110 0002",
    ]))
    func gstreamerVectorsParse(vector: Vector, rewritten: String) throws {
        let feedback = try RTCPTransportWideFeedback(parsing: bytes(vector.wire))
        check(feedback, against: vector)
        // Written back with P set and the padding counted, as libwebrtc writes it.
        #expect(feedback.serialized() == bytes(rewritten))
        #expect(try RTCPTransportWideFeedback(parsing: bytes(rewritten)) == feedback)
    }

    @Test(arguments: libwebrtcVectors + gstreamerVectors)
    func writerReproducesTheResults(vector: Vector) throws {
        let expected = Self.results(base: vector.base, referenceTime: vector.referenceTime, deltasUs: vector.deltasUs)
        let built = try RTCPTransportWideFeedback(
            senderSSRC: vector.senderSSRC, mediaSSRC: vector.mediaSSRC, feedbackPacketCount: vector.feedbackPacketCount,
            packets: expected)
        #expect(Array(built.packetResults) == expected)
        #expect(try RTCPTransportWideFeedback(parsing: built.serialized()) == built)
    }

    /// Where libwebrtc's encoder and ours pick the same chunks, the writer gives Chrome's bytes.
    @Test(arguments: [0, 1, 2, 4, 5, 7])
    func writerMatchesChromeBytes(index: Int) throws {
        let vector = Self.libwebrtcVectors[index]
        let built = try RTCPTransportWideFeedback(
            senderSSRC: vector.senderSSRC, mediaSSRC: vector.mediaSSRC, feedbackPacketCount: vector.feedbackPacketCount,
            packets: Self.results(base: vector.base, referenceTime: vector.referenceTime, deltasUs: vector.deltasUs))
        #expect(built.serialized() == bytes(vector.wire))
    }

    @Test func negativeDelta() throws {
        // 64 ms, then 63 ms: the second delta is -4 × 250 µs, a large (2-byte signed) delta.
        let packets = [PacketResult(sequenceNumber: 10, receiveTimeUs: 64_000), PacketResult(sequenceNumber: 11, receiveTimeUs: 63_000)]
        let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 7, packets: packets)
        let wire = bytes("af cd 0006 00000001 00000002 000a 0002 000001 07 d800 00 fffc 000003")
        #expect(feedback.serialized() == wire)
        let parsed = try RTCPTransportWideFeedback(parsing: wire)
        #expect(Array(parsed.packetResults) == packets)
    }

    @Test(arguments: [
        // The extremes of a 2-byte delta: +32767 and -32768 units of 250 µs.
        ([(0, 0), (1, 8_191_750)], true),
        ([(0, 0), (1, 8_192_000)], false),
        ([(0, 8_192_000), (1, 0)], true),
        ([(0, 8_192_250), (1, 0)], false),
    ] as [([(UInt16, Int64)], Bool)])
    func largeDeltaLimits(packets: [(UInt16, Int64)], fits: Bool) throws {
        let results = packets.map { PacketResult(sequenceNumber: $0.0, receiveTimeUs: $0.1) }
        if fits {
            let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: results)
            #expect(Array(try RTCPTransportWideFeedback(parsing: feedback.serialized()).packetResults) == results)
        } else {
            #expect(throws: WireFormatError.self) {
                try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: results)
            }
        }
    }

    @Test func sequenceWrapWithGaps() throws {
        let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 255, packets: [
            PacketResult(sequenceNumber: 65_534, receiveTimeUs: 1_000),
            PacketResult(sequenceNumber: 65_535, receiveTimeUs: nil),
            PacketResult(sequenceNumber: 2, receiveTimeUs: 2_000),
        ])
        let parsed = try RTCPTransportWideFeedback(parsing: feedback.serialized())
        #expect(parsed.baseSequenceNumber == 65_534)
        #expect(parsed.feedbackPacketCount == 255)
        #expect(Array(parsed.packetResults) == [
            PacketResult(sequenceNumber: 65_534, receiveTimeUs: 1_000),
            PacketResult(sequenceNumber: 65_535, receiveTimeUs: nil),
            PacketResult(sequenceNumber: 0, receiveTimeUs: nil),
            PacketResult(sequenceNumber: 1, receiveTimeUs: nil),
            PacketResult(sequenceNumber: 2, receiveTimeUs: 2_000),
        ])
    }

    @Test func receiveTimesAreFlooredTo250Microseconds() throws {
        let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [
            PacketResult(sequenceNumber: 0, receiveTimeUs: 1_000_249),
            PacketResult(sequenceNumber: 1, receiveTimeUs: -1),
        ])
        #expect(Array(feedback.packetResults).map(\.receiveTimeUs) == [1_000_000, -250])
        #expect(feedback.referenceTimeUs == 960_000)
    }

    @Test func referenceTimeIsSigned24Bits() throws {
        // 0xffffff is -1 × 64 ms.
        let parsed = try RTCPTransportWideFeedback(parsing: bytes("8f cd 0005 00000001 00000002 0005 0001 ffffff 00 2001 10 00"))
        #expect(parsed.referenceTimeUs == -64_000)
        #expect(Array(parsed.packetResults) == [PacketResult(sequenceNumber: 5, receiveTimeUs: -60_000)])
        // 2²³ × 64 ms wraps to -2²³ × 64 ms.
        let wrapped = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [
            PacketResult(sequenceNumber: 0, receiveTimeUs: (1 << 23) * 64_000 + 500),
        ])
        #expect(Array(wrapped.packetResults) == [PacketResult(sequenceNumber: 0, receiveTimeUs: -(1 << 23) * 64_000 + 500)])
    }

    @Test func runLengthChunksForLongRuns() throws {
        // 20 received, 100 lost, 1 received: run of 20 small, run of 100 lost, run of 1 small.
        var packets = (0..<20).map { PacketResult(sequenceNumber: UInt16($0), receiveTimeUs: Int64($0) * 1_000) }
        packets.append(PacketResult(sequenceNumber: 120, receiveTimeUs: 30_000))
        let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: packets)
        let wire = feedback.serialized()
        #expect(Array(wire[20..<26]) == bytes("2014 0064 2001"))
        #expect(wire.count == 48)  // 20 + 3 chunks + 21 one-byte deltas, padded
    }

    @Test func statusCountLimit() throws {
        // Steps of 32767 are the largest that count as "after".
        let fits = [0, 32_767, 65_534].map { PacketResult(sequenceNumber: UInt16($0), receiveTimeUs: nil) }
        let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: fits)
        #expect(feedback.packetStatusCount == 65_535)
        #expect(feedback.serializedSize == 40)  // 9 run length chunks
        let tooMany = fits + [PacketResult(sequenceNumber: 65_535, receiveTimeUs: nil)]
        #expect(throws: WireFormatError.self) {
            try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: tooMany)
        }
    }

    @Test(arguments: [[5, 5], [5, 4], [0, 32_768]] as [[UInt16]])
    func packetsOutOfOrderAreRefused(sequenceNumbers: [UInt16]) {
        let packets = sequenceNumbers.map { PacketResult(sequenceNumber: $0, receiveTimeUs: 0) }
        #expect(throws: WireFormatError.self) {
            try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: packets)
        }
    }

    /// A 40-byte packet claiming 65535 lost packets with run length chunks stays 40 bytes in
    /// memory; claiming 65535 received ones fails before any delta is stored.
    @Test func parsedFormStaysProportionalToThePacket() throws {
        let chunks = String(repeating: "1fff", count: 8) + "0007"
        let lost = try RTCPTransportWideFeedback(parsing: bytes("8f cd 0009 00000001 00000002 0000 ffff 000000 00" + chunks + "0000"))
        #expect(lost.packetStatusCount == 65_535)
        #expect(lost.serializedSize == 40)
        var count = 0
        for result in lost.packetResults {
            #expect(result.sequenceNumber == UInt16(count))
            #expect(result.receiveTimeUs == nil)
            count += 1
        }
        #expect(count == 65_535)

        let receivedChunks = String(repeating: "3fff", count: 8) + "2007"
        #expect(throws: WireFormatError.truncated(structure: "RTCP transport-wide feedback", needed: 65_561, available: 28)) {
            try RTCPTransportWideFeedback(parsing: bytes("8f cd 0009 00000001 00000002 0000 ffff 000000 00" + receivedChunks + "0000"))
        }
    }

    @Test func randomFeedbackRoundTrips() throws {
        var generator = SplitMix64(state: 34)
        for _ in 0..<300 {
            var sequenceNumber = UInt16.random(in: 0...UInt16.max, using: &generator)
            var timeUs = Int64.random(in: 1_000_000..<1_000_000_000, using: &generator)
            var packets: [PacketResult] = []
            for _ in 0..<Int.random(in: 1...300, using: &generator) {
                let arrived = Int.random(in: 0..<10, using: &generator) < 8
                // Mostly small steps, sometimes a jump back or a long pause.
                timeUs += [Int64.random(in: 0...20_000, using: &generator), Int64.random(in: -5_000...0, using: &generator),
                           Int64.random(in: 0...500_000, using: &generator)][Int.random(in: 0..<3, using: &generator)]
                packets.append(PacketResult(sequenceNumber: sequenceNumber, receiveTimeUs: arrived ? timeUs : nil))
                sequenceNumber &+= UInt16(Int.random(in: 1...3, using: &generator))
            }
            let feedback = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 3, packets: packets)
            let parsed = try RTCPTransportWideFeedback(parsing: feedback.serialized())
            #expect(parsed == feedback)
            let byNumber = Dictionary(uniqueKeysWithValues: packets.map { ($0.sequenceNumber, $0.receiveTimeUs) })
            let results = Array(parsed.packetResults)
            #expect(results.count == Int(packets[packets.count - 1].sequenceNumber &- packets[0].sequenceNumber) + 1)
            for result in results {
                let sent = byNumber[result.sequenceNumber] ?? nil
                #expect(result.receiveTimeUs == sent.map { $0 / 250 * 250 })
            }
        }
    }

    @Test(arguments: [
        // Pion's example 2: a two-bit vector holding the reserved symbol 3.
        "af cd 0006 fa17fa17 193dd8bb 0174 000e 45b15a 40 d800 f0ff d0 00 00 03",
        // A run length chunk of the reserved symbol.
        "8f cd 0005 00000001 00000002 0000 0001 000000 00 6001 0000",
        // Pion's examples 8 and 9: deltas missing.
        "af cd 0005 fa17fa17 43032fa0 0099 0003 3de802 17 2003 94 01",
        "af cd 0005 fa17fa17 43032fa0 0099 0002 3de802 17 4002 94 01",
        // Pion's example 3 as Pion writes it: P set, but the last byte counts no padding.
        "af cd 0007 fa17fa17 193dd8bb 0174 0006 45b15a 40 4002 2004 1ffe 1f9a d0 00 d0 00",
        // Chunks missing for the status count.
        "8f cd 0005 00000001 00000002 0000 0010 000000 00 2005 0000",
        // No room for the fixed fields.
        "8f cd 0003 00000001 00000002 0000 0001",
    ])
    func malformedThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPTransportWideFeedback(parsing: bytes(wire)) }
    }
}
