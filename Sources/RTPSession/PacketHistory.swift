import DequeModule

/// The media packets a receiver may still ask for again, in sequence order, as libwebrtc keeps
/// them (`RtpPacketHistory`): every packet for at least max(1 s, 3 × RTT) after it was first
/// sent, and never fewer than the last 600, never more than 9600.
///
/// Media packets are numbered consecutively and leave in that order, so a packet's place in the
/// history follows from its sequence number: lookup is one subtraction. The history holds store
/// slots; expiring one hands the slot back to the store.
struct PacketHistory {
    static let minimumPackets = 600
    static let maximumPackets = 9_600
    static let minimumAgeNs: Int64 = 1_000_000_000

    private var slots = Deque<Int>()
    private var oldestSequenceNumber: UInt16 = 0

    init() {
        slots.reserveCapacity(Self.minimumPackets)
    }

    var count: Int { slots.count }

    /// Adds a media packet at its first send; it must follow the newest one in sequence. The
    /// oldest goes when the history is at its maximum.
    mutating func append(_ slot: Int, store: PacketStore) {
        let sequenceNumber = store[slot].sequenceNumber
        if slots.isEmpty {
            oldestSequenceNumber = sequenceNumber
        } else if sequenceNumber != oldestSequenceNumber &+ UInt16(truncatingIfNeeded: slots.count) {
            // A gap (the store was full and a frame was skipped): start over from this packet.
            removeAll(store: store)
            oldestSequenceNumber = sequenceNumber
        }
        if slots.count == Self.maximumPackets { removeOldest(store: store) }  // Even between two expiries.
        store.enterHistory(slot)
        slots.append(slot)
    }

    /// The slot of the packet with `sequenceNumber`, if the history still has it.
    func slot(for sequenceNumber: UInt16) -> Int? {
        let offset = Int(sequenceNumber &- oldestSequenceNumber)
        return offset < slots.count ? slots[offset] : nil
    }

    /// The newest packets, newest first, for padding made of real media.
    func newest(_ count: Int) -> some Sequence<Int> {
        slots.reversed().prefix(count)
    }

    /// Forgets packets past their time: older than max(1 s, 3 × `roundTripTimeNs`) once more than
    /// 600 are kept, and any beyond 9600.
    mutating func expire(nowNs: Int64, roundTripTimeNs: Int64, store: PacketStore) {
        let keepNs = max(Self.minimumAgeNs, 3 * roundTripTimeNs)
        while let oldest = slots.first, slots.count > Self.minimumPackets {
            let sentNs = store[oldest].firstSentNs ?? nowNs
            guard slots.count > Self.maximumPackets || nowNs - sentNs > keepNs else { break }
            removeOldest(store: store)
        }
    }

    private mutating func removeOldest(store: PacketStore) {
        store.leaveHistory(slots.removeFirst())
        oldestSequenceNumber &+= 1
    }

    private mutating func removeAll(store: PacketStore) {
        while !slots.isEmpty { removeOldest(store: store) }
    }
}
