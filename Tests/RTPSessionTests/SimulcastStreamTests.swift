import MediaCore
import RTCP
import RTP
import TestSupport
import Testing
@testable import RTPSession

/// The identifiers simulcast receivers route by: every media packet carries the section's MID
/// (RFC 9143 §15) and its encoding's RID (RFC 8852 §3.1), every RTX packet the MID and the RID
/// it repairs (RFC 8852 §3.2).
@Suite struct SimulcastStreamTests {
    static let extensions = HeaderExtensionIDs(
        absoluteSendTime: SessionDriver.absoluteSendTimeID, transportWideSequenceNumber: SessionDriver.transportWideID,
        mid: 4, rtpStreamID: 10, repairedRTPStreamID: 11)

    /// The 0xBEDE block after the 12-byte header: abs-send-time (4 bytes) and the transport-wide
    /// sequence number (3) are stamped as packets leave; MID and RID follow, then one byte of padding.
    static func identifiers(_ packet: WirePacket) -> [UInt8] { Array(packet.bytes[23..<28]) }

    @Test func encodingOneOfThreeCarriesMIDAndItsRIDAndItsRTXTheRepairedRID() throws {
        let driver = try SessionDriver(encodings: 3, extensions: Self.extensions, rids: ["q", "h", "f"], mid: "0")
        for index in 0..<3 { driver.send(testFrames([2_500], encodingIndex: index)[0]) }
        let sent = try driver.flush().map(WirePacket.init)
        let middle = sent.filter { $0.header.ssrc == SessionDriver.ssrc(ofEncoding: 1) }
        #expect(middle.count == 3)
        for packet in middle {
            #expect(Array(packet.bytes[12..<16]) == bytes("bede 0003"))
            // ID 4 "0", ID 10 "h", padding.
            #expect(Self.identifiers(packet) == bytes("40 30 a0 68 00"))
        }
        #expect(sent.filter { $0.header.ssrc == SessionDriver.ssrc(ofEncoding: 2) }.allSatisfy { Self.identifiers($0) == bytes("40 30 a0 66 00") })

        driver.advance(byMs: 30)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 1), lostSequenceNumbers: [201]))])
        let repair = try #require(try driver.flush().map(WirePacket.init).first)
        #expect(repair.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 1))
        // ID 11 "h": the same data under the repaired RID's ID; the MID unchanged.
        #expect(Self.identifiers(repair) == bytes("40 30 b0 68 00"))
        let element = try #require(repair.header.extensionElements.first { $0.id == 11 })
        #expect(try RepairedRTPStreamID(element: element).repaired.rid == "h")
        #expect(!repair.header.extensionElements.contains { $0.id == 10 })
    }

    @Test func withoutARepairedRIDIDTheRTXPacketCarriesNoRID() throws {
        var extensions = Self.extensions
        extensions.repairedRTPStreamID = nil
        let driver = try SessionDriver(encodings: 2, extensions: extensions, rids: ["lo", "hi"], mid: "v")
        for index in 0..<2 { driver.send(testFrames([2_500], encodingIndex: index)[0]) }
        driver.flush()
        driver.advance(byMs: 30)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 0), lostSequenceNumbers: [101]))])
        let repair = try #require(try driver.flush().map(WirePacket.init).first)
        #expect(repair.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 0))
        // "lo" blanked to padding: ID 4 "v", then three zero bytes, then the block's padding.
        #expect(Array(repair.bytes[23..<28]) == bytes("40 76 00 00 00"))
        #expect(repair.header.extensionElements.map(\.id) == [SessionDriver.absoluteSendTimeID, SessionDriver.transportWideID, 4])
    }

    @Test func framesOfAnEncodingTheSessionDoesNotSendAreDroppedAndRequestsNameTheEncodersIndex() throws {
        let driver = try SessionDriver(encodings: 2, encodingIndexes: [0, 2], extensions: Self.extensions, rids: ["q", "f"], mid: "0")
        driver.send(testFrames([500], encodingIndex: 1)[0])
        #expect(driver.flush().isEmpty)
        driver.send(testFrames([500], encodingIndex: 2)[0])
        let sent = try driver.flush().map(WirePacket.init)
        #expect(sent.map(\.header.ssrc) == [SessionDriver.ssrc(ofEncoding: 1)])
        #expect(Self.identifiers(sent[0]) == bytes("40 30 a0 66 00"))
        driver.advance(byMs: 30)
        driver.receive([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 1)))])
        #expect(driver.takeCommands().contains(.keyframe(encodingIndex: 2)))
    }

    @Test func theMTUCheckAndTheSplitMakeRoomForTheLongestRID() throws {
        func minimum(rids: [String]) throws -> Int {
            let configuration = SendSessionConfiguration(
                tuning: SenderTuning(mtu: 40),
                encodings: rids.enumerated().map { index, rid in
                    EncodingStreams(encodingIndex: index, media: .random(), rid: RTPStreamID(rid))
                },
                extensions: Self.extensions, mid: MediaIdentification("0"))
            let error = #expect(throws: SendSessionError.self) { try configuration.validate(protectionOverhead: 10) }
            guard case .mtuTooSmall(_, let minimum) = error else { return 0 }
            return minimum
        }
        // "q": MID and RID take 4 bytes, one word; 16 characters take 20 bytes, 5 words more.
        #expect(try minimum(rids: ["q"]) + 16 == minimum(rids: ["q", String(repeating: "f", count: 16)]))

        let driver = try SessionDriver(
            encodings: 2, extensions: Self.extensions, rids: ["q", String(repeating: "f", count: 16)], mid: "0") { $0.mtu = 600 }
        for index in 0..<2 { driver.send(testFrames([5_000], encodingIndex: index)[0]) }
        let sent = driver.flush()
        #expect(sent.count > 16 && sent.allSatisfy { $0.count <= 600 - RTXPacket.originalSequenceNumberSize })
    }

    @Test func twoEncodingsWithOneRIDOrOneIndexAreRefused() {
        let streams = { (index: Int, rid: String) in EncodingStreams(encodingIndex: index, media: .random(), rid: RTPStreamID(rid)) }
        #expect(throws: SendSessionError.duplicateRID("h")) {
            try SendSessionConfiguration(encodings: [streams(0, "h"), streams(1, "h")]).validate(protectionOverhead: 0)
        }
        #expect(throws: SendSessionError.invalidEncodingIndex(1)) {
            try SendSessionConfiguration(encodings: [streams(1, "q"), streams(1, "h")]).validate(protectionOverhead: 0)
        }
        #expect(SendSessionError.duplicateRID("h").description == "RID h is given to two encodings")
    }
}
