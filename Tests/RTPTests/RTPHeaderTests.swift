import TestSupport
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

    @Test func csrcsAndPaddingBit() throws {
        let header = RTPHeader(
            hasPadding: true, payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [0xAABB_CCDD, 0x1122_3344])
        let expected = bytes("a2 00 0001 00000002 00000003 aabbccdd 11223344")
        #expect(header.serialized() == expected)
        #expect(try RTPHeader(parsing: expected) == header)
    }

    @Test func oneByteExtensionsArePaddedToAWord() throws {
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 0x0A0B_0C0D,
            extensionElements: [
                try RTPHeaderExtensionElement(id: 2, data: [0x12, 0x34, 0x56]),
                try RTPHeaderExtensionElement(id: 13, data: [0x01]),
            ])
        // Elements take 4 + 2 bytes, padded with two zero bytes to 2 words.
        let expected = bytes("90 60 0007 00000009 0a0b0c0d bede 0002 22123456 d0010000")
        #expect(header.serialized() == expected)
        #expect(header.extensionBlockSize == 12)
        #expect(header.byteOffset(ofExtensionData: 2) == 17)
        #expect(header.byteOffset(ofExtensionData: 13) == 21)
        #expect(header.byteOffset(ofExtensionData: 5) == nil)
        #expect(try RTPHeader(parsing: expected) == header)
    }

    @Test func sixteenByteElementIsTheLargest() throws {
        let data = [UInt8](1...16)
        let header = RTPHeader(payloadType: 1, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                               extensionElements: [try RTPHeaderExtensionElement(id: 14, data: data)])
        let expected = bytes("90 01 0000 00000000 00000000 bede 0005 ef") + data + [0, 0, 0]
        #expect(header.serialized() == expected)
        #expect(try RTPHeader(parsing: expected) == header)
        #expect(throws: WireFormatError.self) { try RTPHeaderExtensionElement(id: 14, data: data + [17]) }
    }

    @Test(arguments: [UInt8(0), 15])
    func reservedElementIDsAreRejected(id: UInt8) {
        #expect(throws: WireFormatError.self) { try RTPHeaderExtensionElement(id: id, data: [1]) }
    }

    @Test func parserSkipsPaddingBytesAndStopsAtID15() throws {
        // id1 [aa], two padding bytes, id2 [bb cc], padding, then ID 15 ends the block.
        let packet = bytes("90 60 0000 00000000 00000000 bede 0003 10aa0000 21bbcc00 f0ee31ff")
        let header = try RTPHeader(parsing: packet)
        #expect(header.extensionElements.map(\.id) == [1, 2])
        #expect(header.extensionElements.map(\.data) == [[0xAA], [0xBB, 0xCC]])
    }

    @Test func twoByteFormIsRejectedClearly() {
        let packet = bytes("90 60 0000 00000000 00000000 1000 0001 02011200")
        #expect {
            try RTPHeader(parsing: packet)
        } throws: { error in
            guard case .invalid(_, let reason) = error as? WireFormatError else { return false }
            return reason.contains("0x1000")
        }
    }

    @Test func elementRunningPastTheBlockThrows() {
        // id 1 claims 4 data bytes but the block has 3 after it.
        let packet = bytes("90 60 0000 00000000 00000000 bede 0001 13aabbcc")
        #expect(throws: WireFormatError.self) { try RTPHeader(parsing: packet) }
    }

    @Test func wrongVersionThrows() {
        #expect(throws: WireFormatError.invalid(structure: "RTP header", reason: "version 1, expected 2")) {
            try RTPHeader(parsing: bytes("40 60 0000 00000000 00000000"))
        }
    }

    @Test func everyTruncationThrows() throws {
        let full = bytes("93 e0 0007 00000009 0a0b0c0d 01020304 05060708 090a0b0c bede 0002 22123456 d0010000")
        _ = try RTPHeader(parsing: full)
        for length in 0..<full.count {
            #expect(throws: WireFormatError.self) { try RTPHeader(parsing: Array(full.prefix(length))) }
        }
    }

    @Test func serializeIntoShortBufferThrows() {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        var storage = [UInt8](repeating: 0, count: 11)
        #expect(throws: WireFormatError.bufferTooSmall(structure: "RTP header", needed: 12, available: 11)) {
            try storage.withUnsafeMutableBytes { buffer in
                Result { () throws(WireFormatError) in try header.serialize(into: buffer) }
            }.get()
        }
    }
}

@Suite struct RTPPacketTests {
    @Test func paddedPacketRoundTrips() throws {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3)
        let packet = RTPPacket(header: header, payload: [0xAA, 0xBB, 0xCC], paddingCount: 4)
        let expected = bytes("a0 60 0001 00000002 00000003 aabbcc 000000 04")
        #expect(packet.serialized() == expected)
        let parsed = try RTPPacket(parsing: expected)
        #expect(parsed == packet)
        #expect(parsed.payload == [0xAA, 0xBB, 0xCC])
    }

    @Test(arguments: [
        // An empty block, a block padded a word longer than needed, and one ended early by ID 15.
        "90 60 0001 00000002 00000003 bede 0000 aabbcc",
        "90 60 0001 00000002 00000003 bede 0002 10ff0000 00000000 aabbcc",
        "90 60 0001 00000002 00000003 bede 0001 f0123456 aabbcc",
    ])
    func payloadStartsAfterTheBlockAsSent(packet: String) throws {
        #expect(try RTPPacket(parsing: bytes(packet)).payload == [0xAA, 0xBB, 0xCC])
    }

    @Test(arguments: ["a0 60 0001 00000002 00000003 aabbcc 00", "a0 60 0001 00000002 00000003 aabbcc 05"])
    func impossiblePaddingCountThrows(packet: String) {
        #expect(throws: WireFormatError.self) { try RTPPacket(parsing: bytes(packet)) }
    }
}

@Suite struct WireFormatTests {
    @Test func parsesFromSlicesAndNonContiguousCollections() throws {
        let packet = bytes("ff 80 e0 1234 deadbeef 01020304")
        let fromSlice = try RTPHeader(parsing: packet[1...])
        let fromLazy = try RTPHeader(parsing: packet.dropFirst().lazy.map { $0 })
        #expect(fromSlice == fromLazy)
        #expect(fromSlice.sequenceNumber == 0x1234)
    }
}
