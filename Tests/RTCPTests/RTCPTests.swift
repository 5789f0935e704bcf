import TestSupport
import Testing
@testable import RTCP
import MediaCore
import RTP

@Suite struct RTCPPacketTests {
    static let block = RTCPReportBlock(
        ssrc: 0xAABB_CCDD, fractionLost: 0x40, cumulativeLost: -1, extendedHighestSequenceNumber: 0x0001_0005,
        interarrivalJitter: 0x20, lastSenderReport: 0x4567_0000, delaySinceLastSenderReport: 0x0001_0000)
    static let blockBytes = "aabbccdd 40 ffffff 00010005 00000020 45670000 00010000"

    static let senderReport = RTCPSenderReport(
        ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(seconds: 0xE123_4567, fraction: 0x8000_0000),
        rtpTimestamp: 90_000, packetCount: 10, octetCount: 1_000)

    @Test func senderReportBytes() throws {
        let wire = bytes("80 c8 0006 11223344 e1234567 80000000 00015f90 0000000a 000003e8")
        #expect(Self.senderReport.serialized() == wire)
        #expect(try RTCPSenderReport(parsing: wire) == Self.senderReport)
    }

    @Test func senderReportWithABlock() throws {
        var report = Self.senderReport
        report.reportBlocks = [Self.block]
        let wire = bytes("81 c8 000c 11223344 e1234567 80000000 00015f90 0000000a 000003e8" + Self.blockBytes)
        #expect(report.serialized() == wire)
        let parsed = try RTCPSenderReport(parsing: wire)
        #expect(parsed == report)
        #expect(parsed.reportBlocks[0].cumulativeLost == -1)
    }

    @Test func receiverReportBytes() throws {
        let report = RTCPReceiverReport(ssrc: 0x5566_7788, reportBlocks: [Self.block])
        let wire = bytes("81 c9 0007 55667788" + Self.blockBytes)
        #expect(report.serialized() == wire)
        #expect(try RTCPReceiverReport(parsing: wire) == report)
    }

    @Test func cumulativeLossIsSigned24Bit() throws {
        var block = Self.block
        block.cumulativeLost = 0x7F_FFFF + 5
        #expect(try RTCPReportBlock(parsing: block.serialized()).cumulativeLost == 0x7F_FFFF)
        block.cumulativeLost = 1_000
        #expect(try RTCPReportBlock(parsing: block.serialized()).cumulativeLost == 1_000)
    }

    @Test(arguments: [
        // Items then END: "cam" is 5 item bytes + END = 6, padded to 8.
        ("cam", "81 ca 0003 11223344 01 03 63616d 00 0000"),
        // "a" is 3 item bytes + END = 4: no padding.
        ("a", "81 ca 0002 11223344 01 01 61 00"),
        // "abcde" is 7 item bytes + END = 8.
        ("abcde", "81 ca 0003 11223344 01 05 6162636465 00"),
    ])
    func sourceDescriptionBytes(cname: String, wire: String) throws {
        let description = RTCPSourceDescription(ssrc: 0x1122_3344, cname: cname)
        #expect(description.serialized() == bytes(wire))
        let parsed = try RTCPSourceDescription(parsing: bytes(wire))
        #expect(parsed == description)
        #expect(parsed.cname == cname)
    }

    @Test func sourceDescriptionWithTwoChunksAndOtherItems() throws {
        let description = RTCPSourceDescription(chunks: [
            .init(ssrc: 1, items: [.init(type: 6, text: "tool"), .cname("x")]),
            .init(ssrc: 2, items: [.cname("yz")]),
        ])
        let wire = bytes("82 ca 0007 00000001 06 04 746f6f6c 01 01 78 000000 00000002 01 02 797a 00000000")
        #expect(description.serialized() == wire)
        let parsed = try RTCPSourceDescription(parsing: wire)
        #expect(parsed == description)
        #expect(parsed.cname == "x")
    }

    @Test func overlongItemIsRefused() {
        let description = RTCPSourceDescription(ssrc: 1, cname: String(repeating: "a", count: 256))
        var storage = [UInt8](repeating: 0, count: 512)
        #expect(throws: WireFormatError.self) {
            try storage.withUnsafeMutableBytes { buffer in
                Result { () throws(WireFormatError) in try description.serialize(into: buffer) }
            }.get()
        }
    }

    @Test(arguments: [
        (nil, "81 cb 0001 11223344"),
        ("bye", "81 cb 0002 11223344 03 627965"),
        ("stop", "81 cb 0003 11223344 04 73746f70 000000"),
    ] as [(String?, String)])
    func byeBytes(reason: String?, wire: String) throws {
        let bye = RTCPBye(ssrcs: [0x1122_3344], reason: reason)
        #expect(bye.serialized() == bytes(wire))
        #expect(try RTCPBye(parsing: bytes(wire)) == bye)
    }

    @Test func paddedReceiverReportParses() throws {
        // P set: the last byte (4) counts the padding bytes.
        let report = try RTCPReceiverReport(parsing: bytes("a0 c9 0002 11223344 00000004"))
        #expect(report == RTCPReceiverReport(ssrc: 0x1122_3344))
    }

    static let singlePackets: [String] = [
        "81 c8 000c 11223344 e1234567 80000000 00015f90 0000000a 000003e8" + blockBytes,
        "81 c9 0007 55667788" + blockBytes,
        "81 ca 0003 11223344 01 03 63616d 00 0000",
        "81 cb 0003 11223344 04 73746f70 000000",
    ]

    @Test(arguments: singlePackets)
    func everyTruncationThrows(wire: String) throws {
        let full = bytes(wire)
        _ = try RTCPCompoundPacket(parsing: full)
        for length in 0..<full.count {
            #expect(throws: WireFormatError.self) { try RTCPCompoundPacket(parsing: Array(full.prefix(length))) }
        }
    }

    @Test(arguments: [
        "40 c9 0001 11223344",  // version 1
        "81 c9 0001 11223344",  // RC 1 but no block
        "81 c9 0009 11223344",  // length beyond the data
        "a0 c9 0001 11223344",  // padding count 0x44 larger than the body
        "81 ca 0002 11223344 01 09 61 00",  // item runs past the packet
        "81 cb 0002 11223344 09 627965",  // reason runs past the packet
    ])
    func garbledInputThrows(wire: String) {
        #expect(throws: WireFormatError.self) { try RTCPCompoundPacket(parsing: bytes(wire)) }
    }

    @Test func wrongPacketTypeThrows() {
        #expect(throws: WireFormatError.self) { try RTCPSenderReport(parsing: bytes("80 c9 0001 11223344")) }
    }
}

@Suite struct RTCPCompoundPacketTests {
    @Test func senderReportSourceDescriptionAndBye() throws {
        let report = RTCPSenderReport(
            ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(seconds: 0xE123_4567, fraction: 0x8000_0000),
            rtpTimestamp: 90_000, packetCount: 10, octetCount: 1_000)
        let compound = RTCPCompoundPacket.senderReports([report], cname: "cam", bye: true)
        let wire = bytes(
            "80 c8 0006 11223344 e1234567 80000000 00015f90 0000000a 000003e8"
                + "81 ca 0003 11223344 01 03 63616d 00 0000"
                + "81 cb 0001 11223344")
        #expect(compound.serialized() == wire)
        #expect(compound.serializedSize == wire.count)
        #expect(try RTCPCompoundPacket(parsing: wire) == compound)

        // Cut between packets, the front still parses; cut inside one, it throws.
        let boundaries: Set = [28, 44]
        for length in 1..<wire.count {
            let prefix = Array(wire.prefix(length))
            if boundaries.contains(length) {
                #expect(try RTCPCompoundPacket(parsing: prefix).packets == Array(compound.packets.prefix(boundaries.filter { $0 <= length }.count)))
            } else {
                #expect(throws: WireFormatError.self) { try RTCPCompoundPacket(parsing: prefix) }
            }
        }
    }

    /// Two streams (simulcast encodings) report in one compound: two SRs, one SDES chunk each, one BYE for both.
    @Test func twoSourcesShareOneCompound() throws {
        let ntp = NTPTimestamp(seconds: 0xE123_4567, fraction: 0x8000_0000)
        let reports = [
            RTCPSenderReport(ssrc: 0x1122_3344, ntpTimestamp: ntp, rtpTimestamp: 90_000, packetCount: 10, octetCount: 1_000),
            RTCPSenderReport(ssrc: 0x5566_7788, ntpTimestamp: ntp, rtpTimestamp: 180_000, packetCount: 3, octetCount: 300),
        ]
        let wire = bytes(
            "80 c8 0006 11223344 e1234567 80000000 00015f90 0000000a 000003e8"
                + "80 c8 0006 55667788 e1234567 80000000 0002bf20 00000003 0000012c"
                + "82 ca 0006 11223344 01 03 63616d 00 0000 55667788 01 03 63616d 00 0000"
                + "82 cb 0002 11223344 55667788")
        let compound = RTCPCompoundPacket.senderReports(reports, cname: "cam", bye: true)
        #expect(compound.serialized() == wire)
        #expect(try RTCPCompoundPacket(parsing: wire) == compound)
    }

    @Test func unknownPacketTypesAreKept() throws {
        // An SLI (RFC 4585 §6.3.2): PT 206, FMT 2.
        let wire = bytes("80 c9 0001 11223344 82 ce 0003 11223344 55667788 00040001")
        let compound = try RTCPCompoundPacket(parsing: wire)
        #expect(compound.packets == [
            .receiverReport(RTCPReceiverReport(ssrc: 0x1122_3344)),
            .other(packetType: 206, count: 2, body: bytes("11223344 55667788 00040001")),
        ])
        #expect(compound.serialized() == wire)
    }

    @Test func emptyInputThrows() {
        #expect(throws: WireFormatError.self) { try RTCPCompoundPacket(parsing: []) }
    }
}

@Suite struct NTPTimestampTests {
    @Test(arguments: [
        (0, 0x83AA_7E80, 0),
        (1_500_000_000, 0x83AA_7E81, 0x8000_0000),
        (-500_000_000, 0x83AA_7E7F, 0x8000_0000),
        (250_000_000, 0x83AA_7E80, 0x4000_0000),
    ] as [(Int64, UInt32, UInt32)])
    func fromUnixTime(unixTimeNs: Int64, seconds: UInt32, fraction: UInt32) {
        let timestamp = NTPTimestamp(unixTimeNs: unixTimeNs)
        #expect(timestamp == NTPTimestamp(seconds: seconds, fraction: fraction))
        #expect(timestamp.unixTimeNs == unixTimeNs)
    }

    @Test func roundTripLosesAtMostOneNanosecond() {
        var generator = SplitMix64(state: 3)
        for _ in 0..<1_000 {
            let unixTimeNs = Int64.random(in: 0..<2_000_000_000_000_000_000, using: &generator)
            let back = NTPTimestamp(unixTimeNs: unixTimeNs).unixTimeNs
            #expect(unixTimeNs - back >= 0 && unixTimeNs - back <= 1)
        }
    }

    @Test func middleBitsForLastSenderReport() {
        #expect(NTPTimestamp(seconds: 0xE123_4567, fraction: 0x89AB_CDEF).middle32Bits == 0x4567_89AB)
    }

    @Test func theSystemClockIsAfter2024() {
        // 2024-01-01 is 1704067200 s after the Unix epoch.
        let clock = NTPClock.system()
        #expect(clock.timestamp(atMonotonicNs: 0).seconds > 0)
        #expect(clock.timestamp(atMonotonicNs: MonotonicClock.nowNs()).seconds > UInt32(1_704_067_200 + NTPTimestamp.unixEpochOffsetSeconds))
    }

    /// One offset maps every monotonic instant: a second later on one clock is a second later on the other.
    @Test func theClockMapsMonotonicToWallTime() {
        let clock = NTPClock(monotonicNs: 5_000_000_000, unixTimeNs: 1_700_000_000_000_000_000)
        #expect(clock.timestamp(atMonotonicNs: 5_000_000_000).unixTimeNs == 1_700_000_000_000_000_000)
        #expect(clock.timestamp(atMonotonicNs: 6_500_000_000).unixTimeNs == 1_700_000_001_500_000_000)
        #expect(clock.timestamp(atMonotonicNs: 6_500_000_000).seconds == UInt32(1_700_000_001 + NTPTimestamp.unixEpochOffsetSeconds))
    }
}
