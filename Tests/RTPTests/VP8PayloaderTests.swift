import TestSupport
import MediaCore
import Testing
@testable import RTP

/// Packets of a batch, copied out for inspection.
func packets(of batch: RTPPacketBatch) -> [[UInt8]] {
    (0..<batch.count).map { Array(batch[$0]) }
}

@Suite struct VP8PayloaderVectorTests {
    let session = RTPSessionParameters(ssrc: 0x1122_3344, initialSequenceNumber: 1000, timestampOffset: 0, initialPictureID: 0x1234)

    @Test func singlePacketFrameBytes() throws {
        var payloader = try VP8Payloader(configuration: .init(), session: session)
        let batch = payloader.makeBatch()
        let frame = EncodedFrame(
            data: [1, 2, 3], width: 2, height: 2, timestampNs: 1_000_000_000, rotation: .deg0, isKeyframe: true, isDroppable: false)
        try payloader.packetize(frame, into: batch)
        // M=1 PT=96 seq 1000 ts 90000 | X S PID=0 | I | M=1 PictureID 0x1234 | payload
        #expect(packets(of: batch) == [bytes("80 e0 03e8 00015f90 11223344 90 80 9234 010203")])
        #expect(payloader.nextSequenceNumber == 1001)
        #expect(payloader.nextPictureID == 0x1235)
    }

    @Test func extensionsOnASinglePacketKeyframe() throws {
        let configuration = VP8Payloader.Configuration(videoOrientationExtensionID: 13, absoluteSendTimeExtensionID: 2)
        var payloader = try VP8Payloader(configuration: configuration, session: session)
        let batch = payloader.makeBatch()
        try [UInt8](arrayLiteral: 1, 2, 3).withUnsafeBytes { frame in
            try payloader.packetize(frame, isKeyframe: true, isDroppable: true, timestampNs: 1_000_000_000, rotation: .deg90, into: batch)
        }
        // abs-send-time (id 2, zeros until stamped) then CVO (id 13, 90°), padded; N=1 for droppable.
        #expect(packets(of: batch) == [bytes("90 e0 03e8 00015f90 11223344 bede0002 22000000 d0010000 b0 80 9234 010203")])
        #expect(batch.absoluteSendTimeOffset(at: 0) == 17)
        batch.stampAbsoluteSendTime(AbsoluteSendTime(value: 0xABCDEF), at: 0)
        #expect(packets(of: batch)[0][16..<20] == [0x22, 0xAB, 0xCD, 0xEF])
    }

    @Test func twoPacketSplitBytes() throws {
        // mtu 20 leaves 4 payload bytes per packet: 7 bytes split 3 + 4, the larger one last.
        var payloader = try VP8Payloader(configuration: .init(mtu: 20), session: session)
        let batch = payloader.makeBatch()
        try [UInt8](1...7).withUnsafeBytes { frame in
            try payloader.packetize(frame, isKeyframe: false, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
        }
        #expect(packets(of: batch) == [
            bytes("80 60 03e8 00000000 11223344 90 80 9234 010203"),
            bytes("80 e0 03e9 00000000 11223344 80 80 9234 04050607"),
        ])
    }

    @Test(arguments: [
        (VP8Payloader.Configuration(), 17),
        (VP8Payloader.Configuration(videoOrientationExtensionID: 3), 25),
        (VP8Payloader.Configuration(absoluteSendTimeExtensionID: 2), 25),
        (VP8Payloader.Configuration(srtpOverhead: 10, videoOrientationExtensionID: 13, absoluteSendTimeExtensionID: 2), 39),
    ])
    func minimumMTU(configuration: VP8Payloader.Configuration, minimum: Int) throws {
        #expect(try VP8Payloader.minimumMTU(for: configuration) == minimum)
        var tooSmall = configuration
        tooSmall.mtu = minimum - 1
        #expect(throws: VP8PayloaderError.mtuTooSmall(mtu: minimum - 1, minimum: minimum)) {
            try VP8Payloader(configuration: tooSmall, session: session)
        }
        var smallest = configuration
        smallest.mtu = minimum
        var payloader = try VP8Payloader(configuration: smallest, session: session)
        let batch = payloader.makeBatch()
        try [UInt8](repeating: 7, count: 5).withUnsafeBytes { frame in
            try payloader.packetize(frame, isKeyframe: true, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
        }
        #expect(batch.count >= 1)
        for packet in packets(of: batch) { #expect(packet.count + configuration.srtpOverhead <= minimum) }
    }

    @Test func mtuErrorReadsLikeTheCLIMessage() {
        #expect(VP8PayloaderError.mtuTooSmall(mtu: 40, minimum: 45).description == "MTU 40 is too small: RTP needs at least 45 bytes")
    }

    @Test(arguments: [
        (VP8Payloader.Configuration(videoOrientationExtensionID: 15), VP8PayloaderError.invalidExtensionID(15)),
        (VP8Payloader.Configuration(absoluteSendTimeExtensionID: 0), .invalidExtensionID(0)),
        (VP8Payloader.Configuration(videoOrientationExtensionID: 4, absoluteSendTimeExtensionID: 4), .duplicateExtensionID(4)),
        (VP8Payloader.Configuration(srtpOverhead: -1), .negativeSRTPOverhead(-1)),
    ])
    func badConfigurationsThrow(configuration: VP8Payloader.Configuration, error: VP8PayloaderError) {
        #expect(throws: error) { try VP8Payloader(configuration: configuration, session: session) }
    }

    @Test func emptyFrameAndSmallBatchThrow() throws {
        var payloader = try VP8Payloader(configuration: .init(), session: session)
        let batch = RTPPacketBatch(slotCapacity: 1000)
        #expect(throws: VP8PayloaderError.emptyFrame) {
            try payloader.packetize(UnsafeRawBufferPointer(start: nil, count: 0), isKeyframe: false, isDroppable: false,
                                    timestampNs: 0, rotation: .deg0, into: batch)
        }
        #expect(throws: VP8PayloaderError.batchSlotTooSmall(slotCapacity: 1000, mtu: 1200)) {
            try [UInt8](repeating: 0, count: 10).withUnsafeBytes { frame in
                try payloader.packetize(frame, isKeyframe: false, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
            }
        }
    }
}

@Suite struct VP8PayloaderBehaviourTests {
    @Test func videoOrientationIsSentOnKeyframesChangesAndNonZeroRotations() throws {
        let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 0, timestampOffset: 0, initialPictureID: 0)
        var payloader = try VP8Payloader(configuration: .init(mtu: 100, videoOrientationExtensionID: 3), session: session)
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: 3)
        let batch = payloader.makeBatch()
        let frames: [(isKeyframe: Bool, rotation: VideoRotation, sendsCVO: Bool)] = [
            (true, .deg0, true), (false, .deg0, false), (false, .deg90, true), (false, .deg90, true),
            (false, .deg0, true), (false, .deg0, false), (true, .deg0, true), (false, .deg270, true),
        ]
        let data = [UInt8](repeating: 0x5A, count: 300)
        for (index, frame) in frames.enumerated() {
            try data.withUnsafeBytes { raw in
                try payloader.packetize(raw, isKeyframe: frame.isKeyframe, isDroppable: false,
                                        timestampNs: Int64(index) * 33_000_000, rotation: frame.rotation, into: batch)
            }
            let sent = packets(of: batch)
            for packet in sent.dropLast() {
                #expect(try RTPHeader(parsing: packet).extensionElements.isEmpty)
            }
            var reassembled: VP8Depacketizer.Frame?
            for packet in sent { reassembled = try depacketizer.push(packet) }
            let orientation = try #require(reassembled).videoOrientation
            #expect(orientation == (frame.sendsCVO ? VideoOrientation(rotation: frame.rotation) : nil), "frame \(index)")
        }
    }

    @Test func steadyStateDoesNotGrowTheBatch() throws {
        let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 0, timestampOffset: 0, initialPictureID: 0)
        var payloader = try VP8Payloader(configuration: .init(), session: session)
        let batch = payloader.makeBatch(initialSlotCount: 1)
        let keyframe = [UInt8](repeating: 1, count: 60_000)
        let delta = [UInt8](repeating: 2, count: 4_000)
        try keyframe.withUnsafeBytes { raw in
            try payloader.packetize(raw, isKeyframe: true, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
        }
        let slotCount = batch.slotCount
        let growthCount = batch.growthCount
        #expect(growthCount >= 1)
        #expect(slotCount >= batch.count)
        for frame in 1...200 {
            let data = frame % 50 == 0 ? keyframe : delta
            try data.withUnsafeBytes { raw in
                try payloader.packetize(raw, isKeyframe: frame % 50 == 0, isDroppable: false,
                                        timestampNs: Int64(frame) * 33_333_333, rotation: .deg0, into: batch)
            }
        }
        #expect(batch.slotCount == slotCount)
        #expect(batch.growthCount == growthCount)
    }

    @Test func depacketizerRejectsGapsAndMissingStarts() throws {
        let session = RTPSessionParameters(ssrc: 1, initialSequenceNumber: 0, timestampOffset: 0, initialPictureID: 0)
        var payloader = try VP8Payloader(configuration: .init(mtu: 100), session: session)
        let batch = payloader.makeBatch()
        var sent: [[[UInt8]]] = []
        for index in 0..<3 {
            try [UInt8](repeating: 9, count: 250).withUnsafeBytes { raw in
                try payloader.packetize(raw, isKeyframe: index == 0, isDroppable: false, timestampNs: 0, rotation: .deg0, into: batch)
            }
            sent.append(packets(of: batch))
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
}
