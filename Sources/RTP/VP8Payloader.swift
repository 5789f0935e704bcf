/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4.4) the way libwebrtc does; the RTP
/// header around each payload is the stream's business, not the payloader's.
///
/// - Every payload starts with a 4-byte descriptor with a 15-bit PictureID that starts at a
///   random value and grows by one per frame; the first payload of a frame has S = 1, all have
///   PID = 0, and N is set on droppable frames.
/// - A frame is split into the fewest payloads that fit the room the header leaves, of nearly
///   equal size; the last may be smaller when its header carries more (the CVO extension).
///
/// Planning and writing allocate nothing: a `VP8FrameSplit` is a few integers.
public struct VP8Payloader: Sendable {
    /// The descriptor every payload starts with: X = 1, I = 1, M = 1 (15-bit PictureID).
    public static let descriptorSize = VP8PayloadDescriptor(isStartOfPartition: true, pictureID: .long(0)).serializedSize

    /// 15-bit.
    public private(set) var nextPictureID: UInt16

    public init(initialPictureID: UInt16) {
        nextPictureID = initialPictureID & 0x7FFF
    }

    /// Plans the payloads of one frame of `frameSize` bytes and takes a PictureID for it.
    /// - Parameters:
    ///   - payloadCapacity: room for descriptor and data in every packet but the last.
    ///   - lastPacketReduction: how much less room the last packet has.
    public mutating func split(
        frameSize: Int, isDroppable: Bool, payloadCapacity: Int, lastPacketReduction: Int = 0
    ) throws(VP8PayloaderError) -> VP8FrameSplit {
        guard frameSize > 0 else { throw .emptyFrame }
        let dataCapacity = payloadCapacity - Self.descriptorSize
        guard dataCapacity - lastPacketReduction >= 1 else {
            throw .noRoomForPayload(available: payloadCapacity - lastPacketReduction, needed: Self.descriptorSize + 1)
        }
        let split = VP8FrameSplit(
            sizes: BalancedPayloadSplit(payloadSize: frameSize, capacity: dataCapacity, lastPacketReduction: lastPacketReduction),
            descriptor: VP8PayloadDescriptor(isNonReference: isDroppable, isStartOfPartition: true, pictureID: .long(nextPictureID)))
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
        return split
    }
}

/// The payloads of one VP8 frame: how many, how big, and the descriptor they carry.
public struct VP8FrameSplit: Sendable {
    let sizes: BalancedPayloadSplit
    let descriptor: VP8PayloadDescriptor

    public var packetCount: Int { sizes.packetCount }
    public var pictureID: UInt16 { descriptor.pictureID?.value ?? 0 }

    /// Bytes of payload `index`, descriptor included.
    public func payloadSize(ofPacket index: Int) -> Int {
        VP8Payloader.descriptorSize + sizes.size(ofPacket: index)
    }

    /// Writes payload `index` (descriptor, then its share of `frame`) at the start of `buffer`
    /// and returns its length. `frame` is the whole encoded frame the split was planned for.
    public func writePayload(ofPacket index: Int, frame: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        precondition(index >= 0 && index < packetCount, "payload \(index) outside 0..<\(packetCount)")
        let offset = sizes.offset(ofPacket: index)
        let size = sizes.size(ofPacket: index)
        var packetDescriptor = descriptor
        packetDescriptor.isStartOfPartition = index == 0
        do throws(WireFormatError) {
            var writer = try ByteWriter(buffer, size: VP8Payloader.descriptorSize + size, structure: "VP8 payload")
            try writer.write(packetDescriptor)
            writer.write(UnsafeRawBufferPointer(rebasing: frame[offset..<offset + size]))
            return writer.offset
        } catch {
            preconditionFailure("VP8 payload exceeded the buffer planned for it: \(error)")
        }
    }
}
