/// A burst the pacer sends at `bitrateBps` so that the receive rate of its packets measures the
/// path: libwebrtc's `ProbeClusterConfig`. The cluster is done when at least `minPackets`
/// packets and `minBytes` bytes went out.
public struct ProbeCluster: Sendable, Hashable {
    public var id: Int
    public var bitrateBps: Int64
    public var minPackets: Int
    public var minBytes: Int
    /// When the controller asked for it (the pacer drops a cluster that waits too long).
    public var createdAtNs: Int64

    public init(id: Int, bitrateBps: Int64, minPackets: Int, minBytes: Int, createdAtNs: Int64) {
        self.id = id
        self.bitrateBps = bitrateBps
        self.minPackets = minPackets
        self.minBytes = minBytes
        self.createdAtNs = createdAtNs
    }
}
