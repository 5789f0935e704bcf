import CongestionControl
import DequeModule

/// The pacer's queue: one FIFO per kind, released retransmissions first, then media, then
/// padding, with the totals the pacer needs (bytes, packets, mean enqueue time). The FIFOs are
/// swift-collections' `Deque`s, ring buffers that allocate nothing once grown to the working size.
struct PacketQueue: Sendable {
    private var retransmissions = Deque<PacedPacket>(minimumCapacity: 256)
    private var media = Deque<PacedPacket>(minimumCapacity: 256)
    private var padding = Deque<PacedPacket>(minimumCapacity: 256)
    private(set) var sizeBytes = 0
    /// Kept, not summed over the FIFOs: the pacer asks on every decision.
    private(set) var count = 0
    /// Sum of the queued packets' enqueue times, for their mean queueing time.
    private var enqueueTimeSumNs = 0.0

    var isEmpty: Bool { count == 0 }

    mutating func push(_ packet: PacedPacket) {
        switch packet.kind {
        case .retransmission: retransmissions.append(packet)
        case .media: media.append(packet)
        case .padding: padding.append(packet)
        }
        sizeBytes += packet.sizeBytes
        count += 1
        enqueueTimeSumNs += Double(packet.enqueueTimeNs)
    }

    /// The next packet by priority, FIFO within a kind.
    mutating func pop() -> PacedPacket? {
        guard let packet = retransmissions.popFirst() ?? media.popFirst() ?? padding.popFirst() else { return nil }
        sizeBytes -= packet.sizeBytes
        count -= 1
        enqueueTimeSumNs = isEmpty ? 0 : enqueueTimeSumNs - Double(packet.enqueueTimeNs)
        return packet
    }

    /// The enqueue time of the packet that has waited longest.
    var oldestEnqueueTimeNs: Int64? {
        Self.earlier(
            retransmissions.first?.enqueueTimeNs,
            Self.earlier(media.first?.enqueueTimeNs, padding.first?.enqueueTimeNs))
    }

    private static func earlier(_ first: Int64?, _ second: Int64?) -> Int64? {
        guard let first, let second else { return first ?? second }
        return min(first, second)
    }

    /// How long the queued packets have waited, on average.
    func averageQueueTimeNs(nowNs: Int64) -> Int64 {
        isEmpty ? 0 : max(0, nowNs - Int64(enqueueTimeSumNs / Double(count)))
    }
}
