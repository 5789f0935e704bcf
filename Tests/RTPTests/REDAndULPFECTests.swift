import TestSupport
import Testing
@testable import RTP

/// RED (RFC 2198 §3) and ULPFEC (RFC 5109 §7) on the wire.
@Suite struct REDAndULPFECTests {
    @Test func aPrimaryBlockAloneIsOneByte() throws {
        let header = REDHeader(primaryPayloadType: 96)
        #expect(header.serialized() == bytes("60"))
        #expect(try REDHeader(parsing: bytes("60 aa bb")) == header)
    }

    @Test func redundantBlocksComeFirst() throws {
        // RFC 2198 §3's example shape: a redundant block of PT 96, 320 ticks back, 5 bytes long.
        let header = REDHeader(
            redundantBlocks: [.init(payloadType: 96, timestampOffset: 320, length: 5)], primaryPayloadType: 97)
        let wire = bytes("e0 0500 05 61")
        #expect(header.serialized() == wire)
        #expect(try REDHeader(parsing: wire + [1, 2, 3, 4, 5, 6]) == header)
        #expect(header.redundantLength == 5)
    }

    @Test func redHeadersThatRunPastThePacketAreRefused() {
        #expect(throws: WireFormatError.self) { try REDHeader(parsing: bytes("e0 0500 05 61 01")) }
        #expect(throws: WireFormatError.self) { try REDHeader(parsing: bytes("e0 05")) }
        #expect(throws: WireFormatError.self) { try REDHeader(parsing: [UInt8](repeating: 0x80, count: 80)) }
    }

    static let first = bytes("80 60 000a 00000064 11223344 010203")
    static let second = bytes("80 e0 000b 00000064 11223344 0506")
    /// Worked by hand: P X CC and TS cancel, M survives, lengths 3 ^ 2, bodies 010203 ^ 050600.
    static let fec = bytes("00 80 000a 00000000 0001 0003 c000 040403")

    @Test func theFECOfTwoPacketsIsTheirXOR() throws {
        let packets = [Self.first, Self.second]
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        let length = try buffer.withUnsafeMutableBytes { output in
            try ULPFECEncoder.write(protecting: 2, packet: { index in packets[index].withUnsafeBytes { $0 } }, into: output)
        }
        #expect(Array(buffer[..<length]) == Self.fec)
        let header = try ULPFECHeader(parsing: Self.fec)
        #expect(header.protectedSequenceNumbers == [10, 11] && !header.isLongMask && header.markerRecovery)
        #expect(ULPFECRecovery.recover(from: Self.fec, ssrc: 0x1122_3344) { $0 == 11 ? Self.second : nil } == Self.first)
        #expect(ULPFECRecovery.recover(from: Self.fec, ssrc: 0x1122_3344) { $0 == 10 ? Self.first : nil } == Self.second)
    }

    /// Packets more than 16 apart need the long mask; each one missing comes back whole.
    @Test func anyOneOfUpTo48PacketsIsRecovered() throws {
        var generator = SplitMix64(state: 5)
        let sequenceNumbers: [UInt16] = [65_530, 65_533, 0, 7, 20, 41]
        let packets = sequenceNumbers.map { sequenceNumber -> [UInt8] in
            let payload = (0..<Int.random(in: 1...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let header = RTPHeader(
                marker: Bool.random(using: &generator), payloadType: 96, sequenceNumber: sequenceNumber,
                timestamp: .random(in: 0...UInt32.max, using: &generator), ssrc: 0xABCD)
            return RTPPacket(header: header, payload: payload).serialized()
        }
        var buffer = [UInt8](repeating: 0, count: 400)
        let length = try buffer.withUnsafeMutableBytes { output in
            try ULPFECEncoder.write(protecting: packets.count, packet: { index in packets[index].withUnsafeBytes { $0 } }, into: output)
        }
        let fec = Array(buffer[..<length])
        #expect(try ULPFECHeader(parsing: fec).isLongMask)
        for (missing, original) in zip(sequenceNumbers, packets) {
            let recovered = ULPFECRecovery.recover(from: fec, ssrc: 0xABCD) { number in
                number == missing ? nil : sequenceNumbers.firstIndex(of: number).map { packets[$0] }
            }
            #expect(recovered == original)
        }
    }

    @Test func packetsTooFarApartOrOutOfOrderAreRefused() {
        let far = [Self.first, bytes("80 60 003a 00000064 11223344 01")]  // 10 and 58: 48 apart
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer.withUnsafeMutableBytes { output in
            #expect(throws: WireFormatError.self) {
                try ULPFECEncoder.write(protecting: 2, packet: { index in far[index].withUnsafeBytes { $0 } }, into: output)
            }
            let backwards = [Self.second, Self.first]
            #expect(throws: WireFormatError.self) {
                try ULPFECEncoder.write(protecting: 2, packet: { index in backwards[index].withUnsafeBytes { $0 } }, into: output)
            }
        }
    }

    @Test func ulpfecHeadersThatLieAboutTheirLengthAreRefused() {
        #expect(throws: WireFormatError.self) { try ULPFECHeader(parsing: bytes("00 80 000a 00000000 0001 0009 c000 04")) }
        #expect(throws: WireFormatError.self) { try ULPFECHeader(parsing: bytes("80 80 000a 00000000 0001 0000 c000")) }
        #expect(throws: WireFormatError.self) { try ULPFECHeader(parsing: bytes("40 80 000a 00000000 0001 0000 c000")) }
    }
}
