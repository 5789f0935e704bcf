import DTLS
import Testing
import Transport

/// An RTP packet (PT 96, SSRC 0x1234_5678) with room for the SRTP trailer after it.
private func rtpPacket(sequence: UInt16) -> [UInt8] {
    [0x80, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x0B, 0xB8, 0x12, 0x34, 0x56, 0x78]
        + (0..<160).map { UInt8(truncatingIfNeeded: $0) }
}

/// An RTCP sender report without report blocks: header, SSRC, NTP time, RTP time, counts.
private let rtcpPacket: [UInt8] = [0x80, 0xC8, 0x00, 0x06, 0x12, 0x34, 0x56, 0x78]
    + [0xE8, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0B, 0xB8, 0, 0, 0, 3, 0, 0, 0x01, 0xE0]

/// Protects `packet` with `sender`, unprotects it with `receiver`, and returns what comes out.
private func roundTrip(_ packet: [UInt8], rtcp: Bool, sender: SRTPSession, receiver: SRTPSession) throws -> [UInt8] {
    var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
    return try buffer.withUnsafeMutableBytes { bytes in
        let protected = try rtcp
            ? sender.protectRTCP(bytes, length: packet.count) : sender.protectRTP(bytes, length: packet.count)
        #expect(protected > packet.count)
        // Everything after the fixed header (12 bytes of RTP, 8 of RTCP) is encrypted.
        let headerLength = rtcp ? 8 : 12
        #expect(Array(bytes[headerLength..<packet.count]) != Array(packet[headerLength...]))
        let plain = try rtcp
            ? receiver.unprotectRTCP(bytes, length: protected) : receiver.unprotectRTP(bytes, length: protected)
        return Array(bytes[..<plain])
    }
}

@Suite("SRTP on DTLS-SRTP keys")
struct DTLSSRTPTests {
    @Test(arguments: [SRTPSuite.aeadAES128GCM, .aesCM128HMACSHA1_80])
    func eachSideReadsWhatTheOtherProtects(suite: SRTPSuite) throws {
        let link = try InMemoryLink(clientSuites: [suite])
        link.handshake()
        let client = try #require(link.clientKeys)
        let server = try #require(link.serverKeys)
        #expect(client.suite == suite)

        let clientSender = try SRTPSession(key: client.outbound, direction: .outbound)
        let serverReceiver = try SRTPSession(key: server.inbound, direction: .inbound)
        let serverSender = try SRTPSession(key: server.outbound, direction: .outbound)
        let clientReceiver = try SRTPSession(key: client.inbound, direction: .inbound)
        #expect(clientSender.rtpTrailerLength == suite.rtpAuthenticationTagLength)

        for sequence in UInt16(1)...3 {
            let packet = rtpPacket(sequence: sequence)
            #expect(try roundTrip(packet, rtcp: false, sender: clientSender, receiver: serverReceiver) == packet)
            #expect(try roundTrip(packet, rtcp: false, sender: serverSender, receiver: clientReceiver) == packet)
        }
        #expect(try roundTrip(rtcpPacket, rtcp: true, sender: clientSender, receiver: serverReceiver) == rtcpPacket)
        #expect(try roundTrip(rtcpPacket, rtcp: true, sender: serverSender, receiver: clientReceiver) == rtcpPacket)
    }

    @Test(arguments: [SRTPSuite.aeadAES128GCM, .aesCM128HMACSHA1_80])
    func aSideCannotReadItsOwnDirection(suite: SRTPSuite) throws {
        let link = try InMemoryLink(clientSuites: [suite])
        link.handshake()
        let client = try #require(link.clientKeys)
        let sender = try SRTPSession(key: client.outbound, direction: .outbound)
        let wrongReceiver = try SRTPSession(key: client.inbound, direction: .inbound)
        let error = try #require(throws: SRTPError.self) {
            try roundTrip(rtpPacket(sequence: 7), rtcp: false, sender: sender, receiver: wrongReceiver)
        }
        #expect(error.isAuthenticationFailure)
    }
}
