import RTP

/// What one RTCP datagram yielded: the packets that parsed and why the others were rejected.
///
/// Each packet is framed by its common header's length, so a packet whose contents are malformed
/// is rejected alone and parsing goes on with the next. A broken common header (version, a length
/// past the datagram's end, bad padding) hides where the next packet starts, so it rejects the
/// rest of the datagram as one. Either way the packets before it are kept.
public struct RTCPCompoundParseResult: Equatable, Sendable {
    public var packets: [RTCPPacket]
    /// One error per rejected packet, or for the unreadable rest of the datagram.
    public var rejections: [WireFormatError]

    public init(packets: [RTCPPacket] = [], rejections: [WireFormatError] = []) {
        self.packets = packets
        self.rejections = rejections
    }
}
