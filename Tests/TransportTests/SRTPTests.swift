import Testing
import RTP
import Transport

/// RFC 3711 Appendix B.3 master key ‖ master salt.
private let rfc3711MasterKey: [UInt8] = [
    0xE1, 0xF9, 0x7A, 0x0D, 0x3E, 0x01, 0x8B, 0xE0, 0xD6, 0x4F, 0xA3, 0x2C, 0x06, 0xDE, 0x41, 0x39,
    0x0E, 0xC6, 0x75, 0xAD, 0x49, 0x8A, 0xFE, 0xEB, 0xB6, 0x96, 0x0B, 0x3A, 0xAB, 0xE6,
]

/// RTP packet: V=2, PT=15, SEQ=0x1234, TS=0xDECAFBAD, SSRC=0xCAFEBABE, 16 payload bytes of 0xAB.
private let knownRTP: [UInt8] = [0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE]
    + [UInt8](repeating: 0xAB, count: 16)

/// The same packet under AES_CM_128_HMAC_SHA1_80 with the B.3 key: payload XOR the B.3 session
/// keystream (4E55DC4C…), then the 80-bit tag. libsrtp's own known-answer test uses these bytes.
private let knownSRTP: [UInt8] = [
    0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE,
    0x4E, 0x55, 0xDC, 0x4C, 0xE7, 0x99, 0x78, 0xD8, 0x8C, 0xA4, 0xD2, 0x15, 0x94, 0x9D, 0x24, 0x02,
    0xB7, 0x8D, 0x6A, 0xCC, 0x99, 0xEA, 0x17, 0x9B, 0x8D, 0xBB,
]

/// An RTCP sender report header (SSRC 0xCAFEBABE) with 16 bytes of 0xAB.
private let knownRTCP: [UInt8] = [0x81, 0xC8, 0x00, 0x0B, 0xCA, 0xFE, 0xBA, 0xBE]
    + [UInt8](repeating: 0xAB, count: 16)

/// Its first SRTCP protection: encrypted body, E=1 with index 1, 80-bit tag.
private let knownSRTCP: [UInt8] = [
    0x81, 0xC8, 0x00, 0x0B, 0xCA, 0xFE, 0xBA, 0xBE,
    0x71, 0x28, 0x03, 0x5B, 0xE4, 0x87, 0xB9, 0xBD, 0xBE, 0xF8, 0x90, 0x41, 0xF9, 0x77, 0xA5, 0xA8,
    0x80, 0x00, 0x00, 0x01, 0x99, 0x3E, 0x08, 0xCD, 0x54, 0xD6, 0xC1, 0x23, 0x07, 0x98,
]

/// A buffer with `bytes` at the start and SRTP tail room after them.
private final class PacketBuffer {
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    var length: Int

    init(_ bytes: [UInt8]) {
        storage.copyBytes(from: bytes)
        length = bytes.count
    }

    deinit { storage.deallocate() }

    var bytes: [UInt8] { Array(storage[..<length]) }
}

private func rtpPacket(sequence: UInt16, payloadLength: Int = 200) -> [UInt8] {
    [0x80, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x0B, 0xB8, 0x12, 0x34, 0x56, 0x78]
        + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &+ Int(sequence)) }
}

/// Every suite this libsrtp2 supports; an unsupported one is reported, not silently dropped.
private let suitesUnderTest: [SRTPSuite] = SRTPSuite.allCases.filter { suite in
    if suite.isSupported { return true }
    print("SKIPPED \(suite.sdpName): this libsrtp2 build does not support it")
    return false
}

@Suite("SRTP over libsrtp2")
struct SRTPTests {
    @Test func knownAnswerRTP() throws {
        let key = try SRTPMasterKey(suite: .aesCM128HMACSHA1_80, bytes: rfc3711MasterKey)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let packet = PacketBuffer(knownRTP)
        packet.length = try sender.protectRTP(packet.storage, length: packet.length)
        #expect(packet.bytes == knownSRTP)

        let receiver = try SRTPSession(key: key, direction: .inbound)
        packet.length = try receiver.unprotectRTP(packet.storage, length: packet.length)
        #expect(packet.bytes == knownRTP)
    }

    @Test func knownAnswerRTPWith32BitTag() throws {
        let key = try SRTPMasterKey(suite: .aesCM128HMACSHA1_32, bytes: rfc3711MasterKey)
        let packet = PacketBuffer(knownRTP)
        packet.length = try SRTPSession(key: key, direction: .outbound).protectRTP(packet.storage, length: packet.length)
        #expect(packet.bytes == Array(knownSRTP.prefix(knownRTP.count + 4)))
    }

    @Test func knownAnswerRTCP() throws {
        let key = try SRTPMasterKey(suite: .aesCM128HMACSHA1_80, bytes: rfc3711MasterKey)
        let packet = PacketBuffer(knownRTCP)
        packet.length = try SRTPSession(key: key, direction: .outbound).protectRTCP(packet.storage, length: packet.length)
        #expect(packet.bytes == knownSRTCP)
        packet.length = try SRTPSession(key: key, direction: .inbound).unprotectRTCP(packet.storage, length: packet.length)
        #expect(packet.bytes == knownRTCP)
    }

    @Test(arguments: suitesUnderTest)
    func suiteRoundTripsWithItsTagLengths(suite: SRTPSuite) throws {
        let key = SRTPMasterKey(randomFor: suite)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        #expect(sender.rtpTrailerLength == suite.rtpAuthenticationTagLength)
        #expect(sender.rtcpTrailerLength == suite.rtcpTrailerLength)

        for sequence: UInt16 in 1...20 {
            let plain = rtpPacket(sequence: sequence)
            let packet = PacketBuffer(plain)
            packet.length = try sender.protectRTP(packet.storage, length: packet.length)
            #expect(packet.length == plain.count + suite.rtpAuthenticationTagLength)
            #expect(Array(packet.bytes[12..<plain.count]) != Array(plain[12...]), "payload not encrypted")
            packet.length = try receiver.unprotectRTP(packet.storage, length: packet.length)
            #expect(packet.bytes == plain)
        }
        let report = PacketBuffer(knownRTCP)
        report.length = try sender.protectRTCP(report.storage, length: report.length)
        #expect(report.length == knownRTCP.count + suite.rtcpTrailerLength)
        report.length = try receiver.unprotectRTCP(report.storage, length: report.length)
        #expect(report.bytes == knownRTCP)
    }

    @Test func keyingMaterialLengths() {
        #expect(SRTPSuite.aesCM128HMACSHA1_80.keyingMaterialLength == 30)
        #expect(SRTPSuite.aesCM128HMACSHA1_32.keyingMaterialLength == 30)
        #expect(SRTPSuite.aes256CMHMACSHA1_80.keyingMaterialLength == 46)
        #expect(SRTPSuite.aeadAES128GCM.keyingMaterialLength == 28)
        #expect(SRTPSuite.aeadAES256GCM.keyingMaterialLength == 44)
        #expect(SRTPSuite(sdpName: "AEAD_AES_256_GCM") == .aeadAES256GCM)
        #expect(SRTPSuite(sdpName: "F8_128_HMAC_SHA1_80") == nil)
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sender = try SRTPSession(key: SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80), direction: .outbound)
        let receiver = try SRTPSession(key: SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80), direction: .inbound)
        let packet = PacketBuffer(rtpPacket(sequence: 7))
        packet.length = try sender.protectRTP(packet.storage, length: packet.length)
        #expect {
            try receiver.unprotectRTP(packet.storage, length: packet.length)
        } throws: { error in
            (error as? SRTPError)?.isAuthenticationFailure == true
                && "\(error)" == "SRTPError: srtp_unprotect failed: authentication failure (srtp_err_status_auth_fail, 7)"
        }
    }

    @Test func replayedPacketIsRejected() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let protected = PacketBuffer(rtpPacket(sequence: 9))
        protected.length = try SRTPSession(key: key, direction: .outbound).protectRTP(protected.storage, length: protected.length)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        let first = PacketBuffer(protected.bytes)
        _ = try receiver.unprotectRTP(first.storage, length: first.length)
        let again = PacketBuffer(protected.bytes)
        #expect {
            try receiver.unprotectRTP(again.storage, length: again.length)
        } throws: { error in
            "\(error)" == "SRTPError: srtp_unprotect failed: replay check failed (srtp_err_status_replay_fail, 9)"
        }
    }

    @Test func protectsAWholeBatchInPlace() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        let batch = RTPPacketBatch(slotCapacity: 1200, tailroom: SRTPSession.maximumTrailerLength)
        let packets = (1...10).map { rtpPacket(sequence: UInt16($0), payloadLength: 1188) }
        for packet in packets { packet.withUnsafeBytes { batch.append(copying: $0) } }

        try sender.protectRTP(in: batch)
        for (index, plain) in packets.enumerated() {
            #expect(batch.length(at: index) == 1210)
            let length = try receiver.unprotectRTP(batch.slot(at: index), length: batch.length(at: index))
            #expect(Array(batch.slot(at: index)[..<length]) == plain)
        }
    }

    @Test func tooLittleTailRoomIsAnError() throws {
        let sender = try SRTPSession(key: SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80), direction: .outbound)
        let batch = RTPPacketBatch(slotCapacity: 100, tailroom: 4)
        rtpPacket(sequence: 1, payloadLength: 88).withUnsafeBytes { batch.append(copying: $0) }
        #expect {
            try sender.protectRTP(in: batch)
        } throws: { error in
            "\(error)" == "SRTPError: srtp_protect failed: unsupported parameter (srtp_err_status_bad_param, 2): "
                + "a 100-byte packet in a 104-byte buffer; 10 bytes must stay free after it"
        }
    }
}

@Suite("SRTP keying material")
struct SRTPMasterKeyTests {
    @Test func base64RoundTrip() throws {
        let key = try SRTPMasterKey(base64: "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm", suite: .aesCM128HMACSHA1_80)
        #expect(key.base64EncodedKeyingMaterial() == "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm")
        #expect(key == (try SRTPMasterKey(suite: .aesCM128HMACSHA1_80, bytes: rfc3711MasterKey)))
    }

    @Test func wrongLengthNamesWhatIsNeeded() {
        #expect {
            try SRTPMasterKey(base64: "AAECAwQFBgcICQoL", suite: .aesCM128HMACSHA1_80)
        } throws: { error in
            "\(error)" == "--srtp-key must be base64 of 30 bytes (16-byte key ‖ 14-byte salt); got 12 bytes"
        }
        #expect {
            try SRTPMasterKey(base64: "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm", suite: .aes256CMHMACSHA1_80)
        } throws: { error in
            "\(error)" == "--srtp-key must be base64 of 46 bytes (32-byte key ‖ 14-byte salt); got 30 bytes"
        }
        #expect {
            try SRTPMasterKey(suite: .aeadAES128GCM, bytes: rfc3711MasterKey)
        } throws: { error in
            "\(error)" == "--srtp-key must be base64 of 28 bytes (16-byte key ‖ 12-byte salt); got 30 bytes"
        }
    }

    @Test(arguments: ["not base64!", "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqv", ""])
    func invalidBase64IsRejected(text: String) {
        #expect {
            try SRTPMasterKey(base64: text, suite: .aesCM128HMACSHA1_80)
        } throws: { error in
            "\(error)".hasPrefix("--srtp-key must be base64 of 30 bytes (16-byte key ‖ 14-byte salt); ")
        }
    }

    @Test func randomKeysHaveTheSuiteLengthAndDiffer() {
        let first = SRTPMasterKey(randomFor: .aes256CMHMACSHA1_80)
        let second = SRTPMasterKey(randomFor: .aes256CMHMACSHA1_80)
        #expect(first != second)
        #expect(first.base64EncodedKeyingMaterial().count == 64)
    }

    @Test func keyNeverShowsInDescriptions() {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let secret = key.base64EncodedKeyingMaterial()
        var dumped = ""
        dump(key, to: &dumped)
        for rendering in [String(describing: key), String(reflecting: key), dumped, "\([key])"] {
            #expect(!rendering.contains(secret) && !rendering.contains("bytes"), "key leaked: \(rendering)")
        }
        #expect(String(describing: key) == "SRTPMasterKey(AES_CM_128_HMAC_SHA1_80, <redacted>)")
    }
}
