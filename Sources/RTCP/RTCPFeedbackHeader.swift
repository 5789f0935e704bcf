import RTP

extension RTCPPacketType {
    /// APP, application-defined (RFC 3550 §6.7).
    public static let applicationDefined: UInt8 = 204
    /// RTPFB, transport-layer feedback (RFC 4585 §6.1): NACK, transport-wide congestion control.
    public static let transportLayerFeedback: UInt8 = 205
    /// PSFB, payload-specific feedback (RFC 4585 §6.1): PLI, FIR, REMB.
    public static let payloadSpecificFeedback: UInt8 = 206
}

extension RTCPCommonHeader {
    /// The largest packet the 16-bit length field describes: 65536 words.
    static let maximumPacketSize = 4 * 65_536

    /// A writer for a packet of `packetSize` bytes, a multiple of 4, with its common header
    /// written; `isPadded` sets P for a packet whose last byte counts its padding.
    static func writer(
        into buffer: UnsafeMutableRawBufferPointer, count: Int, packetType: UInt8, packetSize: Int, isPadded: Bool = false,
        structure: String
    ) throws(WireFormatError) -> ByteWriter {
        guard packetSize <= maximumPacketSize else {
            throw .invalid(structure: structure, reason: "\(packetSize) bytes exceed the \(maximumPacketSize) the length field describes")
        }
        var writer = try ByteWriter(buffer, size: packetSize, structure: structure)
        write(count: count, packetType: packetType, packetSize: packetSize, to: &writer)
        if isPadded { writer.buffer[0] |= 0x20 }
        return writer
    }
}

/// The start of every RTCP feedback message (RFC 4585 §6.1): the common header with the message
/// type, FMT, in place of the count, then who sends the feedback and which media it is about.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|   FMT   |       PT      |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :            Feedback Control Information (FCI)                 :
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// PT 205 (RTPFB) carries transport-layer messages and PT 206 (PSFB) payload-specific ones; FMT
/// tells the messages of one PT apart.
struct RTCPFeedbackHeader {
    static let size = 12

    let senderSSRC: UInt32
    let mediaSSRC: UInt32
    /// The feedback control information, without padding.
    let fci: UnsafeRawBufferPointer

    /// Reads the message at the start of `bytes` and checks its PT and FMT.
    init(parsing bytes: UnsafeRawBufferPointer, packetType: UInt8, format: UInt8, structure: String) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: packetType, structure: structure)
        guard header.count == Int(format) else {
            throw .invalid(structure: structure, reason: "FMT \(header.count), expected \(format)")
        }
        var reader = ByteReader(header.body, structure: structure)
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
        fci = try reader.readBytes(reader.remaining)
    }

    /// A writer for a message of `packetSize` bytes with the header written, the FCI to follow.
    static func writer(
        into buffer: UnsafeMutableRawBufferPointer, packetType: UInt8, format: UInt8, packetSize: Int, isPadded: Bool = false,
        senderSSRC: UInt32, mediaSSRC: UInt32, structure: String
    ) throws(WireFormatError) -> ByteWriter {
        var writer = try RTCPCommonHeader.writer(
            into: buffer, count: Int(format), packetType: packetType, packetSize: packetSize, isPadded: isPadded,
            structure: structure)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        return writer
    }
}
