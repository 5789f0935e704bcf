/// RTX retransmission packets (RFC 4588 §4): a lost packet resent on its own stream, so that the
/// receiver's statistics and jitter buffer keep the two apart.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP Header                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  Original RTP Packet Payload                  |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The header is the original's with the RTX SSRC, the RTX payload type (SDP `apt` maps it back)
/// and the RTX stream's own sequence number; timestamp, marker, CSRCs and the header extension
/// block (whatever its profile, copied as bytes) stay. The payload is the original sequence number (OSN) and then the original payload, its
/// padding removed.
public enum RTXPacket {
    /// Bytes the OSN adds: an original of `n` bytes without padding becomes `n + 2`, so a stream
    /// with RTX packetizes to 2 bytes under the path's MTU.
    public static let originalSequenceNumberSize = 2

    /// The size of the retransmission of `original`, a whole serialised RTP packet.
    public static func size(retransmitting original: UnsafeRawBufferPointer) throws(WireFormatError) -> Int {
        let layout = try PacketLayout(original)
        return layout.payloadEnd + originalSequenceNumberSize
    }

    /// Writes the retransmission of `original`, a whole serialised RTP packet, at the start of
    /// `buffer` and returns its length. Copies bytes only: nothing is allocated, so it can run
    /// per packet on the send path. Extensions patched at send time (abs-send-time, transport-wide
    /// sequence number) sit at the same offsets as in the original.
    public static func write(
        retransmitting original: UnsafeRawBufferPointer, ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(WireFormatError) -> Int {
        let layout = try PacketLayout(original)
        var writer = try ByteWriter(buffer, size: layout.payloadEnd + originalSequenceNumberSize, structure: "RTX packet")
        writer.write(original[0] & ~0x20)
        writer.write(original[1] & 0x80 | payloadType & 0x7F)
        writer.write(sequenceNumber)
        writer.write(UnsafeRawBufferPointer(rebasing: original[4..<8]))
        writer.write(ssrc)
        writer.write(UnsafeRawBufferPointer(rebasing: original[RTPHeader.fixedSize..<layout.headerSize]))
        writer.write(UnsafeRawBufferPointer(rebasing: original[2..<4]))
        writer.write(UnsafeRawBufferPointer(rebasing: original[layout.headerSize..<layout.payloadEnd]))
        return writer.offset
    }

    /// The original packet an RTX packet carries, under the media stream's `ssrc` and
    /// `payloadType`; for receivers and tests, not the send path.
    public static func original(
        ofRetransmission packet: UnsafeRawBufferPointer, ssrc: UInt32, payloadType: UInt8
    ) throws(WireFormatError) -> RTPPacket {
        var retransmission = try RTPPacket(parsing: packet)
        let payload = retransmission.payload
        guard payload.count >= originalSequenceNumberSize else {
            throw .truncated(structure: "RTX payload", needed: originalSequenceNumberSize, available: payload.count)
        }
        let originalSequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        retransmission.header.ssrc = ssrc
        retransmission.header.payloadType = payloadType
        retransmission.header.sequenceNumber = originalSequenceNumber
        retransmission.payload.removeFirst(originalSequenceNumberSize)
        retransmission.paddingCount = 0
        return retransmission
    }

    /// Where an RTP packet's header ends and its payload ends (padding excluded), read from
    /// the fixed header's counts without building an `RTPHeader`, which would allocate.
    private struct PacketLayout {
        let headerSize: Int
        let payloadEnd: Int

        init(_ packet: UnsafeRawBufferPointer) throws(WireFormatError) {
            var reader = ByteReader(packet, structure: "RTP packet")
            let first = try reader.readUInt8()
            guard first >> 6 == RTPHeader.version else {
                throw .invalid(structure: "RTP packet", reason: "version \(first >> 6), expected 2")
            }
            try reader.skip(RTPHeader.fixedSize - 1 + 4 * Int(first & 0x0F))
            if first & 0x10 != 0 {
                try reader.skip(2)
                try reader.skip(4 * Int(try reader.readUInt16()))
            }
            headerSize = reader.offset
            var payloadEnd = packet.count
            if first & 0x20 != 0 {
                // Indexed rather than `last`: the header read above guarantees a byte, and the
                // generic accessor allocates in unoptimised builds.
                let padding = Int(packet[packet.count - 1])
                guard padding > 0, padding <= payloadEnd - headerSize else {
                    throw .invalid(
                        structure: "RTP packet",
                        reason: "padding count \(padding) does not fit the \(payloadEnd - headerSize) bytes after the header")
                }
                payloadEnd -= padding
            }
            self.payloadEnd = payloadEnd
        }
    }
}
