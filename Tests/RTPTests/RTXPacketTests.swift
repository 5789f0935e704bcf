import TestSupport
import Testing
@testable import RTP

@Suite struct RTXPacketTests {
    // Marker, PT 96, one CSRC, abs-send-time (ID 2), transport-wide sequence number (ID 3) and
    // video orientation (ID 13), a 5-byte payload and 3 bytes of padding.
    static let original = "b1 e0 1234 00015f90 11223344 aabbccdd bede 0003 22abcdef 31fffe d0 01 000000 1001020304 000003"
    // RTX SSRC and PT 97, its own sequence number 7; P cleared; the OSN 0x1234 before the payload.
    static let retransmission = "91 e1 0007 00015f90 55667788 aabbccdd bede 0003 22abcdef 31fffe d0 01 000000 1234 1001020304"

    static func write(_ original: [UInt8], bufferSize: Int = 1_500) throws(WireFormatError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        let length = try buffer.withUnsafeMutableBytes { output in
            original.withUnsafeBytes { input in
                Result { () throws(WireFormatError) -> Int in
                    try RTXPacket.write(retransmitting: input, ssrc: 0x5566_7788, payloadType: 97, sequenceNumber: 7, into: output)
                }
            }
        }.get()
        return Array(buffer.prefix(length))
    }

    @Test func retransmissionBytes() throws {
        let original = bytes(Self.original)
        #expect(try Self.write(original) == bytes(Self.retransmission))
        #expect(try original.withUnsafeBytes { input in
            Result { () throws(WireFormatError) -> Int in try RTXPacket.size(retransmitting: input) }
        }.get() == bytes(Self.retransmission).count)
    }

    @Test func extensionsAreCopiedAndStayPatchable() throws {
        var retransmission = try Self.write(bytes(Self.original))
        let header = try RTPHeader(parsing: retransmission)
        #expect(header.extensionElements == (try RTPHeader(parsing: bytes(Self.original))).extensionElements)
        #expect(header.csrcs == [0xAABB_CCDD])
        #expect(header.marker && header.timestamp == 90_000)
        let offset = try #require(header.byteOffset(ofExtensionData: 3))
        retransmission.withUnsafeMutableBytes { TransportWideSequenceNumber(value: 42).patch($0, atByteOffset: offset) }
        #expect(try TransportWideSequenceNumber(element: try RTPHeader(parsing: retransmission).extensionElements[1]).value == 42)
    }

    @Test func originalComesBack() throws {
        let original = try RTPPacket(parsing: bytes(Self.original))
        let recovered = try bytes(Self.retransmission).withUnsafeBytes { packet in
            Result { () throws(WireFormatError) -> RTPPacket in
                try RTXPacket.original(ofRetransmission: packet, ssrc: 0x1122_3344, payloadType: 96)
            }
        }.get()
        var withoutPadding = original
        withoutPadding.paddingCount = 0
        #expect(recovered == withoutPadding)
        #expect(recovered.payload == [0x10, 0x01, 0x02, 0x03, 0x04])
    }

    @Test func plainPacketWithoutExtensions() throws {
        let original = bytes("80 60 ffff 00000001 11223344 abcd")
        #expect(try Self.write(original) == bytes("80 61 0007 00000001 55667788 ffff abcd"))
    }

    @Test func smallBufferThrows() {
        #expect(throws: WireFormatError.bufferTooSmall(structure: "RTX packet", needed: 39, available: 38)) {
            try Self.write(bytes(Self.original), bufferSize: 38)
        }
    }

    @Test(arguments: [
        "40 60 0001 00000001 11223344 abcd",  // version 1
        "80 60 0001 00000001 1122",  // short fixed header
        "81 60 0001 00000001 11223344",  // CSRC missing
        "90 60 0001 00000001 11223344 bede 0002 22abcdef",  // extension block shorter than its length
        "a0 60 0001 00000001 11223344 abcd 00",  // padding count 0
        "a0 60 0001 00000001 11223344 ab 05",  // padding beyond the payload
    ])
    func malformedOriginalThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try Self.write(bytes(wire)) }
    }

    @Test func retransmissionWithoutOSNThrows() {
        #expect(throws: WireFormatError.self) {
            try bytes("80 61 0007 00000001 55667788 12").withUnsafeBytes { packet in
                Result { () throws(WireFormatError) -> RTPPacket in
                    try RTXPacket.original(ofRetransmission: packet, ssrc: 1, payloadType: 96)
                }
            }.get()
        }
    }

    static func roundTrip(_ input: [UInt8]) {
        let written = try? write(input)
        let recovered = written.flatMap { rtx in
            try? rtx.withUnsafeBytes { packet in
                Result { () throws(WireFormatError) -> RTPPacket in
                    try RTXPacket.original(ofRetransmission: packet, ssrc: 0x1122_3344, payloadType: 96)
                }
            }.get()
        }
        _ = try? input.withUnsafeBytes { packet in
            Result { () throws(WireFormatError) -> RTPPacket in try RTXPacket.original(ofRetransmission: packet, ssrc: 1, payloadType: 96) }
        }.get()
        // Whatever RTPPacket reads comes back through RTX, padding aside.
        guard var original = try? RTPPacket(parsing: input) else { return }
        original.paddingCount = 0
        original.header.ssrc = 0x1122_3344
        original.header.payloadType = 96
        #expect(recovered == original)
    }

    /// Random and bit-flipped originals: a value or a `WireFormatError`, never a trap.
    @Test func randomBytes() {
        var generator = SplitMix64(state: 17)
        for _ in 0..<20_000 {
            var input = (0..<Int.random(in: 0..<60, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !input.isEmpty { input[0] = input[0] & 0x3F | 0x80 }
            Self.roundTrip(input)
        }
    }

    @Test(arguments: [original, retransmission])
    func everySingleBitFlip(wire: String) {
        let valid = bytes(wire)
        for bit in 0..<valid.count * 8 {
            var input = valid
            input[bit / 8] ^= 1 << (bit % 8)
            Self.roundTrip(input)
        }
    }
}
