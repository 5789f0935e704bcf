import MediaCore
import RTP
import TestSupport
import Testing
import Transport
@testable import RTPSession

@Suite struct FramePacketizerVectorTests {
    @Test func singlePacketFrameBytes() throws {
        var packetizer = try makePacketizer(sessionConfiguration())
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 8, initialSlotCount: 1)
        let frame = encodedFrame([1, 2, 3], timestampNs: 1_000_000_000, isKeyframe: true)
        let packets = try packetize(frame, with: &packetizer, into: store)
        // M=1 PT=96 seq 1000 ts 90000 | X S PID=0 | I | M=1 PictureID 0x1234 | payload
        #expect(packets.map(\.bytes) == [bytes("80 e0 03e8 00015f90 11223344 90 80 9234 010203")])
        let entry = try #require(packets.first).entry
        #expect(entry.sequenceNumber == 1000)
        #expect(entry.length == 19 && entry.headerLength == 12)
        #expect(entry.isKeyframe && entry.endsFrame)
        #expect(entry.captureTimeNs == 1_000_000_000)
        #expect(entry.absoluteSendTimeOffset == nil && entry.transportSequenceNumberOffset == nil)
        #expect(entry.firstSentNs == nil && entry.lastAnsweredRequestNs == nil)
        #expect(packetizer.stream.nextSequenceNumber == 1001)
        let next = try packetizer.plan(frame, nowNs: 0)
        #expect(next.split.pictureID == 0x1235)
    }

    @Test func extensionsOnASinglePacketKeyframe() throws {
        let extensions = HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13)
        var packetizer = try makePacketizer(sessionConfiguration(extensions: extensions))
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 8, initialSlotCount: 1)
        let frame = encodedFrame([1, 2, 3], timestampNs: 1_000_000_000, rotation: .deg90, isKeyframe: true, isDroppable: true)
        let packet = try #require(try packetize(frame, with: &packetizer, into: store).first)
        // abs-send-time (ID 2, zeros until stamped) then CVO (ID 13, 90°), padded; N=1 for droppable.
        #expect(packet.bytes == bytes("90 e0 03e8 00015f90 11223344 bede0002 22000000 d0010000 b0 80 9234 010203"))
        #expect(packet.entry.absoluteSendTimeOffset == 17)
        #expect(packet.entry.headerLength == 24)
        AbsoluteSendTime(value: 0xABCDEF).patch(store.buffer(packet.slot), atByteOffset: 17)
        #expect(Array(store.packet(packet.slot)[16..<20]) == [0x22, 0xAB, 0xCD, 0xEF])
    }

    @Test func everyExtensionOnASinglePacketKeyframe() throws {
        let extensions = HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13, transportWideSequenceNumber: 5)
        var packetizer = try makePacketizer(sessionConfiguration(extensions: extensions))
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 8, initialSlotCount: 1)
        let frame = encodedFrame([1, 2, 3], timestampNs: 1_000_000_000, rotation: .deg90, isKeyframe: true)
        let packet = try #require(try packetize(frame, with: &packetizer, into: store).first)
        // abs-send-time, transport-wide sequence number (ID 5, two zero bytes), CVO, padding.
        #expect(packet.bytes == bytes("90 e0 03e8 00015f90 11223344 bede0003 22000000 510000d0 01000000 90 80 9234 010203"))
        #expect(packet.entry.absoluteSendTimeOffset == 17)
        #expect(packet.entry.transportSequenceNumberOffset == 21)
        TransportWideSequenceNumber(value: 0xBEEF).patch(store.buffer(packet.slot), atByteOffset: 21)
        #expect(Array(store.packet(packet.slot)[20..<24]) == [0x51, 0xBE, 0xEF, 0xD0])
    }

    /// A frame's temporal layer reaches the wire (RFC 7741 §4.2): L and T set, the session's
    /// TL0PICIDX, which the next base-layer frame advances, and TID and Y.
    @Test func temporalLayersBytes() throws {
        let session = RTPSessionParameters(
            ssrc: 0x1122_3344, initialSequenceNumber: 1000, timestampOffset: 0, initialPictureID: 0x1234, initialTL0PictureIndex: 0x40)
        var packetizer = try makePacketizer(sessionConfiguration(session: session))
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 8, initialSlotCount: 1)
        var frames = [
            encodedFrame([1], isKeyframe: true), encodedFrame([2], timestampNs: 100_000_000, isDroppable: true),
            encodedFrame([3], timestampNs: 200_000_000),
        ]
        frames[0].temporalLayer = EncodedFrame.TemporalLayer(index: 0, isLayerSync: true)
        frames[1].temporalLayer = EncodedFrame.TemporalLayer(index: 2, isLayerSync: true)
        frames[2].temporalLayer = EncodedFrame.TemporalLayer(index: 0, isLayerSync: false)
        let packets = try frames.flatMap { try packetize($0, with: &packetizer, into: store) }
        #expect(packets.map(\.bytes) == [
            bytes("80 e0 03e8 00000000 11223344 90 e0 9234 40 20 01"),
            bytes("80 e0 03e9 00002328 11223344 b0 e0 9235 40 a0 02"),
            bytes("80 e0 03ea 00004650 11223344 90 e0 9236 41 00 03"),
        ])
    }

    @Test func twoPacketSplitBytes() throws {
        // MTU 20 leaves 4 payload bytes per packet: 7 bytes split 3 + 4, the larger one last.
        var packetizer = try makePacketizer(sessionConfiguration(mtu: 20))
        let store = PacketStore(slotCapacity: 20, maximumSlotCount: 8, initialSlotCount: 1)
        let packets = try packetize(encodedFrame(Array(1...7)), with: &packetizer, into: store)
        #expect(packets.map(\.bytes) == [
            bytes("80 60 03e8 00000000 11223344 90 80 9234 010203"),
            bytes("80 e0 03e9 00000000 11223344 80 80 9234 04050607"),
        ])
        #expect(packets.map(\.entry.endsFrame) == [false, true])
        #expect(packets.map(\.entry.sequenceNumber) == [1000, 1001])
    }

    @Test func twoPacketSplitWithExtensionsBytes() throws {
        // MTU 32 with abs-send-time: 8 data bytes per packet, 4 in the last, whose header also
        // carries CVO on this keyframe. 9 bytes split 6 + 3.
        let extensions = HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13)
        var packetizer = try makePacketizer(sessionConfiguration(mtu: 32, extensions: extensions))
        let store = PacketStore(slotCapacity: 32, maximumSlotCount: 8, initialSlotCount: 1)
        let packets = try packetize(encodedFrame(Array(1...9), isKeyframe: true), with: &packetizer, into: store)
        #expect(packets.map(\.bytes) == [
            bytes("90 60 03e8 00000000 11223344 bede0001 22000000 90 80 9234 010203040506"),
            bytes("90 e0 03e9 00000000 11223344 bede0002 22000000 d0000000 80 80 9234 070809"),
        ])
        #expect(packets.map(\.entry.headerLength) == [20, 24])
        #expect(packets.map(\.entry.absoluteSendTimeOffset) == [17, 17])
    }

    @Test func roomIsLeftForTheSRTPTagAndTheRTXPrefix() throws {
        // MTU 36 less a 10-byte tag and the 2-byte original sequence number of RTX: 8 data bytes
        // per packet, so 9 bytes split 4 + 5.
        let configuration = sessionConfiguration(mtu: 36, retransmission: .rtx)
        var packetizer = try makePacketizer(configuration, protectionOverhead: SRTPSuite.aesCM128HMACSHA1_80.rtpAuthenticationTagLength)
        let store = PacketStore(slotCapacity: 36, maximumSlotCount: 8, initialSlotCount: 1)
        let packets = try packetize(encodedFrame(Array(1...9)), with: &packetizer, into: store)
        #expect(packets.map(\.bytes) == [
            bytes("80 60 03e8 00000000 11223344 90 80 9234 01020304"),
            bytes("80 e0 03e9 00000000 11223344 80 80 9234 0506070809"),
        ])
    }
}

@Suite struct FramePacketizerConfigurationTests {
    struct MinimumCase: Sendable, CustomTestStringConvertible {
        var extensions: HeaderExtensionIDs
        var srtpSuite: SRTPSuite?
        var retransmission: Retransmission
        var minimum: Int
        var protectionOverhead: Int { srtpSuite?.rtpAuthenticationTagLength ?? 0 }
        var overhead: Int { protectionOverhead + (retransmission == .rtx ? 2 : 0) }
        var testDescription: String { "\(extensions), SRTP \(srtpSuite.map(\.description) ?? "off"), \(retransmission): \(minimum)" }
    }

    /// Header, every extension that may appear (CVO included), the descriptor with a temporal
    /// layer's fields (6 bytes), one byte of payload, the SRTP tag and the RTX prefix.
    @Test(arguments: [
        MinimumCase(extensions: HeaderExtensionIDs(), srtpSuite: nil, retransmission: .resend, minimum: 19),
        MinimumCase(extensions: HeaderExtensionIDs(videoOrientation: 3), srtpSuite: nil, retransmission: .resend, minimum: 27),
        MinimumCase(extensions: HeaderExtensionIDs(absoluteSendTime: 2), srtpSuite: nil, retransmission: .off, minimum: 27),
        MinimumCase(extensions: HeaderExtensionIDs(transportWideSequenceNumber: 5), srtpSuite: nil, retransmission: .resend, minimum: 27),
        MinimumCase(
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13), srtpSuite: .aesCM128HMACSHA1_80,
            retransmission: .resend, minimum: 41),
        MinimumCase(extensions: HeaderExtensionIDs(), srtpSuite: .aesCM128HMACSHA1_32, retransmission: .rtx, minimum: 25),
        MinimumCase(
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13, transportWideSequenceNumber: 5),
            srtpSuite: .aeadAES128GCM, retransmission: .rtx, minimum: 53),
    ])
    func minimumMTU(testCase: MinimumCase) throws {
        func configuration(mtu: Int) -> SendSessionConfiguration {
            sessionConfiguration(mtu: mtu, extensions: testCase.extensions, retransmission: testCase.retransmission)
        }
        let tooSmall = configuration(mtu: testCase.minimum - 1)
        let error = #expect(throws: SendSessionError.self) { try tooSmall.validate(protectionOverhead: testCase.protectionOverhead) }
        guard case .mtuTooSmall(let mtu, let minimum) = error else {
            Issue.record("expected mtuTooSmall, got \(String(describing: error))")
            return
        }
        #expect(mtu == testCase.minimum - 1 && minimum == testCase.minimum)

        let smallest = configuration(mtu: testCase.minimum)
        var packetizer = try makePacketizer(smallest, protectionOverhead: testCase.protectionOverhead)
        let store = PacketStore(slotCapacity: testCase.minimum, maximumSlotCount: 64)
        // A keyframe (CVO on its last packet when negotiated) and a turned delta frame.
        for frame in [encodedFrame([7, 7, 7, 7, 7], isKeyframe: true), encodedFrame([8, 8, 8], rotation: .deg270)] {
            let packets = try packetize(frame, with: &packetizer, into: store)
            #expect(packets.count >= 1)
            for packet in packets { #expect(packet.bytes.count + testCase.overhead <= testCase.minimum) }
        }
    }

    @Test func mtuErrorReadsLikeTheCLIMessage() {
        #expect(SendSessionError.mtuTooSmall(mtu: 40, minimum: 45).description == "MTU 40 is too small: these RTP headers need at least 45 bytes")
    }

    @Test(arguments: [
        (HeaderExtensionIDs(videoOrientation: 15), 15, false),
        (HeaderExtensionIDs(absoluteSendTime: 0), 0, false),
        (HeaderExtensionIDs(absoluteSendTime: 4, videoOrientation: 4), 4, true),
        (HeaderExtensionIDs(videoOrientation: 6, transportWideSequenceNumber: 6), 6, true),
    ] as [(HeaderExtensionIDs, UInt8, Bool)])
    func badExtensionIDsThrow(extensions: HeaderExtensionIDs, id: UInt8, isDuplicate: Bool) throws {
        let configuration = sessionConfiguration(extensions: extensions)
        let error = #expect(throws: SendSessionError.self) { try configuration.validate(protectionOverhead: 0) }
        switch error {
        case .invalidExtensionID(let thrownID) where !isDuplicate: #expect(thrownID == id)
        case .duplicateExtensionID(let thrownID) where isDuplicate: #expect(thrownID == id)
        default: Issue.record("unexpected \(String(describing: error))")
        }
        #expect(throws: SendSessionError.self) { try FramePacketizer(encodingIndex: 0, configuration: configuration, protectionOverhead: 0, ntpClock: vectorNTPClock) }
    }

    @Test func anEmptyFrameIsRefusedAndCostsNothing() throws {
        var packetizer = try makePacketizer(sessionConfiguration())
        #expect(throws: VP8PayloaderError.emptyFrame) { try packetizer.plan(encodedFrame([]), nowNs: 0) }
        #expect(packetizer.stream.nextSequenceNumber == 1000)
        let next = try packetizer.plan(encodedFrame([1]), nowNs: 0)
        #expect(next.split.pictureID == 0x1234)
    }
}

@Suite struct FramePacketizerBehaviourTests {
    static let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 0, timestampOffset: 0, initialPictureID: 0)

    @Test func videoOrientationIsSentOnKeyframesChangesAndNonZeroRotations() throws {
        var packetizer = try makePacketizer(
            sessionConfiguration(mtu: 100, session: Self.session, extensions: HeaderExtensionIDs(videoOrientation: 3)))
        let store = PacketStore(slotCapacity: 100, maximumSlotCount: 16, initialSlotCount: 1)
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: 3)
        let frames: [(isKeyframe: Bool, rotation: VideoRotation, sendsCVO: Bool)] = [
            (true, .deg0, true), (false, .deg0, false), (false, .deg90, true), (false, .deg90, true),
            (false, .deg0, true), (false, .deg0, false), (true, .deg0, true), (false, .deg270, true),
        ]
        let data = [UInt8](repeating: 0x5A, count: 300)
        for (index, frame) in frames.enumerated() {
            let packets = try packetize(
                encodedFrame(data, timestampNs: Int64(index) * 33_000_000, rotation: frame.rotation, isKeyframe: frame.isKeyframe),
                with: &packetizer, into: store)
            #expect(packets.count > 1)
            for packet in packets.dropLast() {
                #expect(try RTPHeader(parsing: packet.bytes).extensionElements.isEmpty)
            }
            var reassembled: VP8Depacketizer.Frame?
            for packet in packets { reassembled = try depacketizer.push(packet.bytes) }
            let orientation = try #require(reassembled).videoOrientation
            #expect(orientation == (frame.sendsCVO ? VideoOrientation(rotation: frame.rotation) : nil), "frame \(index)")
            release(packets, from: store)
        }
    }

    @Test func noOrientationWithoutCVO() throws {
        var packetizer = try makePacketizer(sessionConfiguration(mtu: 100, session: Self.session))
        let store = PacketStore(slotCapacity: 100, maximumSlotCount: 16, initialSlotCount: 1)
        let packets = try packetize(encodedFrame([UInt8](repeating: 1, count: 300), rotation: .deg90, isKeyframe: true), with: &packetizer, into: store)
        for packet in packets { #expect(try RTPHeader(parsing: packet.bytes).extensionElements.isEmpty) }
    }

    /// Frames sent as they come, the history keeping what it must: after the warm-up the store
    /// reuses its slots and stops growing.
    @Test func steadyStateDoesNotGrowTheStore() throws {
        var packetizer = try makePacketizer(sessionConfiguration(
            session: Self.session, extensions: HeaderExtensionIDs(absoluteSendTime: 2, transportWideSequenceNumber: 5)))
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: PacketHistory.maximumPackets + 4_096, initialSlotCount: 1)
        var history = PacketHistory()
        let keyframe = [UInt8](repeating: 1, count: 60_000)
        let delta = [UInt8](repeating: 2, count: 4_000)
        func stream(_ frames: Range<Int>) throws {
            for index in frames {
                let nowNs = Int64(index) * 33_333_333
                let isKeyframe = index % 50 == 0
                let frame = encodedFrame(isKeyframe ? keyframe : delta, timestampNs: nowNs, isKeyframe: isKeyframe)
                for packet in try packetize(frame, with: &packetizer, into: store) {
                    store[packet.slot].firstSentNs = nowNs
                    history.append(packet.slot, store: store)
                }
                history.expire(nowNs: nowNs, roundTripTimeNs: 50_000_000, store: store)
            }
        }
        try stream(0..<300)
        let slotCount = store.slotCount
        #expect(slotCount > PacketHistory.minimumPackets)
        try stream(300..<1_200)
        #expect(store.slotCount == slotCount)
        #expect(store.usedSlotCount == history.count)
    }

    @Test func depacketizerRejectsGapsAndMissingStarts() throws {
        var packetizer = try makePacketizer(sessionConfiguration(mtu: 100, session: Self.session))
        let store = PacketStore(slotCapacity: 100, maximumSlotCount: 16, initialSlotCount: 1)
        var sent: [[[UInt8]]] = []
        for index in 0..<3 {
            let packets = try packetize(
                encodedFrame([UInt8](repeating: 9, count: 250), isKeyframe: index == 0), with: &packetizer, into: store)
            sent.append(packets.map(\.bytes))
            release(packets, from: store)
        }
        #expect(sent[0].count == 3)

        var lossy = VP8Depacketizer()
        _ = try lossy.push(sent[0][0])
        #expect(throws: VP8DepacketizerError.sequenceGap(expected: 1, received: 2)) { try lossy.push(sent[0][2]) }

        var lateJoiner = VP8Depacketizer()
        #expect(throws: VP8DepacketizerError.missingStartOfFrame(sequenceNumber: 1)) { try lateJoiner.push(sent[0][1]) }

        var skipping = VP8Depacketizer()
        for packet in sent[0] { _ = try skipping.push(packet) }
        // A receiver that lost all of frame 1 sees a sequence gap first; re-sequencing is not its job.
        #expect(throws: VP8DepacketizerError.sequenceGap(expected: 3, received: 6)) { try skipping.push(sent[2][0]) }
    }

    @Test func pictureIDWrapsAndGapsAreCaught() throws {
        let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 10, timestampOffset: 0, initialPictureID: 32_767)
        var packetizer = try makePacketizer(sessionConfiguration(session: session))
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 4, initialSlotCount: 1)
        var depacketizer = VP8Depacketizer()
        for expected: UInt16 in [32_767, 0, 1] {
            let packets = try packetize(encodedFrame([UInt8](repeating: 1, count: 10)), with: &packetizer, into: store)
            #expect(try depacketizer.push(try #require(packets.first).bytes)?.pictureID == expected)
            release(packets, from: store)
        }
        // A second packetizer carrying on the sequence numbers but not the PictureIDs.
        let restarted = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 13, timestampOffset: 0, initialPictureID: 9)
        var other = try makePacketizer(sessionConfiguration(session: restarted))
        let packets = try packetize(encodedFrame([UInt8](repeating: 1, count: 10)), with: &other, into: store)
        #expect(throws: VP8DepacketizerError.pictureIDGap(expected: 2, received: 9)) {
            try depacketizer.push(try #require(packets.first).bytes)
        }
    }
}
