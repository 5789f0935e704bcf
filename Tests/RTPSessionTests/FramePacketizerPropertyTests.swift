import MediaCore
import RTP
import TestSupport
import Testing
import Transport
@testable import RTPSession

/// Packetizes random frames of many sizes under many packet limits into a packet store and
/// checks every promise of RFC 7741 §4.4, of the balanced split and of the store entries,
/// starting each stream just short of its sequence number, timestamp and PictureID wraps.
@Suite struct FramePacketizerPropertyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var mtu: Int
        var videoOrientation: Bool
        var absoluteSendTime: Bool
        var transportSequenceNumber: Bool
        var srtpSuite: SRTPSuite?
        var usesRTX: Bool

        var testDescription: String {
            "mtu \(mtu), CVO \(videoOrientation), abs-send-time \(absoluteSendTime), transport-wide \(transportSequenceNumber), "
                + "SRTP \(srtpSuite.map(\.description) ?? "off"), RTX \(usesRTX)"
        }

        var extensions: HeaderExtensionIDs {
            HeaderExtensionIDs(
                absoluteSendTime: absoluteSendTime ? 2 : nil, videoOrientation: videoOrientation ? 13 : nil,
                transportWideSequenceNumber: transportSequenceNumber ? 5 : nil)
        }

        /// Bytes each packet keeps free: the SRTP tag and the RTX original sequence number.
        var reservedBytes: Int { (srtpSuite?.rtpAuthenticationTagLength ?? 0) + (usesRTX ? 2 : 0) }

        /// Header and descriptor bytes counted by hand from the RFC layouts: 12 fixed, 4 descriptor
        /// (X, I, 15-bit PictureID), and a one-byte extension block of 4 + the elements
        /// (abs-send-time 4, transport-wide sequence number 3, CVO 2 on the last packet) padded
        /// to 32 bits.
        var overheadWithoutCVO: Int { 12 + extensionBlockSize(withCVO: false) + 4 + reservedBytes }
        var cvoCost: Int { videoOrientation ? extensionBlockSize(withCVO: true) - extensionBlockSize(withCVO: false) : 0 }

        private func extensionBlockSize(withCVO: Bool) -> Int {
            let elements = (absoluteSendTime ? 4 : 0) + (transportSequenceNumber ? 3 : 0) + (withCVO ? 2 : 0)
            return elements == 0 ? 0 : 4 + (elements + 3) / 4 * 4
        }
    }

    /// No SRTP; a 10-byte tag with RTX; a 16-byte GCM tag.
    static let protections: [(suite: SRTPSuite?, usesRTX: Bool)] = [(nil, false), (.aesCM128HMACSHA1_80, true), (.aeadAES128GCM, false)]

    static let cases: [Case] = [60, 100, 576, 1200].flatMap { (mtu: Int) -> [Case] in
        (0..<8).flatMap { (extensions: Int) -> [Case] in
            protections.map { protection in
                Case(
                    mtu: mtu, videoOrientation: extensions & 1 != 0, absoluteSendTime: extensions & 2 != 0,
                    transportSequenceNumber: extensions & 4 != 0, srtpSuite: protection.suite, usesRTX: protection.usesRTX)
            }
        }
    }

    static let frameSizes = [1, 2, 3, 17, 50, 999, 1_150, 1_200, 1_201, 2_399, 5_000, 65_536, 200_000]

    @Test(arguments: cases)
    func everyFrameSplitsReassemblesAndStaysInOrder(testCase: Case) throws {
        let session = RTPSessionParameters(
            ssrc: 0xCAFE_F00D, initialSequenceNumber: 65_500, timestampOffset: 0xFFFF_0000, initialPictureID: 32_760)
        let configuration = sessionConfiguration(
            mtu: testCase.mtu, session: session, extensions: testCase.extensions, retransmission: testCase.usesRTX ? .rtx : .resend)
        var packetizer = try makePacketizer(configuration, protectionOverhead: testCase.srtpSuite?.rtpAuthenticationTagLength ?? 0)
        let store = PacketStore(slotCapacity: testCase.mtu, maximumSlotCount: 16_384)
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: testCase.videoOrientation ? 13 : nil)
        var generator = SplitMix64(state: UInt64(testCase.mtu * 131 + testCase.reservedBytes))
        var expectedSequenceNumber = session.initialSequenceNumber
        var expectedPictureID = session.initialPictureID
        let capacity = testCase.mtu - testCase.overheadWithoutCVO

        for (frameIndex, size) in Self.frameSizes.enumerated() {
            let data = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let isKeyframe = frameIndex % 5 == 0
            let isDroppable = frameIndex % 3 == 2
            let timestampNs = 3_600_000_000_000 + Int64(frameIndex) * 33_333_333
            let frame = encodedFrame(data, timestampNs: timestampNs, isKeyframe: isKeyframe, isDroppable: isDroppable)
            let packets = try packetize(frame, with: &packetizer, into: store)
            // The rotation stays 0°: CVO goes on keyframes only.
            let lastReduction = isKeyframe ? testCase.cvoCost : 0
            #expect(packets.count == (size + lastReduction + capacity - 1) / capacity, "fewest packets for \(size) bytes")

            var payloadSizes: [Int] = []
            for (index, packet) in packets.enumerated() {
                let isLast = index == packets.count - 1
                #expect(packet.bytes.count + testCase.reservedBytes <= testCase.mtu)
                let parsed = try RTPPacket(parsing: packet.bytes)
                let descriptor = try VP8PayloadDescriptor(parsing: parsed.payload)
                #expect(parsed.header.marker == isLast)
                #expect(descriptor.isStartOfPartition == (index == 0))
                #expect(descriptor.partitionIndex == 0)
                #expect(descriptor.isNonReference == isDroppable)
                #expect(descriptor.pictureID == .long(expectedPictureID))
                #expect(parsed.header.sequenceNumber == expectedSequenceNumber)
                #expect(parsed.header.timestamp == 0xFFFF_0000 &+ UInt32(truncatingIfNeeded: timestampNs * 9 / 100_000))
                #expect(parsed.header.ssrc == 0xCAFE_F00D)
                #expect(parsed.header.payloadType == 96)
                let ids = parsed.header.extensionElements.map(\.id)
                #expect(ids.contains(2) == testCase.absoluteSendTime)
                #expect(ids.contains(5) == testCase.transportSequenceNumber)
                #expect(ids.contains(13) == (testCase.videoOrientation && isKeyframe && isLast))

                let entry = packet.entry
                #expect(entry.sequenceNumber == expectedSequenceNumber)
                #expect(entry.length == packet.bytes.count)
                #expect(entry.headerLength == packet.bytes.count - parsed.payload.count)
                #expect(entry.isKeyframe == isKeyframe)
                #expect(entry.endsFrame == isLast)
                #expect(entry.captureTimeNs == timestampNs)
                // The send loop stamps these in place: they must point just past each element's ID byte.
                #expect(entry.absoluteSendTimeOffset.map { packet.bytes[$0 - 1] } == (testCase.absoluteSendTime ? 0x22 : nil))
                #expect(entry.transportSequenceNumberOffset.map { packet.bytes[$0 - 1] } == (testCase.transportSequenceNumber ? 0x51 : nil))

                payloadSizes.append(parsed.payload.count - descriptor.serializedSize)
                expectedSequenceNumber &+= 1
            }
            let balanced = lastReduction > 0 ? Array(payloadSizes.dropLast()) : payloadSizes
            if let largest = balanced.max(), let smallest = balanced.min(), let last = payloadSizes.last {
                #expect(largest - smallest <= 1, "payload sizes \(Set(payloadSizes))")
                #expect(last <= largest)
            }

            var reassembled: VP8Depacketizer.Frame?
            for packet in packets { reassembled = try depacketizer.push(packet.bytes) }
            let result = try #require(reassembled)
            #expect(result.data == data)
            #expect(result.packetCount == packets.count)
            #expect(result.isNonReference == isDroppable)
            expectedPictureID = (expectedPictureID + 1) & 0x7FFF
            release(packets, from: store)
        }
        // The stream crossed both wraps, and every slot went back.
        #expect(expectedSequenceNumber < session.initialSequenceNumber)
        #expect(expectedPictureID < session.initialPictureID)
        #expect(store.usedSlotCount == 0)
    }
}
