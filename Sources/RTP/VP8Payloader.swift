import MediaCore

/// Packetizes encoded VP8 frames into RTP packets (RFC 7741 §4.4) the way libwebrtc does.
///
/// - Every packet carries a 4-byte descriptor with a 15-bit PictureID that starts at a random
///   value and grows by one per frame; the first packet of a frame has S = 1, all have PID = 0,
///   and N is set on droppable frames.
/// - The frame is split into the fewest packets that fit `mtu`, of nearly equal size.
/// - The last packet has the marker bit, and the CVO extension when the frame is a keyframe,
///   its rotation differs from the previous frame's, or it is not 0°.
/// - With abs-send-time enabled every packet carries it, as zeros until the sender stamps it
///   with `RTPPacketBatch.stampAbsoluteSendTime(_:at:)`.
///
/// Packets are written into an `RTPPacketBatch`, so packetizing does not allocate.
public struct VP8Payloader: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// SRTP tag sizes to reserve through `srtpOverhead` (RFC 3711, RFC 7714).
        public static let srtpAESCM128HMACSHA1_80Overhead = 10
        public static let srtpAESCM128HMACSHA1_32Overhead = 4
        public static let srtpAEADAESGCMOverhead = 16

        public var payloadType: UInt8
        /// The largest whole packet: RTP header, extensions, descriptor, payload and the SRTP tag.
        public var mtu: Int
        /// Bytes kept free in every packet for the SRTP authentication tag; 0 for plain RTP.
        public var srtpOverhead: Int
        /// The CVO extension's ID, or nil to send no orientation.
        public var videoOrientationExtensionID: UInt8?
        /// The abs-send-time extension's ID, or nil to leave it out.
        public var absoluteSendTimeExtensionID: UInt8?

        public init(
            payloadType: UInt8 = 96, mtu: Int = 1200, srtpOverhead: Int = 0,
            videoOrientationExtensionID: UInt8? = nil, absoluteSendTimeExtensionID: UInt8? = nil
        ) {
            self.payloadType = payloadType
            self.mtu = mtu
            self.srtpOverhead = srtpOverhead
            self.videoOrientationExtensionID = videoOrientationExtensionID
            self.absoluteSendTimeExtensionID = absoluteSendTimeExtensionID
        }
    }

    public let configuration: Configuration
    public let ssrc: UInt32
    public let clock: RTPClock
    public private(set) var nextSequenceNumber: UInt16
    /// 15-bit.
    public private(set) var nextPictureID: UInt16

    private var lastRotation: VideoRotation?
    /// Reused for every packet, so its extension array keeps its capacity.
    private var header: RTPHeader
    private let absoluteSendTimeElement: RTPHeaderExtensionElement?
    /// CVO elements indexed by rotation / 90°; empty when CVO is off.
    private let videoOrientationElements: [RTPHeaderExtensionElement]
    /// Payload room of a packet without CVO, and how much less the CVO packet has.
    private let payloadCapacity: Int
    private let videoOrientationCost: Int

    public init(configuration: Configuration, session: RTPSessionParameters) throws(VP8PayloaderError) {
        let layout = try Layout(configuration)
        guard configuration.mtu >= layout.minimumMTU else {
            throw .mtuTooSmall(mtu: configuration.mtu, minimum: layout.minimumMTU)
        }
        self.configuration = configuration
        ssrc = session.ssrc
        clock = RTPClock(offset: session.timestampOffset)
        nextSequenceNumber = session.initialSequenceNumber
        nextPictureID = session.initialPictureID & 0x7FFF
        absoluteSendTimeElement = layout.absoluteSendTimeElement
        videoOrientationElements = layout.videoOrientationElements
        payloadCapacity = layout.payloadCapacity
        videoOrientationCost = layout.videoOrientationCost
        header = RTPHeader(payloadType: configuration.payloadType, sequenceNumber: 0, timestamp: 0, ssrc: session.ssrc)
        header.extensionElements.reserveCapacity(2)
    }

    /// The smallest `mtu` that carries one payload byte with `configuration`'s extensions and
    /// SRTP overhead.
    public static func minimumMTU(for configuration: Configuration) throws(VP8PayloaderError) -> Int {
        try Layout(configuration).minimumMTU
    }

    /// A batch whose slots fit this payloader's packets, with `tailroom` bytes after each for an
    /// SRTP trailer written in place.
    public func makeBatch(tailroom: Int = 0, initialSlotCount: Int = 8) -> RTPPacketBatch {
        RTPPacketBatch(slotCapacity: configuration.mtu, tailroom: tailroom, initialSlotCount: initialSlotCount)
    }

    /// Packetizes `frame` into `batch`, replacing its previous contents.
    public mutating func packetize(_ frame: EncodedFrame, into batch: RTPPacketBatch) throws(VP8PayloaderError) {
        try frame.data.withUnsafeBytes { data in
            Result { () throws(VP8PayloaderError) in
                try packetize(
                    data, isKeyframe: frame.isKeyframe, isDroppable: frame.isDroppable,
                    timestampNs: frame.timestampNs, rotation: frame.rotation, into: batch)
            }
        }.get()
    }

    /// Packetizes one encoded frame into `batch`, replacing its previous contents.
    public mutating func packetize(
        _ frame: UnsafeRawBufferPointer, isKeyframe: Bool, isDroppable: Bool, timestampNs: Int64,
        rotation: VideoRotation, into batch: RTPPacketBatch
    ) throws(VP8PayloaderError) {
        guard !frame.isEmpty else { throw .emptyFrame }
        guard batch.slotCapacity >= configuration.mtu else {
            throw .batchSlotTooSmall(slotCapacity: batch.slotCapacity, mtu: configuration.mtu)
        }
        let sendsOrientation = isKeyframe || rotation != lastRotation || rotation != .deg0
        let orientationElement = sendsOrientation && !videoOrientationElements.isEmpty
            ? videoOrientationElements[rotation.degrees / 90] : nil
        lastRotation = rotation

        let split = BalancedPayloadSplit(
            payloadSize: frame.count, capacity: payloadCapacity,
            lastPacketReduction: orientationElement == nil ? 0 : videoOrientationCost)
        let descriptor = VP8PayloadDescriptor(
            isNonReference: isDroppable, isStartOfPartition: true, pictureID: .long(nextPictureID))
        header.timestamp = clock.rtpTimestamp(forNs: timestampNs)
        batch.reset(packetCount: split.packetCount)

        var frameOffset = 0
        for index in 0..<split.packetCount {
            let isLast = index == split.packetCount - 1
            header.sequenceNumber = nextSequenceNumber
            header.marker = isLast
            header.extensionElements.removeAll(keepingCapacity: true)
            if let absoluteSendTimeElement { header.extensionElements.append(absoluteSendTimeElement) }
            if isLast, let orientationElement { header.extensionElements.append(orientationElement) }
            var packetDescriptor = descriptor
            packetDescriptor.isStartOfPartition = index == 0

            let size = split.size(ofPacket: index)
            let chunk = UnsafeRawBufferPointer(rebasing: frame[frameOffset..<frameOffset + size])
            let length = writePacket(header: header, descriptor: packetDescriptor, payload: chunk, into: batch.nextSlot())
            let absoluteSendTimeOffset = configuration.absoluteSendTimeExtensionID.flatMap { header.byteOffset(ofExtensionData: $0) }
            batch.append(length: length, absoluteSendTimeOffset: absoluteSendTimeOffset)
            frameOffset += size
            nextSequenceNumber &+= 1
        }
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
    }

    /// Writes one packet into its slot and returns its length. The layout checked in init makes
    /// every packet fit its slot, so running out of room would be a bug here, not bad input.
    private func writePacket(
        header: RTPHeader, descriptor: VP8PayloadDescriptor, payload: UnsafeRawBufferPointer,
        into slot: UnsafeMutableRawBufferPointer
    ) -> Int {
        do throws(WireFormatError) {
            var writer = try ByteWriter(
                slot, size: header.serializedSize + descriptor.serializedSize + payload.count, structure: "RTP packet")
            try writer.write(header)
            try writer.write(descriptor)
            writer.write(payload)
            return writer.offset
        } catch {
            preconditionFailure("VP8 packet layout exceeded its slot: \(error)")
        }
    }

    /// Packet sizes that follow from a configuration, computed from the wire types themselves.
    private struct Layout {
        let absoluteSendTimeElement: RTPHeaderExtensionElement?
        let videoOrientationElements: [RTPHeaderExtensionElement]
        let payloadCapacity: Int
        let videoOrientationCost: Int
        let minimumMTU: Int

        init(_ configuration: Configuration) throws(VP8PayloaderError) {
            guard configuration.srtpOverhead >= 0 else { throw .negativeSRTPOverhead(configuration.srtpOverhead) }
            let ids = [configuration.absoluteSendTimeExtensionID, configuration.videoOrientationExtensionID].compactMap { $0 }
            for id in ids where !RTPHeaderExtensionElement.validIDs.contains(id) { throw .invalidExtensionID(id) }
            if ids.count == 2, ids[0] == ids[1] { throw .duplicateExtensionID(ids[0]) }

            do throws(WireFormatError) {
                absoluteSendTimeElement = try configuration.absoluteSendTimeExtensionID.map {
                    id throws(WireFormatError) in try AbsoluteSendTime(value: 0).element(id: id)
                }
                videoOrientationElements = try configuration.videoOrientationExtensionID.map { id throws(WireFormatError) in
                    try VideoRotation.allCases.map { rotation throws(WireFormatError) in
                        try VideoOrientation(rotation: rotation).element(id: id)
                    }
                } ?? []
            } catch {
                preconditionFailure("extension IDs were validated above: \(error)")
            }
            var header = RTPHeader(payloadType: configuration.payloadType, sequenceNumber: 0, timestamp: 0, ssrc: 0)
            if let absoluteSendTimeElement { header.extensionElements.append(absoluteSendTimeElement) }
            let baseHeaderSize = header.serializedSize
            if let element = videoOrientationElements.first { header.extensionElements.append(element) }
            videoOrientationCost = header.serializedSize - baseHeaderSize
            let descriptorSize = VP8PayloadDescriptor(isStartOfPartition: true, pictureID: .long(0)).serializedSize
            let overhead = baseHeaderSize + descriptorSize + configuration.srtpOverhead
            payloadCapacity = configuration.mtu - overhead
            minimumMTU = overhead + videoOrientationCost + 1
        }
    }
}
