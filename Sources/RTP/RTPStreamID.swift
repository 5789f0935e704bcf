/// The RtpStreamId header extension (RFC 8852 §3.1, `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id`):
/// the RID (RFC 8851) of the encoding a media packet belongs to, so that a receiver of simulcast
/// (an SFU) can tell the encodings apart before it has seen any SSRC in the SDP.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   |  len  |      RID (len + 1 ASCII bytes, no terminator) ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The RID follows RFC 8851 §10's `rid-id = 1*(alpha-numeric / "-" / "_")`. RFC 8852 lets an
/// SDES item reach 255 bytes, but an element of the one-byte form carries at most 16 (RFC 8285
/// §4.2), so a RID is 1 to 16 characters here.
public struct RTPStreamID: RTPHeaderExtensionData, Hashable, Sendable {
    public let rid: String

    /// nil unless `rid` is 1 to 16 characters of RFC 8851's rid-syntax.
    public init?(_ rid: String) {
        guard SDESItemText.isValid(rid, allowed: Self.isRIDCharacter) else { return nil }
        self.rid = rid
    }

    public var serializedSize: Int { rid.utf8.count }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        rid = try SDESItemText.parse(
            bytes, structure: "rtp-stream-id extension", syntax: "A-Z a-z 0-9 - _", allowed: Self.isRIDCharacter)
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        try SDESItemText.serialize(rid, into: buffer, structure: "rtp-stream-id extension")
    }

    /// RFC 8851 §10: alpha-numeric, "-" or "_".
    static func isRIDCharacter(_ byte: UInt8) -> Bool {
        SDESItemText.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}

/// The RepairedRtpStreamId header extension (RFC 8852 §3.2,
/// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id`): on a redundancy stream's packets
/// (RTX, RFC 4588), the RID of the media stream they repair. The data is that RID, as in
/// `RTPStreamID`.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   |  len  |  repaired RID (len + 1 ASCII bytes) ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RepairedRTPStreamID: RTPHeaderExtensionData, Hashable, Sendable {
    /// The media stream's RID.
    public let repaired: RTPStreamID

    public init(repairing repaired: RTPStreamID) {
        self.repaired = repaired
    }

    public var serializedSize: Int { repaired.serializedSize }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        repaired = try RTPStreamID(parsing: bytes)
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        try repaired.serialize(into: buffer)
    }
}
