/// Reusable storage for the RTP packets of one frame: `slotCount` fixed-capacity slots in one
/// allocation, with each packet's length.
///
/// The storage only grows, when a frame needs more slots than any frame before it, so a
/// steady stream of frames is packetized without touching the heap. Slots are `slotCapacity`
/// bytes, the payloader's whole `mtu`, so an SRTP tag can be appended to a packet in place.
///
/// Not thread-safe: one batch belongs to the thread that packetizes and sends.
public final class RTPPacketBatch {
    public let slotCapacity: Int
    public private(set) var slotCount: Int
    /// The number of packets the last `packetize` call wrote.
    public private(set) var count = 0
    /// How many times the storage has grown; stays put in a steady state.
    public private(set) var growthCount = 0

    private var storage: UnsafeMutableRawPointer
    private var lengths: [Int]
    /// Offset of the abs-send-time data in each packet, or -1 when the packet carries none.
    private var absoluteSendTimeOffsets: [Int]

    public init(slotCapacity: Int, initialSlotCount: Int = 8) {
        precondition(slotCapacity > 0 && initialSlotCount > 0, "a batch needs at least one non-empty slot")
        self.slotCapacity = slotCapacity
        self.slotCount = initialSlotCount
        storage = .allocate(byteCount: slotCapacity * initialSlotCount, alignment: 16)
        lengths = Array(repeating: 0, count: initialSlotCount)
        absoluteSendTimeOffsets = Array(repeating: -1, count: initialSlotCount)
    }

    deinit {
        storage.deallocate()
    }

    /// The bytes of packet `index` (0..<count); the pointer is valid only inside `body`.
    public func withPacket<R, E: Error>(at index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(packet(at: index)))
    }

    /// The bytes of packet `index` for in-place changes such as stamping abs-send-time.
    public func withMutablePacket<R, E: Error>(
        at index: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(packet(at: index))
    }

    /// Where the 3 abs-send-time data bytes of packet `index` start, if it carries them.
    public func absoluteSendTimeOffset(at index: Int) -> Int? {
        precondition(index >= 0 && index < count, "packet index \(index) outside 0..<\(count)")
        let offset = absoluteSendTimeOffsets[index]
        return offset >= 0 ? offset : nil
    }

    /// Patches abs-send-time into packet `index` just before it is sent; no-op without the extension.
    public func stampAbsoluteSendTime(_ time: AbsoluteSendTime, at index: Int) {
        guard let offset = absoluteSendTimeOffset(at: index) else { return }
        time.patch(packet(at: index), atByteOffset: offset)
    }

    /// Empties the batch and makes room for `packetCount` packets.
    func reset(packetCount: Int) {
        count = 0
        guard packetCount > slotCount else { return }
        let newSlotCount = max(packetCount, 2 * slotCount)
        storage.deallocate()
        storage = .allocate(byteCount: slotCapacity * newSlotCount, alignment: 16)
        lengths.append(contentsOf: repeatElement(0, count: newSlotCount - slotCount))
        absoluteSendTimeOffsets.append(contentsOf: repeatElement(-1, count: newSlotCount - slotCount))
        slotCount = newSlotCount
        growthCount += 1
    }

    /// The whole slot the next packet is written into.
    func nextSlot() -> UnsafeMutableRawBufferPointer {
        precondition(count < slotCount, "batch was reset for fewer packets")
        return UnsafeMutableRawBufferPointer(start: storage + count * slotCapacity, count: slotCapacity)
    }

    /// Commits the packet written into `nextSlot()`.
    func append(length: Int, absoluteSendTimeOffset: Int?) {
        lengths[count] = length
        absoluteSendTimeOffsets[count] = absoluteSendTimeOffset ?? -1
        count += 1
    }

    private func packet(at index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count, "packet index \(index) outside 0..<\(count)")
        return UnsafeMutableRawBufferPointer(start: storage + index * slotCapacity, count: lengths[index])
    }
}
