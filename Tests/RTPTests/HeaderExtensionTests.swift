import TestSupport
import MediaCore
import Testing
@testable import RTP

@Suite struct VideoOrientationTests {
    @Test(arguments: [(.deg0, 0x00), (.deg90, 0x01), (.deg180, 0x02), (.deg270, 0x03)] as [(VideoRotation, UInt8)])
    func rotationBits(rotation: VideoRotation, byte: UInt8) throws {
        let orientation = VideoOrientation(rotation: rotation)
        #expect(orientation.byte == byte)
        #expect(VideoOrientation(byte: byte) == orientation)
        let element = try orientation.element(id: 13)
        #expect(element.data == [byte])
        #expect(try VideoOrientation(element: element) == orientation)
    }

    @Test func cameraAndFlipBits() {
        let orientation = VideoOrientation(rotation: .deg90, camera: .back, isFlipped: true)
        #expect(orientation.byte == 0b0000_1101)
        #expect(VideoOrientation(byte: 0b0000_1101) == orientation)
    }

    @Test func wrongLengthThrows() throws {
        let element = try RTPHeaderExtensionElement(id: 13, data: [1, 2])
        #expect(throws: WireFormatError.self) { try VideoOrientation(element: element) }
    }
}

@Suite struct AbsoluteSendTimeTests {
    @Test(arguments: [
        (0, 0),
        (1_000_000_000, 0x04_0000),
        (500_000_000, 0x02_0000),
        (1_500_000_000, 0x06_0000),
        (63_000_000_000, 0xFC_0000),
        // 64 s is a full turn of the 6-bit seconds.
        (64_000_000_000, 0),
        // One fraction step is 1/2^18 s = 3814.69… ns.
        (3_814, 0), (3_815, 1),
        // 10^9 s + 0.5 s: a plain (ns << 18) would overflow Int64 here.
        (1_000_000_000_500_000_000, 0x02_0000),
    ] as [(Int64, UInt32)])
    func valueFromNanoseconds(timeNs: Int64, value: UInt32) {
        #expect(AbsoluteSendTime(timeNs: timeNs).value == value)
    }

    @Test func elementBytesAreBigEndian() throws {
        let element = try AbsoluteSendTime(value: 0x12_3456).element(id: 2)
        #expect(element.data == [0x12, 0x34, 0x56])
        #expect(try AbsoluteSendTime(element: element).value == 0x12_3456)
    }

    @Test func patchWritesInPlace() throws {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                               extensionElements: [try AbsoluteSendTime(value: 0).element(id: 2)])
        var packet = header.serialized()
        let offset = try #require(header.byteOffset(ofExtensionData: 2))
        packet.withUnsafeMutableBytes { AbsoluteSendTime(value: 0xAB_CDEF).patch($0, atByteOffset: offset) }
        #expect(packet == bytes("90 60 0000 00000000 00000000 bede 0001 22abcdef"))
        let element = try #require(try RTPHeader(parsing: packet).extensionElements.first)
        #expect(try AbsoluteSendTime(element: element).value == 0xAB_CDEF)
    }
}
