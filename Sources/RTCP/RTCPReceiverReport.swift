import RTP

/// An RTCP receiver report, RR (RFC 3550 §6.4.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 report blocks (RC × 24 bytes)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTCPReceiverReport: WireFormat, Equatable, Sendable {
    public var ssrc: UInt32
    /// At most 31; more are not sent.
    public var reportBlocks: [RTCPReportBlock]

    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
    }

    private var blockCount: Int { min(reportBlocks.count, RTCPCommonHeader.maximumCount) }

    public var serializedSize: Int { RTCPCommonHeader.size + 4 + blockCount * RTCPReportBlock.size }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP RR")
        RTCPCommonHeader.write(count: blockCount, packetType: RTCPPacketType.receiverReport, packetSize: serializedSize, to: &writer)
        writer.write(ssrc)
        for block in reportBlocks.prefix(blockCount) { try writer.write(block) }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: RTCPPacketType.receiverReport, structure: "RTCP RR")
        var reader = ByteReader(header.body, structure: "RTCP RR")
        ssrc = try reader.readUInt32()
        reportBlocks = try RTCPReportBlock.parseList(count: header.count, from: &reader)
    }
}
