import RTP

/// The first word of every RTCP packet (RFC 3550 §6.4.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  count  |      PT       |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// `length` is the packet's size in 32-bit words minus one; with P set, the packet's last byte
/// counts the padding bytes at its end.
struct RTCPCommonHeader {
    static let size = 4
    static let maximumCount = 31

    let count: Int
    let packetType: UInt8
    /// The whole packet as `length` gives it, header and padding included.
    let packetSize: Int
    /// What follows the header, without padding.
    let body: UnsafeRawBufferPointer

    /// Reads the packet at the start of `bytes`, which may hold more packets after it.
    init(parsing bytes: UnsafeRawBufferPointer, structure: String) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: structure)
        let first = try reader.readUInt8()
        guard first >> 6 == 2 else {
            throw .invalid(structure: structure, reason: "version \(first >> 6), expected 2")
        }
        count = Int(first & 0x1F)
        packetType = try reader.readUInt8()
        packetSize = 4 * (Int(try reader.readUInt16()) + 1)
        var body = try reader.readBytes(packetSize - Self.size)
        if first & 0x20 != 0 {
            let padding = Int(body.last ?? 0)
            guard padding > 0, padding <= body.count else {
                throw .invalid(structure: structure, reason: "padding count \(padding) does not fit a \(body.count)-byte body")
            }
            body = UnsafeRawBufferPointer(rebasing: body[..<(body.count - padding)])
        }
        self.body = body
    }

    /// Like `init(parsing:structure:)`, and checks the packet type.
    init(parsing bytes: UnsafeRawBufferPointer, packetType expected: UInt8, structure: String) throws(WireFormatError) {
        try self.init(parsing: bytes, structure: structure)
        guard packetType == expected else {
            throw .invalid(structure: structure, reason: "packet type \(packetType), expected \(expected)")
        }
    }

    /// Writes the header of an unpadded packet of `packetSize` bytes, a multiple of 4.
    static func write(count: Int, packetType: UInt8, packetSize: Int, to writer: inout ByteWriter) {
        writer.write(2 << 6 | UInt8(count & 0x1F))
        writer.write(packetType)
        writer.write(UInt16(packetSize / 4 - 1))
    }
}

/// RTCP packet types (RFC 3550 §12.1).
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let bye: UInt8 = 203
}
