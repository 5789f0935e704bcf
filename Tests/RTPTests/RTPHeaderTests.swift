import Testing
@testable import RTP

@Suite struct RTPHeaderTests {
    @Test func minimalHeaderMatchesHandWrittenBytes() throws {
        // V=2 P=0 X=0 CC=0 | M=1 PT=96 | seq 0x1234 | ts 0xDEADBEEF | SSRC 0x01020304
        let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304)
        let expected = bytes("80 e0 1234 deadbeef 01020304")
        #expect(header.serialized() == expected)
        #expect(header.serializedSize == 12)
        #expect(try RTPHeader(parsing: expected) == header)
    }
}
