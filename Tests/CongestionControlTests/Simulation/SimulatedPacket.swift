import CongestionControl

/// A packet travelling through the simulation: what the sender knows plus the timestamps the
/// metrics need.
struct SimulatedPacket {
    var sequenceNumber: Int64
    var sizeBytes: Int
    var kind: PacketKind
    var probeClusterID: Int?
    /// When the pacer got it, and when it left the sender.
    var enqueueTimeNs: Int64
    var sendTimeNs: Int64
    /// When the bottleneck started transmitting it (after its queue).
    var serviceStartNs: Int64 = 0
}
