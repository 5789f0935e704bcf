import RTP

/// Reassembles VP8 frames from RTP packets in order (RFC 7741 §4.5), checking what the
/// payloader promises: each frame starts with S = 1 and PID = 0, ends at the marker bit, keeps
/// one timestamp and PictureID, sequence numbers run on without gaps (modulo 2¹⁶), and
/// PictureIDs grow by one per frame (modulo 2¹⁵).
///
/// Meant for tests and loopback checks: it keeps no jitter buffer and rejects rather than
/// repairs.
public struct VP8Depacketizer {
    public struct Frame: Equatable, Sendable {
        public var data: [UInt8]
        public var timestamp: UInt32
        public var pictureID: UInt16?
        public var isNonReference: Bool
        public var packetCount: Int
        /// The CVO value of the last packet, when a video orientation ID was given and it was sent.
        public var videoOrientation: VideoOrientation?
    }

    public let videoOrientationExtensionID: UInt8?
    private var expectedSequenceNumber: UInt16?
    private var lastPictureID: UInt16?
    private var partial: Frame?

    public init(videoOrientationExtensionID: UInt8? = nil) {
        self.videoOrientationExtensionID = videoOrientationExtensionID
    }

    /// Adds one packet; returns the frame that its marker bit completes.
    public mutating func push(_ packet: [UInt8]) throws(VP8DepacketizerError) -> Frame? {
        try packet.withUnsafeBytes { raw in
            Result { () throws(VP8DepacketizerError) -> Frame? in try push(raw) }
        }.get()
    }

    public mutating func push(_ bytes: UnsafeRawBufferPointer) throws(VP8DepacketizerError) -> Frame? {
        let packet: RTPPacket
        let descriptor: VP8PayloadDescriptor
        do throws(WireFormatError) {
            packet = try RTPPacket(parsing: bytes)
            descriptor = try VP8PayloadDescriptor(parsing: packet.payload)
        } catch {
            throw .malformed(error)
        }
        let header = packet.header
        if let expected = expectedSequenceNumber, expected != header.sequenceNumber {
            throw .sequenceGap(expected: expected, received: header.sequenceNumber)
        }
        expectedSequenceNumber = header.sequenceNumber &+ 1

        let startsFrame = descriptor.isStartOfPartition && descriptor.partitionIndex == 0
        let pictureID = descriptor.pictureID?.value
        var frame: Frame
        if let partial {
            guard !startsFrame else { throw .unexpectedStartOfFrame(sequenceNumber: header.sequenceNumber) }
            guard partial.timestamp == header.timestamp else {
                throw .timestampChangedWithinFrame(expected: partial.timestamp, received: header.timestamp)
            }
            guard partial.pictureID == pictureID else {
                throw .pictureIDChangedWithinFrame(expected: partial.pictureID, received: pictureID)
            }
            frame = partial
        } else {
            guard startsFrame else { throw .missingStartOfFrame(sequenceNumber: header.sequenceNumber) }
            if let lastPictureID, pictureID != (lastPictureID &+ 1) & 0x7FFF {
                throw .pictureIDGap(expected: (lastPictureID &+ 1) & 0x7FFF, received: pictureID)
            }
            frame = Frame(
                data: [], timestamp: header.timestamp, pictureID: pictureID,
                isNonReference: descriptor.isNonReference, packetCount: 0)
        }
        frame.data.append(contentsOf: packet.payload[descriptor.serializedSize...])
        frame.packetCount += 1
        guard header.marker else {
            partial = frame
            return nil
        }
        if let id = videoOrientationExtensionID,
            let element = header.extensionElements.first(where: { $0.id == id })
        {
            do throws(WireFormatError) {
                frame.videoOrientation = try VideoOrientation(element: element)
            } catch {
                throw .malformed(error)
            }
        }
        partial = nil
        lastPictureID = pictureID
        return frame
    }
}
