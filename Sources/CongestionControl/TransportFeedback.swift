/// One transport-wide feedback message (TWCC) as the send loop decoded it: for each reported
/// sequence number, when the receiver got it, or that it did not.
public struct TransportFeedback: Sendable, Hashable {
    /// One reported packet.
    public struct PacketReport: Sendable, Hashable {
        /// The transport-wide sequence number, unwrapped to 64 bits as in `SentPacket`.
        public var sequenceNumber: Int64
        /// The arrival time on the receiver's clock (reference time plus deltas), or nil when the
        /// receiver reports the packet lost. Only differences between these are used.
        public var receiveTimeNs: Int64?

        public init(sequenceNumber: Int64, receiveTimeNs: Int64?) {
            self.sequenceNumber = sequenceNumber
            self.receiveTimeNs = receiveTimeNs
        }
    }

    /// When the feedback reached the sender (sender's clock).
    public var feedbackTimeNs: Int64
    public var packets: [PacketReport]

    public init(feedbackTimeNs: Int64, packets: [PacketReport]) {
        self.feedbackTimeNs = feedbackTimeNs
        self.packets = packets
    }
}
