import RTP

/// An RTCP sender report, SR (RFC 3550 §6.4.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         SSRC of sender                        |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |              NTP timestamp, most significant word             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             NTP timestamp, least significant word             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP timestamp                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     sender's packet count                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      sender's octet count                     |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 report blocks (RC × 24 bytes)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// `ntpTimestamp` and `rtpTimestamp` name the same instant: the wall clock and the stream's
/// RTP clock read together (`NTPClock.timestamp(atMonotonicNs:)` and `RTPClock.rtpTimestamp(forNs:)`
/// of the same monotonic instant), so receivers can map RTP time to wall-clock time.
public struct RTCPSenderReport: WireFormat, Equatable, Sendable {
    public var ssrc: UInt32
    public var ntpTimestamp: NTPTimestamp
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    /// Payload bytes sent, headers and padding excluded.
    public var octetCount: UInt32
    /// At most 31; more are not sent.
    public var reportBlocks: [RTCPReportBlock]

    public init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
    }

    private var blockCount: Int { min(reportBlocks.count, RTCPCommonHeader.maximumCount) }

    public var serializedSize: Int { RTCPCommonHeader.size + 24 + blockCount * RTCPReportBlock.size }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP SR")
        RTCPCommonHeader.write(count: blockCount, packetType: RTCPPacketType.senderReport, packetSize: serializedSize, to: &writer)
        writer.write(ssrc)
        writer.write(ntpTimestamp.seconds)
        writer.write(ntpTimestamp.fraction)
        writer.write(rtpTimestamp)
        writer.write(packetCount)
        writer.write(octetCount)
        for block in reportBlocks.prefix(blockCount) { try writer.write(block) }
        return writer.offset
    }

    /// Reads the SR at the start of `bytes`; profile-specific extensions after the blocks are skipped.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: RTCPPacketType.senderReport, structure: "RTCP SR")
        var reader = ByteReader(header.body, structure: "RTCP SR")
        ssrc = try reader.readUInt32()
        ntpTimestamp = NTPTimestamp(seconds: try reader.readUInt32(), fraction: try reader.readUInt32())
        rtpTimestamp = try reader.readUInt32()
        packetCount = try reader.readUInt32()
        octetCount = try reader.readUInt32()
        reportBlocks = try RTCPReportBlock.parseList(count: header.count, from: &reader)
    }
}
