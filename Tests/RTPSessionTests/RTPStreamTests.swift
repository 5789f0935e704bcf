import MediaCore
import RTP
import Testing
@testable import RTPSession

@Suite struct RTPStreamTests {
    func makeStream(
        extensions: HeaderExtensionIDs = HeaderExtensionIDs(), initialSequenceNumber: UInt16 = 0, timestampOffset: UInt32 = 0
    ) throws -> RTPStream {
        let session = RTPSessionParameters(
            ssrc: 0xCAFE_F00D, initialSequenceNumber: initialSequenceNumber, timestampOffset: timestampOffset, initialPictureID: 0)
        return try RTPStream(parameters: session, payloadType: 96, extensions: extensions)
    }

    @Test func sequenceNumbersWrapAndTimestampsFollowThe90kHzClock() throws {
        var stream = try makeStream(initialSequenceNumber: 65_535, timestampOffset: 0xFFFF_FFF0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        var written: [(sequenceNumber: UInt16, header: RTPHeader)] = []
        for timestampNs: Int64 in [1_000_000_000, 1_033_333_333] {
            let header = stream.writeHeader(timestampNs: timestampNs, marker: true, orientation: nil, into: buffer)
            written.append((header.sequenceNumber, try RTPHeader(parsing: UnsafeRawBufferPointer(rebasing: buffer[0..<header.length]))))
        }
        #expect(written.map(\.sequenceNumber) == [65_535, 0])
        #expect(written.map(\.header.sequenceNumber) == [65_535, 0])
        // 90 000 and 92 999 ticks (truncated) after an offset that wraps.
        #expect(written.map(\.header.timestamp) == [0xFFFF_FFF0 &+ 90_000, 0xFFFF_FFF0 &+ 92_999])
        #expect(stream.nextSequenceNumber == 1)
    }

    struct SizeCase: Sendable, CustomTestStringConvertible {
        var extensions: HeaderExtensionIDs
        var headerSize: Int
        var orientationCost: Int
        var testDescription: String { "\(extensions) → \(headerSize) + \(orientationCost)" }
    }

    /// One-byte elements: abs-send-time 1 + 3, transport-wide sequence number 1 + 2, CVO 1 + 1,
    /// behind a 4-byte block header and padded to 32 bits (RFC 8285 §4.2).
    @Test(arguments: [
        SizeCase(extensions: HeaderExtensionIDs(), headerSize: 12, orientationCost: 0),
        SizeCase(extensions: HeaderExtensionIDs(videoOrientation: 3), headerSize: 12, orientationCost: 8),
        SizeCase(extensions: HeaderExtensionIDs(absoluteSendTime: 2), headerSize: 20, orientationCost: 0),
        SizeCase(extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 3), headerSize: 20, orientationCost: 4),
        SizeCase(extensions: HeaderExtensionIDs(videoOrientation: 3, transportWideSequenceNumber: 5), headerSize: 20, orientationCost: 4),
        SizeCase(
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 3, transportWideSequenceNumber: 5), headerSize: 24,
            orientationCost: 4),
    ])
    func headerSizes(testCase: SizeCase) throws {
        let stream = try makeStream(extensions: testCase.extensions)
        #expect(stream.headerSize == testCase.headerSize)
        #expect(stream.orientationCost == testCase.orientationCost)
    }

    @Test func theHeaderSaysWhereTheSendTimeValuesGo() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        var both = try makeStream(extensions: HeaderExtensionIDs(absoluteSendTime: 2, transportWideSequenceNumber: 5))
        let header = both.writeHeader(timestampNs: 0, marker: false, orientation: nil, into: buffer)
        #expect(header.length == 24)
        #expect(header.absoluteSendTimeOffset == 17)
        #expect(header.transportSequenceNumberOffset == 21)
        #expect(buffer[16] == 0x22 && buffer[20] == 0x51)

        var transportOnly = try makeStream(extensions: HeaderExtensionIDs(videoOrientation: 3, transportWideSequenceNumber: 5))
        let withOrientation = transportOnly.writeHeader(timestampNs: 0, marker: true, orientation: .deg180, into: buffer)
        #expect(withOrientation.length == 24)
        #expect(withOrientation.absoluteSendTimeOffset == nil)
        #expect(withOrientation.transportSequenceNumberOffset == 17)
        // The CVO element follows: ID 3, length 0 (one byte), R = 2 (180°).
        #expect(Array(buffer[16..<22]) == [0x51, 0x00, 0x00, 0x30, 0x02, 0x00])

        var plain = try makeStream()
        let none = plain.writeHeader(timestampNs: 0, marker: false, orientation: .deg90, into: buffer)
        #expect(none.length == 12, "no CVO without its ID")
        #expect(none.absoluteSendTimeOffset == nil && none.transportSequenceNumberOffset == nil)
    }

    @Test func orientationGoesOnKeyframesChangesAndTurnedPictures() throws {
        let stream = try makeStream(extensions: HeaderExtensionIDs(videoOrientation: 3))
        #expect(stream.sendsOrientation(.deg0, previous: nil, isKeyframe: false))
        #expect(!stream.sendsOrientation(.deg0, previous: .deg0, isKeyframe: false))
        #expect(stream.sendsOrientation(.deg0, previous: .deg0, isKeyframe: true))
        #expect(stream.sendsOrientation(.deg0, previous: .deg270, isKeyframe: false))
        #expect(stream.sendsOrientation(.deg90, previous: .deg90, isKeyframe: false))
        let withoutCVO = try makeStream()
        #expect(!withoutCVO.sendsOrientation(.deg90, previous: .deg0, isKeyframe: true))
    }
}
