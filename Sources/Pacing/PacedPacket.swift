import CongestionControl

/// A packet the pacer holds or releases: a reference into the sender's packet store, never
/// the bytes.
public struct PacedPacket: Sendable {
    /// The sender's key for the packet in its store (a slot).
    public var handle: Int
    /// Its size on the wire, as charged to the pacing budget.
    public var sizeBytes: Int
    public var kind: PacketKind
    public var enqueueTimeNs: Int64
    /// Set on release when the packet goes out as part of a probe cluster; copy it into
    /// `SentPacket.probeClusterID`.
    public var probeClusterID: Int?

    public init(handle: Int, sizeBytes: Int, kind: PacketKind, enqueueTimeNs: Int64, probeClusterID: Int? = nil) {
        self.handle = handle
        self.sizeBytes = sizeBytes
        self.kind = kind
        self.enqueueTimeNs = enqueueTimeNs
        self.probeClusterID = probeClusterID
    }
}
