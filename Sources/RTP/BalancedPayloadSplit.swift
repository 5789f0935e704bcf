/// Sizes for splitting a payload into the fewest packets, as evenly as possible, the way
/// libwebrtc's `RtpPacketizer::SplitAboutEqually` does: no tiny tail packet, and sizes that
/// differ by at most one byte.
///
/// The last packet may carry extra header bytes (`lastPacketReduction`, a CVO extension), so it
/// holds that much less payload: it is sized as if it had the same room as the others and then
/// gives up the reduction, never dropping below one byte.
struct BalancedPayloadSplit {
    let packetCount: Int
    private let lastPacketSize: Int
    private let baseSize: Int
    /// How many of the packets before the last carry `baseSize + 1` bytes; they come last.
    private let largerCount: Int

    /// `capacity` is the payload room of every packet but the last, which has
    /// `capacity - lastPacketReduction`; that must be at least 1, and `payloadSize` at least 1.
    init(payloadSize: Int, capacity: Int, lastPacketReduction: Int) {
        precondition(payloadSize >= 1 && capacity - lastPacketReduction >= 1, "split needs payload and room for it")
        if payloadSize <= capacity - lastPacketReduction {
            packetCount = 1
            lastPacketSize = payloadSize
            baseSize = 0
            largerCount = 0
            return
        }
        let virtualSize = payloadSize + lastPacketReduction
        packetCount = (virtualSize + capacity - 1) / capacity
        let virtualLargest = (virtualSize + packetCount - 1) / packetCount
        lastPacketSize = max(1, virtualLargest - lastPacketReduction)
        let rest = payloadSize - lastPacketSize
        baseSize = rest / (packetCount - 1)
        largerCount = rest % (packetCount - 1)
    }

    func size(ofPacket index: Int) -> Int {
        if index == packetCount - 1 { return lastPacketSize }
        return baseSize + (index >= packetCount - 1 - largerCount ? 1 : 0)
    }

    /// Where packet `index`'s share starts in the payload.
    func offset(ofPacket index: Int) -> Int {
        let smallerCount = packetCount - 1 - largerCount
        return index * baseSize + max(0, index - smallerCount)
    }
}
