/// Packets from the moment they are written until nothing can ask for them again: the pacer's
/// queue refers to them by slot, and the history keeps sent media for retransmission.
///
/// Each slot is one buffer of `slotCapacity` bytes plus what the send loop needs to know about
/// the packet without parsing it. Slots are allocated as the store grows, up to
/// `maximumSlotCount`, and then reused: a steady stream allocates nothing per packet. A slot
/// is free again once it is out of the history and no copy of it waits in the pacer.
///
/// Owned by one `SendSession`.
final class PacketStore {
    struct Entry {
        /// The encoding whose stream the packet belongs to.
        var encodingIndex = 0
        var sequenceNumber: UInt16 = 0
        /// Capture time of the frame the packet belongs to.
        var captureTimeNs: Int64 = 0
        var length = 0
        var headerLength = 0
        var isKeyframe = false
        /// The last packet of its frame (the RTP marker bit).
        var endsFrame = false
        /// An ULPFEC packet protecting media packets before it, not media.
        var isFEC = false
        /// Where the abs-send-time and transport-wide sequence number data sit, or nil.
        var absoluteSendTimeOffset: Int?
        var transportSequenceNumberOffset: Int?
        /// The ULPFEC packet protecting this media packet: its slot, its sequence number (the slot
        /// may hold another since) and where the XOR of the protected bodies starts in it.
        var protectingFEC: (slot: Int, sequenceNumber: UInt16, bodyOffset: Int)?
        /// When it first left the socket, nil before.
        var firstSentNs: Int64?
        /// When the last request to send it again that was answered arrived (NACK).
        var lastAnsweredRequestNs: Int64?
        /// Copies of it waiting in the pacer (the original, retransmissions, padding); kept by
        /// the store's `queueCopy` and `takeQueuedCopy`.
        fileprivate(set) var queuedCopies = 0
        /// Kept by `PacketHistory` through `enterHistory` and `leaveHistory`.
        fileprivate(set) var isInHistory = false

        init() {}

        init(
            encodingIndex: Int, sequenceNumber: UInt16, captureTimeNs: Int64, length: Int, headerLength: Int,
            isKeyframe: Bool, endsFrame: Bool, isFEC: Bool = false, absoluteSendTimeOffset: Int?, transportSequenceNumberOffset: Int?
        ) {
            self.encodingIndex = encodingIndex
            self.sequenceNumber = sequenceNumber
            self.captureTimeNs = captureTimeNs
            self.length = length
            self.headerLength = headerLength
            self.isKeyframe = isKeyframe
            self.endsFrame = endsFrame
            self.isFEC = isFEC
            self.absoluteSendTimeOffset = absoluteSendTimeOffset
            self.transportSequenceNumberOffset = transportSequenceNumberOffset
        }
    }

    let slotCapacity: Int
    let maximumSlotCount: Int
    private var buffers: [UnsafeMutableRawPointer] = []
    private var entries: [Entry] = []
    private var freeSlots: [Int] = []
    /// Whether each slot is on `freeSlots`, so that releasing a slot twice frees it once.
    private var isFree: [Bool] = []

    init(slotCapacity: Int, maximumSlotCount: Int, initialSlotCount: Int = 64) {
        precondition(slotCapacity > 0 && maximumSlotCount >= initialSlotCount && initialSlotCount > 0)
        self.slotCapacity = slotCapacity
        self.maximumSlotCount = maximumSlotCount
        buffers.reserveCapacity(initialSlotCount)
        entries.reserveCapacity(initialSlotCount)
        freeSlots.reserveCapacity(initialSlotCount)
        isFree.reserveCapacity(initialSlotCount)
        for _ in 0..<initialSlotCount { addSlot() }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// Slots allocated so far.
    var slotCount: Int { buffers.count }
    /// Slots holding a packet.
    var usedSlotCount: Int { buffers.count - freeSlots.count }

    /// Whether `count` more packets fit.
    func canStore(_ count: Int) -> Bool {
        freeSlots.count + (maximumSlotCount - buffers.count) >= count
    }

    /// A free slot with a fresh entry, or nil when the store is full.
    func allocate() -> Int? {
        if freeSlots.isEmpty {
            guard buffers.count < maximumSlotCount else { return nil }
            addSlot()
        }
        let slot = freeSlots.removeLast()
        isFree[slot] = false
        entries[slot] = Entry()
        return slot
    }

    /// Frees `slot` if nothing refers to it any more. A slot already free stays free: two copies
    /// of one packet that leave in the same batch release it twice.
    func releaseIfUnused(_ slot: Int) {
        let entry = entries[slot]
        guard !isFree[slot], !entry.isInHistory, entry.queuedCopies == 0 else { return }
        isFree[slot] = true
        freeSlots.append(slot)
    }

    /// A copy of the packet (the original, a retransmission, padding) went into the pacer.
    func queueCopy(_ slot: Int) {
        entries[slot].queuedCopies += 1
    }

    /// A queued copy left the pacer; the slot stays until `releaseIfUnused` after its send.
    func takeQueuedCopy(_ slot: Int) {
        precondition(entries[slot].queuedCopies > 0, "no copy of slot \(slot) was queued")
        entries[slot].queuedCopies -= 1
    }

    func enterHistory(_ slot: Int) {
        entries[slot].isInHistory = true
    }

    /// The history forgot the packet: its slot is free unless a copy still waits in the pacer.
    func leaveHistory(_ slot: Int) {
        entries[slot].isInHistory = false
        releaseIfUnused(slot)
    }

    subscript(slot: Int) -> Entry {
        get { entries[slot] }
        _modify { yield &entries[slot] }
    }

    /// The whole buffer of `slot`, to write a packet into.
    func buffer(_ slot: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: buffers[slot], count: slotCapacity)
    }

    /// The packet stored in `slot`.
    func packet(_ slot: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffers[slot], count: entries[slot].length)
    }

    private func addSlot() {
        buffers.append(.allocate(byteCount: slotCapacity, alignment: 16))
        entries.append(Entry())
        isFree.append(true)
        freeSlots.append(buffers.count - 1)
    }
}
