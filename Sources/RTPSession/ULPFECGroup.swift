import RTP

/// The media packets of one encoding that the next ULPFEC packets will protect: those sent since
/// the last FEC, over a few frames at most, as libwebrtc's `UlpfecGenerator` gathers them. A
/// group closes at a keyframe, when it holds enough packets for one FEC packet at the share in
/// force, when it spans the frames that leave in two RTTs and holds at least half a FEC packet's
/// worth (less would make the one FEC packet cost more than twice the share), after
/// `maximumFrames` frames, or at the 48 packets one mask covers.
struct ULPFECGroup {
    /// libwebrtc's `kUpperLimitFramesFec`.
    static let maximumFrames = 6

    private(set) var slots: [Int] = []
    /// What each slot held when it joined: a slot reused since (the store ran full and the
    /// history started over) must not be protected.
    private var sequenceNumbers: [UInt16] = []
    private(set) var frames = 0

    init() {
        slots.reserveCapacity(ULPFECHeader.maximumProtectedPackets)
        sequenceNumbers.reserveCapacity(ULPFECHeader.maximumProtectedPackets)
    }

    var isFull: Bool { slots.count == ULPFECHeader.maximumProtectedPackets }

    mutating func append(_ slot: Int, sequenceNumber: UInt16) {
        slots.append(slot)
        sequenceNumbers.append(sequenceNumber)
    }

    mutating func frameEnded() {
        frames += 1
    }

    /// Whether the group should get its FEC now, after a frame, at `share` FEC packets per media packet.
    func isDue(share: Double, isKeyframe: Bool, roundTripTimeNs: Int64, frameIntervalNs: Int64) -> Bool {
        guard !slots.isEmpty else { return false }
        let framesInTwoRTTs = Int((2 * Double(roundTripTimeNs) / Double(max(frameIntervalNs, 1))).rounded())
        let worth = Double(slots.count) * share
        return isKeyframe || worth >= 1 || (frames >= framesInTwoRTTs && worth >= 0.5) || frames >= Self.maximumFrames
    }

    /// FEC packets for the group at `share`: at least one.
    func fecCount(share: Double) -> Int {
        max(1, Int((Double(slots.count) * share).rounded()))
    }

    /// Whether every slot still holds the packet that joined.
    func isIntact(in store: PacketStore) -> Bool {
        zip(slots, sequenceNumbers).allSatisfy { store[$0.0].sequenceNumber == $0.1 }
    }

    mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        sequenceNumbers.removeAll(keepingCapacity: true)
        frames = 0
    }
}
