import TestSupport

/// A bottleneck: a drop-tail FIFO in front of a link whose capacity can change over time, then
/// a fixed propagation delay, with random loss on entry and, during an outage, total loss.
///
/// The queue limit is in time: a packet is dropped when the bytes ahead of it would take longer
/// than `queueLimitNs` to drain at the current capacity, as a router buffer sized in ms.
struct SimulatedLink {
    /// The capacity from `atNs` on (a step function, sorted by time).
    var capacitySchedule: [(atNs: Int64, bitrateBps: Int64)]
    let propagationDelayNs: Int64
    let queueLimitNs: Int64
    let randomLossFraction: Double
    let outageNs: Range<Int64>?
    private var random: SplitMix64
    private var queue: [SimulatedPacket] = []
    private var queueHead = 0
    private var queuedBytes = 0
    /// When the packet at the head of the queue finishes transmission.
    private var headDepartureNs: Int64?
    private(set) var droppedByQueue = 0
    private(set) var droppedAtRandom = 0
    private(set) var droppedInOutage = 0

    init(
        capacitySchedule: [(atNs: Int64, bitrateBps: Int64)], propagationDelayNs: Int64, queueLimitNs: Int64,
        randomLossFraction: Double, outageNs: Range<Int64>?, seed: UInt64
    ) {
        self.capacitySchedule = capacitySchedule
        self.propagationDelayNs = propagationDelayNs
        self.queueLimitNs = queueLimitNs
        self.randomLossFraction = randomLossFraction
        self.outageNs = outageNs
        random = SplitMix64(state: seed)
    }

    func capacityBps(atNs: Int64) -> Int64 {
        capacitySchedule.last { $0.atNs <= atNs }?.bitrateBps ?? capacitySchedule[0].bitrateBps
    }

    var nextDepartureNs: Int64? { headDepartureNs }

    mutating func enqueue(_ packet: SimulatedPacket, nowNs: Int64) {
        if outageNs?.contains(nowNs) ?? false {
            droppedInOutage += 1
            return
        }
        if randomLossFraction > 0 && Double.random(in: 0..<1, using: &random) < randomLossFraction {
            droppedAtRandom += 1
            return
        }
        let drainNs = Int64(Double(queuedBytes) * 8e9 / Double(capacityBps(atNs: nowNs)))
        if drainNs > queueLimitNs {
            droppedByQueue += 1
            return
        }
        queue.append(packet)
        queuedBytes += packet.sizeBytes
        if headDepartureNs == nil {
            startService(nowNs: nowNs)
        }
    }

    /// Finishes the head packet's transmission: it reaches the receiver a propagation delay later.
    mutating func departHead() -> (packet: SimulatedPacket, arrivalNs: Int64) {
        let departureNs = headDepartureNs!
        let packet = queue[queueHead]
        queueHead += 1
        queuedBytes -= packet.sizeBytes
        headDepartureNs = nil
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else {
            startService(nowNs: departureNs)
        }
        return (packet, departureNs + propagationDelayNs)
    }

    private mutating func startService(nowNs: Int64) {
        queue[queueHead].serviceStartNs = nowNs
        let sizeBits = Double(queue[queueHead].sizeBytes * 8)
        headDepartureNs = nowNs + Int64(sizeBits * 1e9 / Double(capacityBps(atNs: nowNs)))
    }
}
