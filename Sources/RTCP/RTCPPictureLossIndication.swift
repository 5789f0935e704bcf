import RTP

/// A picture loss indication, PLI (RFC 4585 §6.3.1): PSFB FMT 1, the receiver asking for a
/// keyframe because it lost part of the picture.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |   PT=206      |          length = 2           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// PLI has no FCI; any that a peer appends is ignored.
public struct RTCPPictureLossIndication: WireFormat, Equatable, Sendable {
    public static let format: UInt8 = 1

    public var senderSSRC: UInt32
    /// The stream whose picture was lost.
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public var serializedSize: Int { RTCPFeedbackHeader.size }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        let writer = try RTCPFeedbackHeader.writer(
            into: buffer, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, packetSize: serializedSize,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, structure: "RTCP PLI")
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPFeedbackHeader(
            parsing: bytes, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, structure: "RTCP PLI")
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
    }
}
