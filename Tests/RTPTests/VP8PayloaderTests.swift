import TestSupport
import Testing
@testable import RTP

/// Writes every payload of `split` for `frame` and returns them.
func payloads(of split: VP8FrameSplit, frame: [UInt8], bufferSize: Int = 1_500) -> [[UInt8]] {
    frame.withUnsafeBytes { data in
        (0..<split.packetCount).map { index in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
            defer { buffer.deallocate() }
            let length = split.writePayload(ofPacket: index, frame: data, into: buffer)
            return Array(buffer[0..<length])
        }
    }
}

@Suite struct VP8PayloaderVectorTests {
    @Test func singlePayloadBytes() throws {
        var payloader = VP8Payloader(initialPictureID: 0x1234)
        let split = try payloader.split(frameSize: 3, isDroppable: false, payloadCapacity: 100)
        #expect(split.packetCount == 1)
        #expect(split.pictureID == 0x1234)
        #expect(split.payloadSize(ofPacket: 0) == 7)
        // X S PID=0 | I | M=1 PictureID 0x1234 | payload
        #expect(payloads(of: split, frame: [1, 2, 3]) == [bytes("90 80 9234 010203")])
        #expect(payloader.nextPictureID == 0x1235)
    }

    @Test func droppableFramesSetN() throws {
        var payloader = VP8Payloader(initialPictureID: 0x1234)
        let split = try payloader.split(frameSize: 3, isDroppable: true, payloadCapacity: 100)
        #expect(payloads(of: split, frame: [1, 2, 3]) == [bytes("b0 80 9234 010203")])
    }

    @Test func twoPayloadBytes() throws {
        // 8 bytes of room: 4 of data after the descriptor. 7 bytes split 3 + 4, the larger last;
        // only the first has S = 1.
        var payloader = VP8Payloader(initialPictureID: 0x1234)
        let split = try payloader.split(frameSize: 7, isDroppable: false, payloadCapacity: 8)
        #expect(payloads(of: split, frame: Array(1...7)) == [bytes("90 80 9234 010203"), bytes("80 80 9234 04050607")])
        #expect((0..<2).map(split.payloadSize(ofPacket:)) == [7, 8])
    }

    @Test func theLastPayloadGivesUpRoomForALargerHeader() throws {
        // 4 data bytes per payload, 2 in the last: 7 bytes become 3 + 3 + 1.
        var payloader = VP8Payloader(initialPictureID: 5)
        let split = try payloader.split(frameSize: 7, isDroppable: false, payloadCapacity: 8, lastPacketReduction: 2)
        #expect(payloads(of: split, frame: Array(1...7)) == [
            bytes("90 80 8005 010203"), bytes("80 80 8005 040506"), bytes("80 80 8005 07"),
        ])
        // A frame that fits the last payload's room stays one payload.
        let small = try payloader.split(frameSize: 2, isDroppable: false, payloadCapacity: 8, lastPacketReduction: 2)
        #expect(small.packetCount == 1)
        #expect(small.pictureID == 6)
    }

    @Test func writingStopsAtThePayload() throws {
        var payloader = VP8Payloader(initialPictureID: 0)
        let split = try payloader.split(frameSize: 10, isDroppable: false, payloadCapacity: 9)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)
        let frame = [UInt8](repeating: 0x11, count: 10)
        let length = frame.withUnsafeBytes { split.writePayload(ofPacket: 0, frame: $0, into: buffer) }
        #expect(length == split.payloadSize(ofPacket: 0))
        #expect(buffer[length..<32].allSatisfy { $0 == 0xEE })
    }

    @Test func pictureIDsAre15BitsAndWrap() throws {
        var payloader = VP8Payloader(initialPictureID: 0xFFFF)
        #expect(payloader.nextPictureID == 0x7FFF)
        var pictureIDs: [UInt16] = []
        for _ in 0..<3 {
            pictureIDs.append(try payloader.split(frameSize: 1, isDroppable: false, payloadCapacity: 100).pictureID)
        }
        #expect(pictureIDs == [0x7FFF, 0, 1])
        var wrapping = VP8Payloader(initialPictureID: 0x7FFF)
        let split = try wrapping.split(frameSize: 1, isDroppable: false, payloadCapacity: 100)
        #expect(payloads(of: split, frame: [0xAA]) == [bytes("90 80 ffff aa")])
    }

    /// RFC 7741 §4.2 with temporal layers: L and T set, TL0PICIDX after the PictureID, then
    /// TID (2 bits), Y and a zero KEYIDX field; K stays clear.
    @Test func temporalLayerFramesCarryTL0PICIDXAndTheTByte() throws {
        var payloader = VP8Payloader(initialPictureID: 0x1234, initialTL0PictureIndex: 0xFE)
        let layers: [(index: UInt8, sync: Bool, droppable: Bool)] = [
            (0, true, false), (2, true, true), (1, true, false), (2, false, true), (0, false, false), (2, false, true), (0, false, false),
        ]
        var written: [[UInt8]] = []
        for layer in layers {
            let split = try payloader.split(
                frameSize: 1, isDroppable: layer.droppable,
                temporalLayer: VP8PayloadDescriptor.TemporalLayer(index: layer.index, isLayerSync: layer.sync), payloadCapacity: 100)
            #expect(split.payloadSize(ofPacket: 0) == VP8Payloader.layeredDescriptorSize + 1)
            written += payloads(of: split, frame: [0xAA])
        }
        #expect(written == [
            bytes("90 e0 9234 fe 20 aa"),  // base, keyframe: TL0PICIDX 0xfe, TID 0, Y
            bytes("b0 e0 9235 fe a0 aa"),  // N, TID 2, Y: the base frame's TL0PICIDX
            bytes("90 e0 9236 fe 60 aa"),  // TID 1, Y
            bytes("b0 e0 9237 fe 80 aa"),  // TID 2
            bytes("90 e0 9238 ff 00 aa"),  // the next base frame: TL0PICIDX + 1
            bytes("b0 e0 9239 ff 80 aa"),
            bytes("90 e0 923a 00 00 aa"),  // TL0PICIDX wraps at 8 bits
        ])
        #expect(VP8Payloader.layeredDescriptorSize == 6)
        // Parsed back, the fields are what was written.
        let parsed = try written[1].withUnsafeBytes { try VP8PayloadDescriptor(parsing: $0) }
        #expect(parsed.tl0PictureIndex == 0xFE && parsed.temporalLayer == VP8PayloadDescriptor.TemporalLayer(index: 2, isLayerSync: true))
        #expect(parsed.keyIndex == nil && parsed.isNonReference)
    }

    @Test func aLayeredFrameSplitsOnTheLongerDescriptor() throws {
        // 10 bytes of room: 4 of data after the 6-byte descriptor. 7 bytes split 3 + 4.
        var payloader = VP8Payloader(initialPictureID: 1, initialTL0PictureIndex: 7)
        let split = try payloader.split(
            frameSize: 7, isDroppable: false, temporalLayer: VP8PayloadDescriptor.TemporalLayer(index: 1, isLayerSync: false),
            payloadCapacity: 10)
        #expect(payloads(of: split, frame: Array(1...7)) == [bytes("90 e0 8001 06 40 010203"), bytes("80 e0 8001 06 40 04050607")])
        #expect(throws: VP8PayloaderError.noRoomForPayload(available: 6, needed: 7)) {
            try payloader.split(
                frameSize: 1, isDroppable: false, temporalLayer: VP8PayloadDescriptor.TemporalLayer(index: 0, isLayerSync: false),
                payloadCapacity: 6)
        }
    }

    @Test func refusedFramesTakeNoPictureID() {
        var payloader = VP8Payloader(initialPictureID: 40)
        #expect(throws: VP8PayloaderError.emptyFrame) {
            try payloader.split(frameSize: 0, isDroppable: false, payloadCapacity: 100)
        }
        // Room for the descriptor and nothing else.
        #expect(throws: VP8PayloaderError.noRoomForPayload(available: 4, needed: 5)) {
            try payloader.split(frameSize: 10, isDroppable: false, payloadCapacity: 4)
        }
        // Room in the others, but none left in the last.
        #expect(throws: VP8PayloaderError.noRoomForPayload(available: 4, needed: 5)) {
            try payloader.split(frameSize: 10, isDroppable: false, payloadCapacity: 8, lastPacketReduction: 4)
        }
        #expect(payloader.nextPictureID == 40)
    }

    @Test func errorsReadWell() {
        #expect(VP8PayloaderError.emptyFrame.description == "an encoded frame has no bytes to packetize")
        #expect(VP8PayloaderError.noRoomForPayload(available: 4, needed: 5).description
            == "the MTU leaves 4 bytes for the VP8 payload; it needs at least 5")
    }
}
