import DTLS
import RTP
import Testing

@Suite("DTLS record header")
struct DTLSRecordHeaderTests {
    /// A DTLS 1.2 handshake record: epoch 1, sequence number 0x0102_0304_0506, 3 bytes of fragment.
    private let record: [UInt8] = [
        0x16, 0xFE, 0xFD, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0x03, 0xAA, 0xBB, 0xCC,
    ]

    @Test func parsesKnownBytes() throws {
        let header = try DTLSRecordHeader(parsing: record)
        #expect(header.contentType == .handshake)
        #expect(header.version == 0xFEFD)
        #expect(header.epoch == 1)
        #expect(header.sequenceNumber == 0x0102_0304_0506)
        #expect(header.length == 3)
    }

    @Test func serializesKnownBytes() {
        let header = DTLSRecordHeader(
            contentType: .handshake, version: 0xFEFD, epoch: 1, sequenceNumber: 0x0102_0304_0506, length: 3)
        #expect(header.serialized() == Array(record.prefix(DTLSRecordHeader.size)))
    }

    @Test func roundTripsEveryContentType() throws {
        for contentType in [DTLSRecordHeader.ContentType.changeCipherSpec, .alert, .handshake, .applicationData] {
            let header = DTLSRecordHeader(
                contentType: contentType, version: 0xFEFF, epoch: 0xFFFF, sequenceNumber: (1 << 48) - 1, length: 0)
            #expect(try DTLSRecordHeader(parsing: header.serialized()) == header)
        }
    }

    @Test func rejectsShortInput() {
        #expect(throws: WireFormatError.truncated(structure: "DTLS record", needed: 13, available: 12)) {
            try DTLSRecordHeader(parsing: Array(record.prefix(12)))
        }
    }

    @Test func rejectsAFragmentLongerThanTheDatagram() {
        #expect(throws: WireFormatError.truncated(structure: "DTLS record", needed: 16, available: 15)) {
            try DTLSRecordHeader(parsing: Array(record.prefix(15)))
        }
    }

    @Test func rejectsOtherContentTypesAndTLSVersions() {
        var heartbeat = record
        heartbeat[0] = 24
        #expect(throws: WireFormatError.self) { try DTLSRecordHeader(parsing: heartbeat) }
        var tls = record
        tls[1] = 0x03
        tls[2] = 0x03
        #expect(throws: WireFormatError.self) { try DTLSRecordHeader(parsing: tls) }
    }

    @Test func serializingRefusesValuesOutOfRange() {
        let header = DTLSRecordHeader(contentType: .alert, version: 0xFEFD, epoch: 0, sequenceNumber: 1 << 48, length: 2)
        var buffer = [UInt8](repeating: 0, count: DTLSRecordHeader.size)
        #expect(throws: WireFormatError.self) {
            _ = try buffer.withUnsafeMutableBytes { try header.serialize(into: $0) }
        }
    }
}
