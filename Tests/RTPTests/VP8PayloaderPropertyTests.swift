import MediaCore
import TestSupport
import Testing
@testable import RTP

/// Splits random frames of many sizes under many packet limits and checks every promise of
/// RFC 7741 §4.4 and of the balanced split, starting each stream just short of its wraps.
@Suite struct VP8PayloaderPropertyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var mtu: Int
        var videoOrientation: Bool
        var absoluteSendTime: Bool
        var srtpOverhead: Int

        var testDescription: String {
            "mtu \(mtu), CVO \(videoOrientation), abs-send-time \(absoluteSendTime), SRTP \(srtpOverhead)"
        }

        var configuration: VP8Payloader.Configuration {
            .init(mtu: mtu, srtpOverhead: srtpOverhead,
                  videoOrientationExtensionID: videoOrientation ? 13 : nil,
                  absoluteSendTimeExtensionID: absoluteSendTime ? 2 : nil)
        }

        /// Header and descriptor bytes of a packet, counted by hand from the RFC layouts:
        /// 12 fixed, 4 descriptor (X, I, 15-bit PictureID), an extension block of
        /// 4 + abs-send-time (4), and on the last packet CVO (2), padded to a word.
        var overheadWithoutCVO: Int { 12 + 4 + (absoluteSendTime ? 8 : 0) + srtpOverhead }
        var cvoCost: Int { videoOrientation ? (absoluteSendTime ? 4 : 8) : 0 }
    }

    static let cases: [Case] = [60, 100, 256, 576, 1200, 1500].flatMap { mtu in
        [(false, false), (true, false), (false, true), (true, true)].flatMap { cvo, abs in
            [0, 10, 16].map { Case(mtu: mtu, videoOrientation: cvo, absoluteSendTime: abs, srtpOverhead: $0) }
        }
    }

    static let frameSizes = [1, 2, 3, 17, 50, 999, 1_150, 1_200, 1_201, 2_399, 5_000, 65_536, 200_000]

    @Test(arguments: cases)
    func everyFrameSplitsReassemblesAndStaysInOrder(testCase: Case) throws {
        let session = RTPSessionParameters(
            ssrc: 0xCAFE_F00D, initialSequenceNumber: 65_500, timestampOffset: 0xFFFF_0000, initialPictureID: 32_760)
        var payloader = try VP8Payloader(configuration: testCase.configuration, session: session)
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: testCase.videoOrientation ? 13 : nil)
        let batch = payloader.makeBatch()
        var generator = SplitMix64(state: UInt64(testCase.mtu * 131 + testCase.srtpOverhead))
        var expectedSequenceNumber = session.initialSequenceNumber
        var expectedPictureID = session.initialPictureID
        let capacity = testCase.mtu - testCase.overheadWithoutCVO

        for (frameIndex, size) in Self.frameSizes.enumerated() {
            let frame = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let isKeyframe = frameIndex % 5 == 0
            let timestampNs = 3_600_000_000_000 + Int64(frameIndex) * 33_333_333
            try frame.withUnsafeBytes { raw in
                try payloader.packetize(raw, isKeyframe: isKeyframe, isDroppable: frameIndex % 3 == 2,
                                        timestampNs: timestampNs, rotation: .deg0, into: batch)
            }
            let sent = packets(of: batch)
            let lastReduction = testCase.videoOrientation && isKeyframe ? testCase.cvoCost : 0
            #expect(sent.count == (size + lastReduction + capacity - 1) / capacity, "fewest packets for \(size) bytes")

            var payloadSizes: [Int] = []
            for (index, packet) in sent.enumerated() {
                #expect(packet.count + testCase.srtpOverhead <= testCase.mtu)
                let parsed = try RTPPacket(parsing: packet)
                let descriptor = try VP8PayloadDescriptor(parsing: parsed.payload)
                #expect(parsed.header.marker == (index == sent.count - 1))
                #expect(descriptor.isStartOfPartition == (index == 0))
                #expect(descriptor.partitionIndex == 0)
                #expect(descriptor.isNonReference == (frameIndex % 3 == 2))
                #expect(descriptor.pictureID == .long(expectedPictureID))
                #expect(parsed.header.sequenceNumber == expectedSequenceNumber)
                #expect(parsed.header.timestamp == 0xFFFF_0000 &+ UInt32(truncatingIfNeeded: timestampNs * 9 / 100_000))
                #expect(parsed.header.ssrc == 0xCAFE_F00D)
                #expect(parsed.header.extensionElements.contains { $0.id == 2 } == testCase.absoluteSendTime)
                if testCase.absoluteSendTime {
                    let offset = try #require(batch.absoluteSendTimeOffset(at: index))
                    #expect(packet[offset - 1] == 0x22)
                }
                payloadSizes.append(parsed.payload.count - descriptor.serializedSize)
                expectedSequenceNumber &+= 1
            }
            let balanced = lastReduction > 0 ? Array(payloadSizes.dropLast()) : payloadSizes
            if let largest = balanced.max(), let smallest = balanced.min() {
                #expect(largest - smallest <= 1, "payload sizes \(Set(payloadSizes))")
                #expect(payloadSizes.last! <= largest)
            }

            var reassembled: VP8Depacketizer.Frame?
            for packet in sent { reassembled = try depacketizer.push(packet) }
            let result = try #require(reassembled)
            #expect(result.data == frame)
            #expect(result.packetCount == sent.count)
            expectedPictureID = (expectedPictureID + 1) & 0x7FFF
        }
        // The stream crossed both wraps.
        #expect(expectedSequenceNumber < session.initialSequenceNumber)
        #expect(expectedPictureID < session.initialPictureID)
    }

    @Test func splitIsBalancedForEverySmallSize() {
        for capacity in 1...40 {
            for reduction in 0..<capacity {
                for size in 1...200 {
                    let split = BalancedPayloadSplit(payloadSize: size, capacity: capacity, lastPacketReduction: reduction)
                    let sizes = (0..<split.packetCount).map(split.size(ofPacket:))
                    #expect(sizes.reduce(0, +) == size)
                    #expect(sizes.allSatisfy { $0 >= 1 && $0 <= capacity })
                    #expect(sizes.last! <= capacity - reduction)
                    #expect(split.packetCount == max(1, (size + reduction + capacity - 1) / capacity))
                    let leading = sizes.count > 1 ? sizes.dropLast() : sizes[...]
                    #expect(leading.max()! - leading.min()! <= 1)
                    if reduction == 0 { #expect(sizes.max()! - sizes.min()! <= 1) }
                }
            }
        }
    }

    @Test func pictureIDWrapsAndGapsAreCaught() throws {
        let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 10, timestampOffset: 0, initialPictureID: 32_767)
        var payloader = try VP8Payloader(configuration: .init(), session: session)
        var depacketizer = VP8Depacketizer()
        let batch = payloader.makeBatch()
        for expected in [32_767, 0, 1] as [UInt16] {
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { raw in
                try payloader.packetize(raw, isKeyframe: false, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
            }
            #expect(try depacketizer.push(packets(of: batch)[0])?.pictureID == expected)
        }
        // A second payloader carrying on the sequence numbers but not the PictureIDs.
        let restarted = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 13, timestampOffset: 0, initialPictureID: 9)
        var other = try VP8Payloader(configuration: .init(), session: restarted)
        try [UInt8](repeating: 1, count: 10).withUnsafeBytes { raw in
            try other.packetize(raw, isKeyframe: false, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
        }
        #expect(throws: VP8DepacketizerError.pictureIDGap(expected: 2, received: 9)) {
            try depacketizer.push(packets(of: batch)[0])
        }
    }
}
