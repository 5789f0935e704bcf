import RTP
import STUN
import Testing

/// RFC 5769 section 2: sample messages with short-term credentials, parsed, checked and written
/// back byte for byte (their padding is spaces, which `paddingByte` keeps).
@Suite("STUN: RFC 5769 test vectors")
struct STUNVectorTests {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID = STUNTransactionID(upper: 0xB7E7_A701, lower: 0xBC34_D686_FA87_DFAE)

    /// Section 2.1, Sample Request.
    static let request = bytes("""
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff
        80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf
        """)

    /// Section 2.2, Sample IPv4 Response.
    static let ipv4Response = bytes("""
        01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08 00 01 a1 47 e1 12 a6 43
        00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04 c0 7d 4c 96
        """)

    /// Section 2.3, Sample IPv6 Response.
    static let ipv6Response = bytes("""
        01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04 c8 fb 0b 4c
        """)

    @Test func sampleRequestParses() throws {
        let message = try STUNMessage(parsing: Self.request)
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == Self.transactionID)
        #expect(message.attributes == [
            .software("STUN test client"),
            .priority(0x6E00_01FF),
            .iceControlled(tieBreaker: 0x932F_F9B1_5126_3B36),
            .username("evtj:h6vY"),
            .messageIntegrity(Self.bytes("9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2")),
            .fingerprint(0xE57A_3BCF),
        ])
        #expect(message.username == "evtj:h6vY")
        #expect(message.paddingByte == 0x20)
    }

    @Test func sampleIPv4ResponseParses() throws {
        let message = try STUNMessage(parsing: Self.ipv4Response)
        #expect(message.type == .bindingSuccessResponse)
        #expect(message.xorMappedAddress == STUNTransportAddress(address: "192.0.2.1", port: 32853))
        #expect(message.xorMappedAddress?.description == "192.0.2.1:32853")
        #expect(message.attributes.first == .software("test vector"))
    }

    @Test func sampleIPv6ResponseParses() throws {
        let message = try STUNMessage(parsing: Self.ipv6Response)
        #expect(message.type == .bindingSuccessResponse)
        let address = try #require(message.xorMappedAddress)
        #expect(address.ip == .v6(upper: 0x2001_0DB8_1234_5678, lower: 0x0011_2233_4455_6677))
        #expect(address.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
    }

    @Test(arguments: [request, ipv4Response, ipv6Response])
    func integrityAndFingerprintVerify(_ vector: [UInt8]) throws {
        #expect(try hasValidMessageIntegrity(vector, key: Self.password))
        #expect(try hasValidFingerprint(vector))
        #expect(try !hasValidMessageIntegrity(vector, key: Array("wrong password".utf8)))
    }

    @Test(arguments: [request, ipv4Response, ipv6Response])
    func reserializesByteForByte(_ vector: [UInt8]) throws {
        let message = try STUNMessage(parsing: vector)
        #expect(message.serializedSize == vector.count)
        #expect(message.serialized() == vector)
    }

    /// Building each vector from its fields, with MESSAGE-INTEGRITY and FINGERPRINT computed,
    /// gives the RFC's bytes: our HMAC and CRC agree with its.
    @Test(arguments: [request, ipv4Response, ipv6Response])
    func computedIntegrityAndFingerprintMatch(_ vector: [UInt8]) throws {
        let parsed = try STUNMessage(parsing: vector)
        var built = STUNMessage(
            type: parsed.type, transactionID: parsed.transactionID, attributes: Array(parsed.attributes.dropLast(2)),
            paddingByte: 0x20)
        try built.appendMessageIntegrity(key: Self.password)
        try built.appendFingerprint()
        #expect(built.serialized() == vector)
    }

    /// A flipped bit anywhere before FINGERPRINT breaks it, and anywhere before
    /// MESSAGE-INTEGRITY breaks that too: the check fails, or the message no longer parses.
    @Test func tamperingIsDetected() {
        for index in STUNMessage.headerSize..<Self.request.count - 8 {
            var tampered = Self.request
            tampered[index] ^= 0x01
            #expect((try? hasValidFingerprint(tampered)) != true, "byte \(index)")
            if index < Self.request.count - 32 {
                #expect((try? hasValidMessageIntegrity(tampered, key: Self.password)) != true, "byte \(index)")
            }
        }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(whereSeparator: \.isWhitespace).compactMap { UInt8($0, radix: 16) }
    }
}

func hasValidMessageIntegrity(_ bytes: [UInt8], key: [UInt8]) throws -> Bool {
    try bytes.withUnsafeBytes { raw in try STUNMessage.hasValidMessageIntegrity(raw, key: key) }
}

func hasValidFingerprint(_ bytes: [UInt8]) throws -> Bool {
    try bytes.withUnsafeBytes { raw in try STUNMessage.hasValidFingerprint(raw) }
}
