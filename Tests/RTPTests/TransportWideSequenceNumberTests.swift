import TestSupport
import Testing
@testable import RTP

@Suite struct TransportWideSequenceNumberTests {
    @Test func elementBytesAreBigEndian() throws {
        let element = try TransportWideSequenceNumber(value: 0xFFFE).element(id: 3)
        #expect(element.data == [0xFF, 0xFE])
        #expect(try TransportWideSequenceNumber(element: element).value == 0xFFFE)
    }

    @Test func wrongLengthThrows() throws {
        let element = try RTPHeaderExtensionElement(id: 3, data: [1, 2, 3])
        #expect(throws: WireFormatError.self) { try TransportWideSequenceNumber(element: element) }
    }

    @Test func patchWritesInPlaceNextToAbsoluteSendTime() throws {
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0,
            extensionElements: [
                try AbsoluteSendTime(value: 0).element(id: RTPHeaderExtensionURI.defaultAbsoluteSendTimeID),
                try TransportWideSequenceNumber(value: 0).element(id: RTPHeaderExtensionURI.defaultTransportWideSequenceNumberID),
            ])
        var packet = header.serialized()
        let sendTimeOffset = try #require(header.byteOffset(ofExtensionData: 2))
        let sequenceNumberOffset = try #require(header.byteOffset(ofExtensionData: 3))
        packet.withUnsafeMutableBytes {
            AbsoluteSendTime(value: 0xAB_CDEF).patch($0, atByteOffset: sendTimeOffset)
            TransportWideSequenceNumber(value: 0x0102).patch($0, atByteOffset: sequenceNumberOffset)
        }
        #expect(packet == bytes("90 60 0000 00000000 00000000 bede 0002 22abcdef 31 0102 00"))
        let elements = try RTPHeader(parsing: packet).extensionElements
        #expect(try TransportWideSequenceNumber(element: elements[1]).value == 0x0102)
    }

    @Test func uriIsTheDraftsOwn() {
        #expect(RTPHeaderExtensionURI.transportWideSequenceNumber
            == "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01")
    }
}
