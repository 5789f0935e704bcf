import TestSupport
import Testing
@testable import RTCP
import RTP

/// Random and bit-flipped RTCP must come back as a value or a `WireFormatError`, never a trap:
/// these bytes arrive from the network. What parses must also write itself back and read the
/// same again, and expanding it (NACK numbers, feedback results) must not trap either.
@Suite struct RTCPParserRobustnessTests {
    static func parseEverything(_ input: [UInt8]) {
        if let compound = try? RTCPCompoundPacket(parsing: input) {
            #expect(!compound.serialized().isEmpty)
        }
        _ = input.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        expectStable(RTCPGenericNACK.self, input) { _ = $0.lostSequenceNumbers }
        expectStable(RTCPPictureLossIndication.self, input) { _ in }
        expectStable(RTCPFullIntraRequest.self, input) { _ in }
        expectStable(RTCPReceiverEstimatedMaximumBitrate.self, input) { _ = $0.bitrateBps }
        expectStable(RTCPApplicationDefined.self, input) { _ in }
        expectStable(RTCPTransportWideFeedback.self, input) { feedback in
            var count = 0
            for _ in feedback.packetResults { count += 1 }
            #expect(count == feedback.packetStatusCount)
        }
    }

    /// Parses `input` as `T`; whatever parses must round-trip through its own bytes.
    static func expectStable<T: WireFormat & Equatable>(_: T.Type, _ input: [UInt8], _ use: (T) -> Void) {
        guard let parsed = try? T(parsing: input) else { return }
        use(parsed)
        #expect((try? T(parsing: parsed.serialized())) == parsed)
    }

    /// Random bytes shaped like RTCP: version 2, a feedback or APP type with a matching FMT
    /// most of the time, and a length that fits, so that the parsers get past their first checks.
    @Test func randomBytes() {
        var generator = SplitMix64(state: 13)
        let shapes: [(packetType: UInt8, format: UInt8)] = [(205, 1), (205, 15), (206, 1), (206, 4), (206, 15), (204, 0), (201, 0)]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<80, using: &generator)
            var input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if input.count >= 4, Bool.random(using: &generator) {
                let shape = shapes[Int.random(in: 0..<shapes.count, using: &generator)]
                input[0] = 0x80 | input[0] & 0x20 | shape.format
                input[1] = shape.packetType
                input[2] = 0
                input[3] = UInt8(input.count / 4 - 1)
                if input.count >= 16, shape.format == 15, shape.packetType == 206, Bool.random(using: &generator) {
                    input.replaceSubrange(12..<16, with: [0x52, 0x45, 0x4D, 0x42])
                }
            } else if !input.isEmpty {
                // Bias towards version 2 so the parser gets past its first check.
                input[0] = input[0] & 0x3F | 0x80
            }
            Self.parseEverything(input)
        }
    }

    @Test(arguments: [
        "81 c8 000c 11223344 e1234567 80000000 00015f90 0000000a 000003e8 aabbccdd 40 ffffff 00010005 00000020 45670000 00010000",
        "82 ca 0007 00000001 06 04 746f6f6c 01 01 78 000000 00000002 01 02 797a 00000000",
        "81cd0003 b8771b28 11223344 fffc 007d",
        "81ce0002 b8771b28 11223344",
        "84ce0006 00000001 00000000 11223344 05000000 55667788 ff000000",
        "8f ce 0007 12345678 00000000 52454d42 03 07fb93 23456789 2345678a 2345678b",
        "83 cc 0004 11223344 5155414c 01020304 05060708",
        "af cd 0007 9b74f61f 9371dcbc 853c 0009 63f916 b3 d552 0030 9b aa 6a aa 7b 0109 01",
        "8fcd0007 b8771b28 11223344 fffd 0009 000001 01 d442 2002 1c 35 c5 010d 32 60 00",
        "af cd 0006 fa17fa17 193dd8bb 0001 000e 10636d 00 ba00 10 0c 0c 10 0002",
        "80c90001 b8771b28 81ce0002 b8771b28 11223344 81cd0003 b8771b28 11223344 fffa 0002",
    ])
    func everySingleBitFlip(wire: String) {
        let valid = bytes(wire)
        for bit in 0..<valid.count * 8 {
            var input = valid
            input[bit / 8] ^= 1 << (bit % 8)
            Self.parseEverything(input)
        }
    }
}
