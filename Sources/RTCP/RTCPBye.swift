import RTP

/// An RTCP goodbye, BYE (RFC 3550 §6.6).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           SSRC/CSRC                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                              ...                              :
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |     length    |               reason for leaving            ... (optional)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The reason is padded with zeros to a 32-bit word.
public struct RTCPBye: WireFormat, Equatable, Sendable {
    /// At most 31; more are not sent.
    public var ssrcs: [UInt32]
    /// UTF-8, at most 255 bytes.
    public var reason: String?

    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    private var ssrcCount: Int { min(ssrcs.count, RTCPCommonHeader.maximumCount) }

    public var serializedSize: Int {
        let reasonBytes = reason.map { (1 + $0.utf8.count + 3) / 4 * 4 } ?? 0
        return RTCPCommonHeader.size + 4 * ssrcCount + reasonBytes
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        if let reason, reason.utf8.count > 255 {
            throw .invalid(structure: "RTCP BYE", reason: "reason of \(reason.utf8.count) bytes, at most 255 fit")
        }
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP BYE")
        RTCPCommonHeader.write(count: ssrcCount, packetType: RTCPPacketType.bye, packetSize: serializedSize, to: &writer)
        for ssrc in ssrcs.prefix(ssrcCount) { writer.write(ssrc) }
        if let reason {
            writer.write(UInt8(reason.utf8.count))
            writer.write(utf8: reason)
            writer.padToWordBoundary()
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: RTCPPacketType.bye, structure: "RTCP BYE")
        var reader = ByteReader(header.body, structure: "RTCP BYE")
        try reader.require(4 * header.count)
        ssrcs = []
        for _ in 0..<header.count { ssrcs.append(try reader.readUInt32()) }
        reason = nil
        if reader.remaining > 0 {
            let length = Int(try reader.readUInt8())
            reason = String(decoding: try reader.readBytes(length), as: UTF8.self)
        }
    }
}
