import CongestionControl

/// Whether the path carries a rate before anything depends on it: the sender fills up to
/// `goalBps` with padding (RTX copies of recent packets) and watches the transport-wide feedback
/// of what it sent from then on. Losses beyond random noise mean the path does not carry the
/// goal, and the probe ends at once, before it costs more than a burst of loss.
///
/// This is what an SFU does before it moves a subscriber up to a larger encoding (LiveKit's
/// stream allocator probes with padding and upgrades only if the estimate holds). A 15 ms probe
/// cluster cannot tell: a policer passes a burst as large as its bucket at any rate, so only a
/// rate held until the bucket is empty shows whether the path carries it. Pure.
struct PaddingProbe: Sendable {
    /// Losses that fail a probe: at least this many, and more than `maxLossFraction` of the
    /// packets reported since it began. Random loss of a few percent passes; a policer or a
    /// full queue, which drop most of the excess, do not.
    static let minLostPackets = 2
    static let maxLossFraction = 0.05

    var goalBps: Int64
    /// The first transport-wide sequence number sent while probing.
    let firstSequenceNumber: Int64
    private(set) var reported = 0
    private(set) var lost = 0

    init(goalBps: Int64, firstSequenceNumber: Int64) {
        self.goalBps = goalBps
        self.firstSequenceNumber = firstSequenceNumber
    }

    /// Counts the feedback's reports of packets sent while probing; true once the probe failed.
    mutating func record(_ packets: [TransportFeedback.PacketReport]) -> Bool {
        for packet in packets where packet.sequenceNumber >= firstSequenceNumber {
            reported += 1
            if packet.receiveTimeNs == nil { lost += 1 }
        }
        return lost >= Self.minLostPackets && Double(lost) > Self.maxLossFraction * Double(reported)
    }
}
