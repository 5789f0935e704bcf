/// A reusable set of fixed-capacity packet slots: the hand-over between the RTP packetizer, SRTP
/// and `UDPTransport`.
///
/// Contract:
/// - Each slot is one allocation of `packetCapacity + tailroom` bytes that lives as long as the
///   batch. Slots are added only when a batch holds more packets than ever before, and never freed
///   or moved, so steady sending allocates nothing.
/// - A producer appends a packet with ``append(_:)``: it writes the packet from offset 0 into the
///   `packetCapacity` bytes it is given and returns how many it wrote. The `tailroom` after the
///   packet is left for the SRTP trailer (RFC 3711 section 3.1: authentication tag and MKI), which
///   ``SRTPSession`` writes in place.
/// - ``removeAll()`` empties the batch for the next frame and keeps every slot.
/// - The batch is not `Sendable`: it belongs to the send thread, like the socket and SRTP contexts.
public final class PacketBatch {
    /// Bytes a producer may write per packet.
    public let packetCapacity: Int
    /// Bytes reserved after each packet for trailers added in place (SRTP).
    public let tailroom: Int
    /// Number of packets in the batch.
    public private(set) var count = 0

    private var slots: [UnsafeMutableRawPointer] = []
    private var lengths: [Int] = []

    /// - Parameters:
    ///   - packetCapacity: the largest packet a producer writes. With SRTP, keep the protected
    ///     packet within the MTU by writing at most MTU − `SRTPSuite.rtpAuthenticationTagLength`.
    ///   - tailroom: bytes kept free after each packet; `SRTPSession.maximumTrailerLength` for SRTP.
    ///   - reservedPackets: slots allocated up front.
    public init(packetCapacity: Int, tailroom: Int = 0, reservedPackets: Int = 64) {
        precondition(packetCapacity > 0 && tailroom >= 0 && reservedPackets >= 0)
        self.packetCapacity = packetCapacity
        self.tailroom = tailroom
        growSlots(to: reservedPackets)
    }

    deinit {
        for slot in slots { slot.deallocate() }
    }

    /// Slots allocated so far: grows only when a batch is bigger than any before it.
    public var allocatedSlots: Int { slots.count }

    public var isEmpty: Bool { count == 0 }

    /// Empties the batch and keeps its storage.
    public func removeAll() {
        count = 0
    }

    /// Appends one packet. `write` fills the start of the buffer it gets (`packetCapacity` bytes)
    /// and returns the packet length. If `write` throws, the batch is unchanged.
    public func append<E: Error>(_ write: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) {
        if count == slots.count { growSlots(to: Swift.max(8, slots.count * 2)) }
        let length = try write(UnsafeMutableRawBufferPointer(start: slots[count], count: packetCapacity))
        precondition(length >= 0 && length <= packetCapacity, "packet length \(length) outside 0…\(packetCapacity)")
        lengths[count] = length
        count += 1
    }

    /// Appends a copy of `bytes` (at most `packetCapacity` of them).
    public func append(copying bytes: UnsafeRawBufferPointer) {
        append { (slot: UnsafeMutableRawBufferPointer) -> Int in
            precondition(bytes.count <= slot.count, "packet of \(bytes.count) bytes exceeds capacity \(slot.count)")
            slot.copyMemory(from: bytes)
            return bytes.count
        }
    }

    /// The bytes of packet `index`.
    public subscript(index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count, "packet index \(index) out of 0..<\(count)")
        return UnsafeRawBufferPointer(start: slots[index], count: lengths[index])
    }

    /// Length of packet `index`.
    public func length(at index: Int) -> Int {
        precondition(index >= 0 && index < count, "packet index \(index) out of 0..<\(count)")
        return lengths[index]
    }

    /// The whole slot of packet `index`, tail room included, for in-place transforms such as
    /// SRTP protection. Record the new length with ``setLength(_:at:)``.
    public func slot(at index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count, "packet index \(index) out of 0..<\(count)")
        return UnsafeMutableRawBufferPointer(start: slots[index], count: packetCapacity + tailroom)
    }

    /// Sets the length of packet `index` after an in-place transform.
    public func setLength(_ length: Int, at index: Int) {
        precondition(index >= 0 && index < count, "packet index \(index) out of 0..<\(count)")
        precondition(length >= 0 && length <= packetCapacity + tailroom, "length \(length) exceeds slot")
        lengths[index] = length
    }

    private func growSlots(to newCount: Int) {
        guard newCount > slots.count else { return }
        slots.reserveCapacity(newCount)
        lengths.reserveCapacity(newCount)
        let slotBytes = packetCapacity + tailroom
        while slots.count < newCount {
            slots.append(.allocate(byteCount: slotBytes, alignment: 16))
            lengths.append(0)
        }
    }
}
