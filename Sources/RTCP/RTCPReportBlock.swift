import RTP

/// One reception report block of an SR or RR (RFC 3550 §6.4.1), 24 bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 SSRC_n (SSRC of source being reported)        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The cumulative loss is a signed 24-bit value (duplicates can make it negative).
public struct RTCPReportBlock: WireFormat, Equatable, Sendable {
    public static let size = 24

    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256.
    public var fractionLost: UInt8
    /// Signed 24 bits; values outside are clamped when written.
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    /// In RTP timestamp units.
    public var interarrivalJitter: UInt32
    /// The middle 32 bits of the last SR's NTP timestamp, 0 if none was received.
    public var lastSenderReport: UInt32
    /// In units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequenceNumber: UInt32,
        interarrivalJitter: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.interarrivalJitter = interarrivalJitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    public var serializedSize: Int { Self.size }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: Self.size, structure: "RTCP report block")
        writer.write(ssrc)
        writer.write(fractionLost)
        writer.writeUInt24(UInt32(bitPattern: min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)))
        writer.write(extendedHighestSequenceNumber)
        writer.write(interarrivalJitter)
        writer.write(lastSenderReport)
        writer.write(delaySinceLastSenderReport)
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: "RTCP report block")
        ssrc = try reader.readUInt32()
        fractionLost = try reader.readUInt8()
        // Sign-extend the 24-bit field.
        cumulativeLost = Int32(bitPattern: try reader.readUInt24() << 8) >> 8
        extendedHighestSequenceNumber = try reader.readUInt32()
        interarrivalJitter = try reader.readUInt32()
        lastSenderReport = try reader.readUInt32()
        delaySinceLastSenderReport = try reader.readUInt32()
    }

    /// Reads `count` consecutive blocks.
    static func parseList(count: Int, from reader: inout ByteReader) throws(WireFormatError) -> [RTCPReportBlock] {
        try reader.require(count * size)
        var blocks: [RTCPReportBlock] = []
        for _ in 0..<count { blocks.append(try RTCPReportBlock(parsing: try reader.readBytes(size))) }
        return blocks
    }
}
