/// A datagram the session sent, travelling through the simulated link, with the timestamps the
/// metrics need.
struct SimulatedPacket {
    var bytes: [UInt8]
    /// A packet sent again (a retransmission, padding, a keep-alive), not new media.
    var isCopy: Bool
    /// When its frame was captured (media), and when it left the sender.
    var captureTimeNs: Int64
    var sendTimeNs: Int64
    /// When the bottleneck started transmitting it (after its queue).
    var serviceStartNs: Int64 = 0

    var sizeBytes: Int { bytes.count }
}
