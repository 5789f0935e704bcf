import TestSupport
import Testing
@testable import RTP

/// Random and bit-flipped input must come back as a value or a `WireFormatError`, never a trap.
@Suite struct ParserRobustnessTests {
    static func parseEverything(_ input: [UInt8]) {
        _ = try? RTPPacket(parsing: input)
        _ = try? VP8PayloadDescriptor(parsing: input)
        _ = try? VP8PayloadHeader(parsing: input)
        _ = try? REDHeader(parsing: input)
        _ = try? ULPFECHeader(parsing: input)
        _ = ULPFECRecovery.recover(from: input, ssrc: 1) { _ in input }
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: 3)
        _ = try? depacketizer.push(input)
    }

    @Test func randomBytes() {
        var generator = SplitMix64(state: 11)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<80, using: &generator)
            var input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias towards version 2 so the parsers get past their first check.
            if !input.isEmpty { input[0] = input[0] & 0x3F | 0x80 }
            Self.parseEverything(input)
        }
    }

    @Test(arguments: [
        "90 e0 03e8 00015f90 11223344 bede0002 22000000 d0010000 b0 80 9234 010203",
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
