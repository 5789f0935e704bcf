/// The MID header extension (RFC 8843 §15, RFC 9143 §15, `urn:ietf:params:rtp-hdrext:sdes:mid`):
/// the `a=mid` of the m= section a packet belongs to, so that a receiver of a BUNDLE
/// transport routes packets whose SSRC it has not learnt yet (RFC 9143 §9.2). An SDES item in a
/// header extension (RFC 7941 §4).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   |  len  |      MID (len + 1 ASCII bytes, no terminator) ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The MID is an SDP `identification-tag`, a `token` (RFC 5888 §4, RFC 8866 §9), 1 to 16
/// characters in the one-byte form (RFC 8285 §4.2).
public struct MediaIdentification: RTPHeaderExtensionData, Hashable, Sendable {
    public let mid: String

    /// nil unless `mid` is 1 to 16 token characters.
    public init?(_ mid: String) {
        guard SDESItemText.isValid(mid, allowed: Self.isTokenCharacter) else { return nil }
        self.mid = mid
    }

    public var serializedSize: Int { mid.utf8.count }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        mid = try SDESItemText.parse(bytes, structure: "mid extension", syntax: "SDP token characters", allowed: Self.isTokenCharacter)
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        try SDESItemText.serialize(mid, into: buffer, structure: "mid extension")
    }

    /// RFC 8866 §9: `token-char = ALPHA / DIGIT / "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" /
    /// "-" / "." / "^" / "_" / "`" / "{" / "|" / "}" / "~"`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"),
            UInt8(ascii: "."), UInt8(ascii: "^")...UInt8(ascii: "`"), UInt8(ascii: "{")...UInt8(ascii: "~"):
            true
        default:
            SDESItemText.isAlphanumeric(byte)
        }
    }
}
