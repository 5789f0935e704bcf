import RTP
import STUN
import TestSupport
import Testing

@Suite("STUN: messages ICE sends")
struct STUNMessageTests {
    /// A connectivity check as RFC 8445 section 7.1 builds it, from the controlling side.
    @Test func connectivityCheckRoundTrips() throws {
        var request = STUNMessage(type: .bindingRequest, attributes: [
            .username("remoteUfrag:localUfrag"),
            .priority(1_845_501_695),
            .useCandidate,
            .iceControlling(tieBreaker: 0x0102_0304_0506_0708),
        ])
        let key = Array("remote-password-0123456789".utf8)
        try request.appendMessageIntegrity(key: key)
        try request.appendFingerprint()
        let bytes = request.serialized()

        #expect(bytes.count == request.serializedSize)
        #expect(bytes.count % 4 == 0)
        #expect(try STUNMessage(parsing: bytes) == request)
        #expect(bytes.withUnsafeBytes { STUNMessage.isSTUN($0) })
        #expect(try hasValidMessageIntegrity(bytes, key: key))
        #expect(try hasValidFingerprint(bytes))
        // USE-CANDIDATE is an empty attribute: type 0x0025, length 0.
        #expect((0..<bytes.count - 3).contains { Array(bytes[$0..<$0 + 4]) == [0x00, 0x25, 0x00, 0x00] })
    }

    @Test func errorResponseRoundTrips() throws {
        let response = STUNMessage(type: .bindingErrorResponse, attributes: [
            .errorCode(STUNErrorCode(code: STUNErrorCode.roleConflict, reason: "Role Conflict")),
            .iceControlled(tieBreaker: 42),
        ])
        let bytes = response.serialized()
        // Class 4, number 87, after two reserved bytes.
        #expect(Array(bytes[24..<28]) == [0x00, 0x00, 0x04, 87])
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed.errorCode == STUNErrorCode(code: 487, reason: "Role Conflict"))
        #expect(parsed.type.messageClass == .errorResponse)
    }

    @Test(arguments: STUNMessageClass.allCases)
    func messageTypeInterleavesMethodAndClass(_ messageClass: STUNMessageClass) throws {
        let type = STUNMessageType(method: 0xABC, messageClass: messageClass)
        let message = STUNMessage(type: type, transactionID: STUNTransactionID(upper: 1, lower: 2))
        let parsed = try STUNMessage(parsing: message.serialized())
        #expect(parsed.type == type)
    }

    @Test func bindingTypesHaveTheirWireValues() {
        let wireValues = [STUNMessageType.bindingRequest, .bindingIndication, .bindingSuccessResponse, .bindingErrorResponse]
            .map { STUNMessage(type: $0, transactionID: STUNTransactionID(upper: 0, lower: 0)).serialized() }
            .map { UInt16($0[0]) << 8 | UInt16($0[1]) }
        #expect(wireValues == [0x0001, 0x0011, 0x0101, 0x0111])
    }

    @Test func unknownAttributesSurvive() throws {
        let message = STUNMessage(type: .bindingIndication, attributes: [.other(type: 0xC057, value: [1, 2, 3, 4, 5])])
        #expect(try STUNMessage(parsing: message.serialized()) == message)
    }

    @Test func malformedInputThrows() {
        let valid = STUNMessage(type: .bindingRequest, attributes: [.priority(7)]).serialized()
        var wrongCookie = valid
        wrongCookie[4] = 0
        var lengthPastEnd = valid
        lengthPastEnd[3] = 12
        var oddLength = valid
        oddLength[3] = 7
        var shortPriority = valid
        shortPriority[23] = 2
        var badFamily = STUNMessage(type: .bindingSuccessResponse, attributes: [
            .xorMappedAddress(STUNTransportAddress(address: "192.0.2.1", port: 1)!),
        ]).serialized()
        badFamily[25] = 3
        for bytes in [Array(valid.prefix(19)), wrongCookie, lengthPastEnd, oddLength, shortPriority, badFamily, [0x80] + valid.dropFirst()] {
            #expect(throws: WireFormatError.self) { try STUNMessage(parsing: bytes) }
        }
    }

    @Test func writingChecksLimits() {
        let tooLong = STUNMessage(type: .bindingRequest, attributes: [.username(String(repeating: "u", count: 513))])
        #expect(throws: WireFormatError.self) {
            var buffer = [UInt8](repeating: 0, count: tooLong.serializedSize)
            _ = try buffer.withUnsafeMutableBytes { raw throws(WireFormatError) in try tooLong.serialize(into: raw) }
        }
        let message = STUNMessage(type: .bindingRequest)
        #expect(throws: WireFormatError.bufferTooSmall(structure: "STUN message", needed: 20, available: 10)) {
            var buffer = [UInt8](repeating: 0, count: 10)
            _ = try buffer.withUnsafeMutableBytes { raw throws(WireFormatError) in try message.serialize(into: raw) }
        }
    }

    /// Random bytes, and valid messages with random corruption, never trap: they parse or throw.
    @Test func garbageNeverTraps() throws {
        var random = SplitMix64(state: 5769)
        var seed = STUNMessage(type: .bindingRequest, attributes: [
            .username("a:b"), .priority(1), .iceControlled(tieBreaker: 9),
            .xorMappedAddress(STUNTransportAddress(address: "2001:db8::1", port: 9)!),
            .errorCode(STUNErrorCode(code: 401, reason: "Unauthorized")), .software("camrtp"),
        ])
        try seed.appendMessageIntegrity(key: [1, 2, 3])
        try seed.appendFingerprint()
        let valid = seed.serialized()
        var parsed = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 120)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if bytes.count >= 8, round % 4 == 0 {
                    // Often enough a plausible header, so the attribute walk runs too.
                    bytes[0] = 0
                    bytes[4] = 0x21; bytes[5] = 0x12; bytes[6] = 0xA4; bytes[7] = 0x42
                    bytes[2] = 0; bytes[3] = UInt8(max(0, bytes.count - 20) & ~3)
                }
            } else {
                bytes = valid
                for _ in 0..<(1 + random.next() % 4) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            }
            if (try? STUNMessage(parsing: bytes)) != nil { parsed += 1 }
            _ = try? hasValidMessageIntegrity(bytes, key: [1])
            _ = try? hasValidFingerprint(bytes)
            _ = bytes.withUnsafeBytes { STUNMessage.isSTUN($0) }
        }
        #expect(parsed > 0)
    }
}
