import TestSupport
import Testing
@testable import RTP

/// RtpStreamId and RepairedRtpStreamId (RFC 8852 §3.1, §3.2) and MID (RFC 9143 §15): the SDES
/// item's ASCII text as the element's data (RFC 7941 §4.1), no length byte, no terminator.
@Suite struct StreamIdentificationTests {
    @Test func theRIDIsItsASCIIBytes() throws {
        let rid = try #require(RTPStreamID("h"))
        #expect(rid.serialized() == bytes("68"))
        #expect(try RTPStreamID(parsing: bytes("68")) == rid)
        let long = try #require(RTPStreamID("Layer_2-of-3"))
        #expect(long.serialized() == Array("Layer_2-of-3".utf8))
        #expect(try RTPStreamID(parsing: Array("Layer_2-of-3".utf8)) == long)
    }

    @Test func aHeaderCarriesMIDThenRIDInOneWordEach() throws {
        let mid = try #require(MediaIdentification("0"))
        let rid = try #require(RTPStreamID("q"))
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3,
            extensionElements: [try mid.element(id: 4), try rid.element(id: 10)])
        // ID 4 len 0 "0", ID 10 len 0 "q": 4 bytes, one word.
        #expect(header.serialized() == bytes("90 60 0001 00000002 00000003 bede 0001 40 30 a0 71"))
        let parsed = try RTPHeader(parsing: header.serialized())
        #expect(try MediaIdentification(element: parsed.extensionElements[0]) == mid)
        #expect(try RTPStreamID(element: parsed.extensionElements[1]) == rid)
    }

    @Test func theRepairedRIDHasTheSameDataUnderItsOwnID() throws {
        let repaired = RepairedRTPStreamID(repairing: try #require(RTPStreamID("f")))
        let element = try repaired.element(id: 11)
        #expect(element.id == 11 && element.data == bytes("66"))
        #expect(try RepairedRTPStreamID(element: element) == repaired)
    }

    @Test func sixteenCharactersFitTheOneByteFormAndSeventeenDoNot() {
        #expect(RTPStreamID(String(repeating: "a", count: 16)) != nil)
        #expect(RTPStreamID(String(repeating: "a", count: 17)) == nil)
        #expect(MediaIdentification(String(repeating: "m", count: 17)) == nil)
        #expect(throws: WireFormatError.self) { try RTPStreamID(parsing: [UInt8](repeating: 0x61, count: 17)) }
        #expect(throws: WireFormatError.self) { try RTPStreamID(parsing: []) }
    }

    @Test(arguments: ["", "a b", "h.1", "é", "q\0", "x/y"])
    func ridsOutsideRFC8851SyntaxAreRefused(text: String) {
        #expect(RTPStreamID(text) == nil)
        if !text.isEmpty {
            #expect(throws: WireFormatError.self) { try RTPStreamID(parsing: Array(text.utf8)) }
        }
    }

    @Test func aMIDIsAnyTokenButNotSpacesOrControls() throws {
        #expect(MediaIdentification("video.0~a") != nil)
        #expect(MediaIdentification("a b") == nil)
        #expect(throws: WireFormatError.self) { try MediaIdentification(parsing: bytes("30 00")) }
        #expect(try MediaIdentification(parsing: bytes("7e 21")).mid == "~!")
    }
}
