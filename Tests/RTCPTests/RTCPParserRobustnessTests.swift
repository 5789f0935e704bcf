import TestSupport
import Testing
@testable import RTCP

/// Random and bit-flipped RTCP must come back as a value or a `WireFormatError`, never a trap:
/// these bytes arrive from the network.
@Suite struct RTCPParserRobustnessTests {
    @Test func randomBytes() {
        var generator = SplitMix64(state: 13)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<80, using: &generator)
            var input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias towards version 2 so the parser gets past its first check.
            if !input.isEmpty { input[0] = input[0] & 0x3F | 0x80 }
            _ = try? RTCPCompoundPacket(parsing: input)
        }
    }

    @Test(arguments: [
        "81 c8 000c 11223344 e1234567 80000000 00015f90 0000000a 000003e8 aabbccdd 40 ffffff 00010005 00000020 45670000 00010000",
        "82 ca 0007 00000001 06 04 746f6f6c 01 01 78 000000 00000002 01 02 797a 00000000",
    ])
    func everySingleBitFlip(wire: String) {
        let valid = bytes(wire)
        for bit in 0..<valid.count * 8 {
            var input = valid
            input[bit / 8] ^= 1 << (bit % 8)
            _ = try? RTCPCompoundPacket(parsing: input)
        }
    }
}
