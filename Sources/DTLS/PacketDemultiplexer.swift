/// What arrived on a socket that carries STUN, DTLS, SRTP and SRTCP together (RFC 7983 section 7).
public enum MultiplexedPacketKind: Sendable, Hashable, CaseIterable {
    /// First byte 0…3 (RFC 5389): ICE connectivity checks.
    case stun
    /// First byte 16…19 (RFC 6189).
    case zrtp
    /// First byte 20…63 (RFC 6347): the DTLS handshake and alerts.
    case dtls
    /// First byte 64…79 (RFC 8656): TURN ChannelData.
    case turnChannel
    /// First byte 128…191 and a second byte outside 192…223.
    case rtp
    /// First byte 128…191 and a second byte (packet type) in 192…223 (RFC 5761 section 4).
    case rtcp
}

/// Sorts datagrams by their first byte, as RFC 7983 section 7 lays out:
///
/// ```
///             +----------------+
///             |        [0..3] -+--> forward to STUN
///             |                |
///             |      [16..19] -+--> forward to ZRTP
///             |                |
/// packet -->  |      [20..63] -+--> forward to DTLS
///             |                |
///             |      [64..79] -+--> forward to TURN Channel
///             |                |
///             |    [128..191] -+--> forward to RTP/RTCP
///             +----------------+
/// ```
///
/// RTP and RTCP on one port differ in the second byte (RFC 5761 section 4): RTCP packet types
/// 192…223 never collide with RTP payload types, since dynamic types start at 96 and 64…95
/// are not to be used when multiplexing. Anything else, and an empty datagram, is dropped.
public enum PacketDemultiplexer {
    /// The protocol of `datagram`, or nil when it must be dropped.
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> MultiplexedPacketKind? {
        guard let first = datagram.first else { return nil }
        switch first {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191:
            guard datagram.count >= 2 else { return nil }
            return (192...223).contains(datagram[1]) ? .rtcp : .rtp
        default: return nil
        }
    }
}
