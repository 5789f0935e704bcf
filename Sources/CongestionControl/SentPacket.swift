/// A packet as it left the socket, reported to the controller by the send loop.
public struct SentPacket: Sendable, Hashable {
    /// The transport-wide sequence number (TWCC), unwrapped to 64 bits by the send loop.
    public var sequenceNumber: Int64
    /// When the packet left the socket (sender's monotonic clock).
    public var sendTimeNs: Int64
    /// The whole packet on the wire: IP and UDP headers, RTP header and payload, SRTP tag.
    public var sizeBytes: Int
    public var kind: PacketKind
    /// The probe cluster the pacer sent it for, if any (`PacedPacket.probeClusterID`).
    public var probeClusterID: Int?

    public init(
        sequenceNumber: Int64, sendTimeNs: Int64, sizeBytes: Int, kind: PacketKind = .media, probeClusterID: Int? = nil
    ) {
        self.sequenceNumber = sequenceNumber
        self.sendTimeNs = sendTimeNs
        self.sizeBytes = sizeBytes
        self.kind = kind
        self.probeClusterID = probeClusterID
    }
}
