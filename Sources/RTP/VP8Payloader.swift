/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4.4) the way libwebrtc does; the RTP
/// header around each payload is the stream's business, not the payloader's.
///
/// - Every payload starts with a 4-byte descriptor with a 15-bit PictureID that starts at a
///   random value and grows by one per frame; the first payload of a frame has S = 1, all have
///   PID = 0, and N is set on droppable frames.
/// - A frame of a temporal layer adds TL0PICIDX and the T byte (TID, Y), 6 bytes in all, as
///   libwebrtc writes them: TL0PICIDX grows by one per base-layer frame, and a frame above the
///   base carries the one of the base frame before it (RFC 7741 §4.2).
/// - A frame is split into the fewest payloads that fit the room the header leaves, of nearly
///   equal size; the last may be smaller when its header carries more (the CVO extension).
///
/// Planning and writing allocate nothing: a `VP8FrameSplit` is a few integers.
public struct VP8Payloader: Sendable {
    /// The descriptor every payload starts with: X = 1, I = 1, M = 1 (15-bit PictureID).
    public static let descriptorSize = VP8PayloadDescriptor(isStartOfPartition: true, pictureID: .long(0)).serializedSize
    /// The descriptor of a frame with a temporal layer: L = 1, T = 1 as well.
    public static let layeredDescriptorSize = VP8PayloadDescriptor(
        isStartOfPartition: true, pictureID: .long(0), tl0PictureIndex: 0,
        temporalLayer: VP8PayloadDescriptor.TemporalLayer(index: 0, isLayerSync: false)).serializedSize

    /// 15-bit.
    public private(set) var nextPictureID: UInt16
    /// What the next base-layer frame carries as TL0PICIDX.
    public private(set) var nextTL0PictureIndex: UInt8

    public init(initialPictureID: UInt16, initialTL0PictureIndex: UInt8 = 0) {
        nextPictureID = initialPictureID & 0x7FFF
        nextTL0PictureIndex = initialTL0PictureIndex
    }

    /// Plans the payloads of one frame of `frameSize` bytes and takes a PictureID for it (and,
    /// for a base-layer frame, a TL0PICIDX).
    /// - Parameters:
    ///   - temporalLayer: the frame's TID and Y; nil without temporal layers.
    ///   - payloadCapacity: room for descriptor and data in every packet but the last.
    ///   - lastPacketReduction: how much less room the last packet has.
    public mutating func split(
        frameSize: Int, isDroppable: Bool, temporalLayer: VP8PayloadDescriptor.TemporalLayer? = nil, payloadCapacity: Int,
        lastPacketReduction: Int = 0
    ) throws(VP8PayloaderError) -> VP8FrameSplit {
        guard frameSize > 0 else { throw .emptyFrame }
        var descriptor = VP8PayloadDescriptor(isNonReference: isDroppable, isStartOfPartition: true, pictureID: .long(nextPictureID))
        if let temporalLayer {
            descriptor.temporalLayer = temporalLayer
            descriptor.tl0PictureIndex = temporalLayer.index == 0 ? nextTL0PictureIndex : nextTL0PictureIndex &- 1
        }
        let dataCapacity = payloadCapacity - descriptor.serializedSize
        guard dataCapacity - lastPacketReduction >= 1 else {
            throw .noRoomForPayload(available: payloadCapacity - lastPacketReduction, needed: descriptor.serializedSize + 1)
        }
        let split = VP8FrameSplit(
            sizes: BalancedPayloadSplit(payloadSize: frameSize, capacity: dataCapacity, lastPacketReduction: lastPacketReduction),
            descriptor: descriptor)
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
        if temporalLayer?.index == 0 { nextTL0PictureIndex &+= 1 }
        return split
    }
}

/// The payloads of one VP8 frame: how many, how big, and the descriptor they carry.
public struct VP8FrameSplit: Sendable {
    let sizes: BalancedPayloadSplit
    let descriptor: VP8PayloadDescriptor

    public var packetCount: Int { sizes.packetCount }
    public var pictureID: UInt16 { descriptor.pictureID?.value ?? 0 }
    /// The frame's TL0PICIDX; nil without temporal layers.
    public var tl0PictureIndex: UInt8? { descriptor.tl0PictureIndex }

    /// Bytes of payload `index`, descriptor included.
    public func payloadSize(ofPacket index: Int) -> Int {
        descriptor.serializedSize + sizes.size(ofPacket: index)
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
            var writer = try ByteWriter(buffer, size: packetDescriptor.serializedSize + size, structure: "VP8 payload")
            try writer.write(packetDescriptor)
            writer.write(UnsafeRawBufferPointer(rebasing: frame[offset..<offset + size]))
            return writer.offset
        } catch {
            preconditionFailure("VP8 payload exceeded the buffer planned for it: \(error)")
        }
    }
}
