import RTP

/// A generic NACK (RFC 4585 §6.2.1): RTPFB FMT 1, the receiver naming RTP packets it lost.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |   PT=205      |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            PID                |             BLP               |  one or more
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// PID is a lost packet's sequence number; bit i of BLP (least significant first) says packet
/// PID + i + 1 is lost too, so one entry names up to 17 packets. Sequence numbers wrap at 2¹⁶.
public struct RTCPGenericNACK: WireFormat, Equatable, Sendable {
    public static let format: UInt8 = 1

    /// One FCI entry: a lost packet and which of the 16 after it are lost too.
    public struct Entry: Equatable, Sendable {
        /// PID.
        public var packetID: UInt16
        /// BLP: bit i set means packet `packetID + i + 1` is lost.
        public var lostPacketBitmask: UInt16

        public init(packetID: UInt16, lostPacketBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostPacketBitmask = lostPacketBitmask
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// At least one; an empty list is refused when serialising.
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// The fewest entries that name exactly `lostSequenceNumbers` (duplicates ignored).
    ///
    /// The numbers are ordered around the 16-bit circle starting after its widest gap, so that a
    /// list straddling the wrap (65534, 65535, 0) stays one run; each entry then takes the first
    /// number not yet named and the ones in the 16 after it.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: some Sequence<UInt16>) {
        let sorted = Set(lostSequenceNumbers).sorted()
        var start = 0
        if let first = sorted.first, let last = sorted.last {
            var widestGap = Int(first) + 65_536 - Int(last)
            for index in sorted.indices.dropFirst() where Int(sorted[index]) - Int(sorted[index - 1]) > widestGap {
                widestGap = Int(sorted[index]) - Int(sorted[index - 1])
                start = index
            }
        }
        var entries: [Entry] = []
        for sequenceNumber in sorted[start...] + sorted[..<start] {
            let distance = sequenceNumber &- (entries.last?.packetID ?? sequenceNumber)
            if !entries.isEmpty, (1...16).contains(distance) {
                entries[entries.count - 1].lostPacketBitmask |= 1 << (distance - 1)
            } else {
                entries.append(Entry(packetID: sequenceNumber))
            }
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, entries: entries)
    }

    /// Every sequence number the entries name, entry by entry, each in ascending order modulo
    /// 2¹⁶; a number named by two entries appears twice.
    public var lostSequenceNumbers: [UInt16] {
        var numbers: [UInt16] = []
        for entry in entries {
            numbers.append(entry.packetID)
            for bit in 0..<16 where entry.lostPacketBitmask & 1 << bit != 0 {
                numbers.append(entry.packetID &+ UInt16(bit + 1))
            }
        }
        return numbers
    }

    public var serializedSize: Int { RTCPFeedbackHeader.size + 4 * entries.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        guard !entries.isEmpty else { throw .invalid(structure: "RTCP NACK", reason: "no entry; at least one is required") }
        var writer = try RTCPFeedbackHeader.writer(
            into: buffer, packetType: RTCPPacketType.transportLayerFeedback, format: Self.format, packetSize: serializedSize,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, structure: "RTCP NACK")
        for entry in entries {
            writer.write(entry.packetID)
            writer.write(entry.lostPacketBitmask)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPFeedbackHeader(
            parsing: bytes, packetType: RTCPPacketType.transportLayerFeedback, format: Self.format, structure: "RTCP NACK")
        guard !header.fci.isEmpty, header.fci.count % 4 == 0 else {
            throw .invalid(structure: "RTCP NACK", reason: "\(header.fci.count) FCI bytes, expected a positive multiple of 4")
        }
        var reader = ByteReader(header.fci, structure: "RTCP NACK")
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        entries = []
        entries.reserveCapacity(header.fci.count / 4)
        while reader.remaining > 0 {
            entries.append(Entry(packetID: try reader.readUInt16(), lostPacketBitmask: try reader.readUInt16()))
        }
    }
}
