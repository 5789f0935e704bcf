import RTP

/// A full intra request, FIR (RFC 5104 §4.3.1): PSFB FMT 4, a request for a keyframe that names
/// each media sender in its FCI, with a sequence number so a repeated request is not served twice.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=4  |   PT=206      |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             SSRC of media source (unused, 0)                  |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                              SSRC                             |  one or more
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | Seq nr.       |    Reserved (0)                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The requester increases the sequence number for each new request; the reserved bytes are
/// written as zero and ignored on reading.
public struct RTCPFullIntraRequest: WireFormat, Equatable, Sendable {
    public static let format: UInt8 = 4

    /// One FCI entry: the media sender asked for a keyframe.
    public struct Entry: Equatable, Sendable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    /// RFC 5104 says 0; the entries name the media.
    public var mediaSSRC: UInt32
    /// At least one; an empty list is refused when serialising.
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public var serializedSize: Int { RTCPFeedbackHeader.size + 8 * entries.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        guard !entries.isEmpty else { throw .invalid(structure: "RTCP FIR", reason: "no entry; at least one is required") }
        var writer = try RTCPFeedbackHeader.writer(
            into: buffer, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, packetSize: serializedSize,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, structure: "RTCP FIR")
        for entry in entries {
            writer.write(entry.ssrc)
            writer.write(entry.sequenceNumber)
            writer.writeZeros(3)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPFeedbackHeader(
            parsing: bytes, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, structure: "RTCP FIR")
        guard !header.fci.isEmpty, header.fci.count % 8 == 0 else {
            throw .invalid(structure: "RTCP FIR", reason: "\(header.fci.count) FCI bytes, expected a positive multiple of 8")
        }
        var reader = ByteReader(header.fci, structure: "RTCP FIR")
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        entries = []
        entries.reserveCapacity(header.fci.count / 8)
        while reader.remaining > 0 {
            entries.append(Entry(ssrc: try reader.readUInt32(), sequenceNumber: try reader.readUInt8()))
            try reader.skip(3)
        }
    }
}
