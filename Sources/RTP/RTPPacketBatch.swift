/// Reusable packet slots: the hand-over from the RTP packetizer to SRTP and the UDP transport.
///
/// Contract:
/// - Each slot is one allocation of `slotCapacity + tailroom` bytes that lives as long as the
///   batch and never moves. Slots are added only when a batch holds more packets than ever
///   before, so a steady stream is packetized, protected and sent without touching the heap.
/// - A producer writes a packet from offset 0 into at most `slotCapacity` bytes (the
///   payloader's whole `mtu`). The `tailroom` after it is kept for trailers added in place: the
///   SRTP authentication tag and MKI (RFC 3711 §3.1).
/// - `removeAll()` empties the batch for the next frame and keeps every slot.
///
/// Not thread-safe: a batch belongs to the thread that packetizes and sends, like the socket and
/// the SRTP context.
public final class RTPPacketBatch {
    /// Bytes a producer may write per packet.
    public let slotCapacity: Int
    /// Bytes kept free after each packet for in-place trailers.
    public let tailroom: Int
    /// Packets in the batch.
    public private(set) var count = 0
    /// How many times the slots have grown; stays put in a steady state.
    public private(set) var growthCount = 0

    private var slots: [UnsafeMutableRawPointer] = []
    private var lengths: [Int] = []

    public init(slotCapacity: Int, tailroom: Int = 0, initialSlotCount: Int = 8) {
        precondition(slotCapacity > 0 && tailroom >= 0 && initialSlotCount > 0, "a batch needs at least one non-empty slot")
        self.slotCapacity = slotCapacity
        self.tailroom = tailroom
        addSlots(upTo: initialSlotCount)
    }

    deinit {
        for slot in slots { slot.deallocate() }
    }

    /// Slots allocated so far.
    public var slotCount: Int { slots.count }

    public var isEmpty: Bool { count == 0 }

    /// Empties the batch and keeps its storage.
    public func removeAll() {
        count = 0
    }

    /// Appends one packet: `write` fills the start of the `slotCapacity` bytes it gets and returns
    /// the packet's length. If `write` throws, the batch is unchanged.
    public func append<E: Error>(_ write: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) {
        let length = try write(nextSlot())
        precondition(length >= 0 && length <= slotCapacity, "packet length \(length) outside 0...\(slotCapacity)")
        lengths[count] = length
        count += 1
    }

    /// Appends a copy of `bytes`, at most `slotCapacity` of them (an RTCP packet, say).
    public func append(copying bytes: UnsafeRawBufferPointer) {
        append { (slot: UnsafeMutableRawBufferPointer) -> Int in
            precondition(bytes.count <= slot.count, "packet of \(bytes.count) bytes exceeds the \(slot.count)-byte slot")
            slot.copyMemory(from: bytes)
            return bytes.count
        }
    }

    /// The bytes of packet `index` (0..<count).
    public subscript(index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count, "packet index \(index) outside 0..<\(count)")
        return UnsafeRawBufferPointer(start: slots[index], count: lengths[index])
    }

    /// The length of packet `index`.
    public func length(at index: Int) -> Int {
        self[index].count
    }

    /// The whole slot of packet `index`, tail room included, for in-place transforms such as SRTP
    /// protection; record the new length with `setLength(_:at:)`.
    public func slot(at index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count, "packet index \(index) outside 0..<\(count)")
        return UnsafeMutableRawBufferPointer(start: slots[index], count: slotCapacity + tailroom)
    }

    /// Sets the length of packet `index` after an in-place transform.
    public func setLength(_ length: Int, at index: Int) {
        precondition(index >= 0 && index < count, "packet index \(index) outside 0..<\(count)")
        precondition(length >= 0 && length <= slotCapacity + tailroom, "length \(length) exceeds the slot")
        lengths[index] = length
    }

    /// The slot the next packet is written into (`slotCapacity` bytes).
    private func nextSlot() -> UnsafeMutableRawBufferPointer {
        ensureSlot()
        return UnsafeMutableRawBufferPointer(start: slots[count], count: slotCapacity)
    }

    private func ensureSlot() {
        if count == slots.count { addSlots(upTo: 2 * slots.count) }
    }

    private func addSlots(upTo newCount: Int) {
        if !slots.isEmpty { growthCount += 1 }
        slots.reserveCapacity(newCount)
        lengths.reserveCapacity(newCount)
        while slots.count < newCount {
            slots.append(.allocate(byteCount: slotCapacity + tailroom, alignment: 16))
            lengths.append(0)
        }
    }
}
