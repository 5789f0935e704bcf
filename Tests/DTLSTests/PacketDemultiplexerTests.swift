import DTLS
import Testing

@Suite("RFC 7983 demultiplexing")
struct PacketDemultiplexerTests {
    private func classify(_ bytes: [UInt8]) -> MultiplexedPacketKind? {
        bytes.withUnsafeBytes { PacketDemultiplexer.classify($0) }
    }

    @Test(arguments: [
        // First byte at each edge of each range, with a plausible second byte.
        ([0x00, 0x01], MultiplexedPacketKind.stun),  // STUN Binding Request (RFC 5389 section 6)
        ([0x01, 0x01], .stun),  // Binding Success Response
        ([0x03, 0x00], .stun),
        ([0x10, 0x00], .zrtp),
        ([0x13, 0x00], .zrtp),
        ([0x14, 0xFE], .dtls),  // ChangeCipherSpec
        ([0x16, 0xFE], .dtls),  // Handshake
        ([0x17, 0xFE], .dtls),  // ApplicationData
        ([0x3F, 0x00], .dtls),
        ([0x40, 0x00], .turnChannel),  // ChannelData, channel 0x4000
        ([0x4F, 0xFF], .turnChannel),
        ([0x80, 0x60], .rtp),  // V=2, PT 96
        ([0x80, 0xE0], .rtp),  // PT 96 with the marker bit: 224 is outside 192…223
        ([0x90, 0x7F], .rtp),
        ([0x80, 0xBF], .rtp),  // PT 63 with the marker bit: 191
        ([0x80, 0xC0], .rtcp),  // 192, the first RTCP value
        ([0x80, 0xC8], .rtcp),  // SR
        ([0x81, 0xC9], .rtcp),  // RR with one block
        ([0x81, 0xCD], .rtcp),  // RTPFB (NACK, TWCC)
        ([0x81, 0xCE], .rtcp),  // PSFB (PLI)
        ([0xBF, 0xDF], .rtcp),  // 223, the last RTCP value
    ] as [([UInt8], MultiplexedPacketKind)])
    func classifies(bytes: [UInt8], kind: MultiplexedPacketKind) {
        #expect(classify(bytes) == kind)
    }

    @Test(arguments: [
        [], [0x04], [0x0F, 0x00], [0x50, 0x00], [0x7F, 0x00], [0xC0, 0x00], [0xFF, 0xFF],
        [0x80],  // RTP range, but no second byte to tell RTP from RTCP
    ] as [[UInt8]])
    func dropsEverythingElse(bytes: [UInt8]) {
        #expect(classify(bytes) == nil)
    }

    @Test func everyFirstByteHasOneAnswer() {
        var counts: [MultiplexedPacketKind?: Int] = [:]
        for first in 0...255 { counts[classify([UInt8(first), 0x60]), default: 0] += 1 }
        #expect(counts[.stun] == 4)
        #expect(counts[.zrtp] == 4)
        #expect(counts[.dtls] == 44)
        #expect(counts[.turnChannel] == 16)
        #expect(counts[.rtp] == 64)
        #expect(counts[nil] == 256 - 4 - 4 - 44 - 16 - 64)
    }
}
