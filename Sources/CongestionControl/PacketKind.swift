/// What a packet on the wire carries, as the pacer and the controller need to tell apart.
///
/// The pacer sends retransmissions first and padding last; the controller subtracts the rate
/// spent on retransmissions from what it gives the encoder.
public enum PacketKind: Sendable, Hashable, CaseIterable {
    case retransmission
    case media
    case padding
}
