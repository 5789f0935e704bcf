import TestSupport
import Testing
@testable import RTP

@Suite struct VP8PayloadDescriptorTests {
    typealias Descriptor = VP8PayloadDescriptor

    static let layouts: [(Descriptor, String)] = [
        (Descriptor(isStartOfPartition: true), "10"),
        (Descriptor(isNonReference: true, isStartOfPartition: true), "30"),
        (Descriptor(isStartOfPartition: false, partitionIndex: 3), "03"),
        (Descriptor(isStartOfPartition: true, pictureID: .short(0x15)), "90 80 15"),
        (Descriptor(isStartOfPartition: true, pictureID: .long(0x1234)), "90 80 9234"),
        (Descriptor(isStartOfPartition: false, pictureID: .long(0x7FFF)), "80 80 ffff"),
        (Descriptor(isStartOfPartition: true, pictureID: .long(0x7FFF), tl0PictureIndex: 0x42), "90 c0 ffff 42"),
        (Descriptor(isStartOfPartition: false, tl0PictureIndex: 0x42), "80 40 42"),
        (Descriptor(isStartOfPartition: false, temporalLayer: .init(index: 1, isLayerSync: false)), "80 20 40"),
        (Descriptor(isStartOfPartition: false, keyIndex: 31), "80 10 1f"),
        (Descriptor(isStartOfPartition: false, temporalLayer: .init(index: 2, isLayerSync: true), keyIndex: 5), "80 30 a5"),
        (
            Descriptor(
                isNonReference: true, isStartOfPartition: true, partitionIndex: 1, pictureID: .short(0x7F),
                tl0PictureIndex: 1, temporalLayer: .init(index: 3, isLayerSync: true), keyIndex: 0),
            "b1 f0 7f 01 e0"
        ),
    ]

    @Test(arguments: layouts)
    func layoutRoundTrips(descriptor: Descriptor, wire: String) throws {
        #expect(descriptor.serialized() == bytes(wire))
        #expect(descriptor.serializedSize == bytes(wire).count)
        #expect(try Descriptor(parsing: bytes(wire)) == descriptor)
    }

    @Test(arguments: layouts)
    func everyTruncationThrows(descriptor: Descriptor, wire: String) {
        let full = bytes(wire)
        for length in 0..<full.count {
            #expect(throws: WireFormatError.self) { try Descriptor(parsing: Array(full.prefix(length))) }
        }
    }

    @Test func reservedBitsAreIgnored() throws {
        #expect(try Descriptor(parsing: [0x48]) == Descriptor(isStartOfPartition: false))
        #expect(try Descriptor(parsing: [0x80, 0x8F, 0x05]) == Descriptor(isStartOfPartition: false, pictureID: .short(5)))
    }

    @Test func extensionByteWithoutFieldsKeepsItsSize() throws {
        let parsed = try Descriptor(parsing: bytes("90 00 aa"))
        #expect(parsed.isStartOfPartition && parsed.pictureID == nil)
        #expect(parsed.serializedSize == 2)
        #expect(parsed.serialized() == bytes("90 00"))
    }

    @Test func pictureIDValues() {
        #expect(Descriptor.PictureID.short(0xFF).value == 0x7F)
        #expect(Descriptor.PictureID.long(0xFFFF).value == 0x7FFF)
    }
}

@Suite struct VP8PayloadHeaderTests {
    @Test func keyframeHeader() throws {
        let header = VP8PayloadHeader(
            firstPartitionSize: 0x12345, keyframeDimensions: .init(width: 640, height: 480))
        let wire = bytes("b0 68 24 9d012a 8002 e001")
        #expect(header.serialized() == wire)
        let parsed = try VP8PayloadHeader(parsing: wire)
        #expect(parsed == header)
        #expect(parsed.isKeyframe)
    }

    @Test func hiddenInterframeHeader() throws {
        let header = VP8PayloadHeader(version: 1, showFrame: false, firstPartitionSize: 100, keyframeDimensions: nil)
        let wire = bytes("83 0c 00")
        #expect(header.serialized() == wire)
        let parsed = try VP8PayloadHeader(parsing: wire)
        #expect(parsed == header)
        #expect(!parsed.isKeyframe)
    }

    @Test func scaledKeyframeDimensions() throws {
        let parsed = try VP8PayloadHeader(parsing: bytes("10 00 00 9d012a 80c2 e041"))
        #expect(parsed.keyframeDimensions == .init(width: 640, horizontalScale: 3, height: 480, verticalScale: 1))
    }

    @Test func badStartCodeThrows() {
        #expect(throws: WireFormatError.self) { try VP8PayloadHeader(parsing: bytes("10 00 00 9d012b 8002 e001")) }
    }

    @Test func everyTruncationThrows() {
        let full = bytes("b0 68 24 9d012a 8002 e001")
        for length in 0..<full.count {
            #expect(throws: WireFormatError.self) { try VP8PayloadHeader(parsing: Array(full.prefix(length))) }
        }
    }
}
