import RTP

/// A receiver estimated maximum bitrate, REMB (draft-alvestrand-rmcat-remb-03 §2.2): PSFB FMT 15
/// (application layer feedback) tagged "REMB", the total bitrate the receiver estimates it can
/// take for the listed streams.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source (unused, 0)             |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   SSRC feedback                                               |  Num SSRC times
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The bitrate is mantissa × 2^exp bit/s: 18 bits of mantissa and a 6-bit exponent. Values are
/// kept as the wire has them, so parsed packets serialise back unchanged.
public struct RTCPReceiverEstimatedMaximumBitrate: WireFormat, Equatable, Sendable {
    public static let format: UInt8 = 15
    /// "REMB" in ASCII, the first FCI word, which tells REMB from other application layer feedback.
    public static let identifier: UInt32 = 0x5245_4D42
    /// The 8-bit Num SSRC field's limit.
    public static let maximumSSRCCount = 255

    public var senderSSRC: UInt32
    /// The draft says 0; the SSRC list names the streams.
    public var mediaSSRC: UInt32
    /// At most 255; more are not sent.
    public var ssrcs: [UInt32]
    /// 6 bits.
    public private(set) var exponent: UInt8
    /// 18 bits.
    public private(set) var mantissa: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrateBps: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.ssrcs = ssrcs
        (exponent, mantissa) = Self.exponentAndMantissa(of: bitrateBps)
    }

    /// mantissa × 2^exponent, saturated at `UInt64.max`, which a 6-bit exponent can exceed.
    ///
    /// Setting it picks the smallest exponent whose mantissa fits 18 bits, so any `UInt64` is
    /// representable; bits below the mantissa's are dropped, rounding down.
    public var bitrateBps: UInt64 {
        get {
            let wide = UInt64(mantissa)
            guard wide.leadingZeroBitCount >= exponent else { return .max }
            return wide << exponent
        }
        set {
            (exponent, mantissa) = Self.exponentAndMantissa(of: newValue)
        }
    }

    private static func exponentAndMantissa(of bitrateBps: UInt64) -> (UInt8, UInt32) {
        let exponent = max(0, UInt64.bitWidth - bitrateBps.leadingZeroBitCount - 18)
        return (UInt8(exponent), UInt32(bitrateBps >> exponent))
    }

    /// Whether a PSFB FMT 15 body (after the common header) carries the "REMB" identifier.
    static func isTagged(body: UnsafeRawBufferPointer) -> Bool {
        var reader = ByteReader(body, structure: "RTCP REMB")
        return (try? reader.skip(8)) != nil && (try? reader.readUInt32()) == identifier
    }

    private var ssrcCount: Int { min(ssrcs.count, Self.maximumSSRCCount) }

    public var serializedSize: Int { RTCPFeedbackHeader.size + 8 + 4 * ssrcCount }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try RTCPFeedbackHeader.writer(
            into: buffer, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, packetSize: serializedSize,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, structure: "RTCP REMB")
        writer.write(Self.identifier)
        writer.write(UInt8(ssrcCount))
        writer.writeUInt24(UInt32(exponent) << 18 | mantissa)
        for ssrc in ssrcs.prefix(ssrcCount) { writer.write(ssrc) }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPFeedbackHeader(
            parsing: bytes, packetType: RTCPPacketType.payloadSpecificFeedback, format: Self.format, structure: "RTCP REMB")
        var reader = ByteReader(header.fci, structure: "RTCP REMB")
        let identifier = try reader.readUInt32()
        guard identifier == Self.identifier else {
            throw .invalid(structure: "RTCP REMB", reason: "identifier 0x\(String(identifier, radix: 16)), expected \"REMB\"")
        }
        let count = Int(try reader.readUInt8())
        let bitrate = try reader.readUInt24()
        try reader.require(4 * count)
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        exponent = UInt8(bitrate >> 18)
        mantissa = bitrate & 0x3_FFFF
        ssrcs = []
        ssrcs.reserveCapacity(count)
        for _ in 0..<count { ssrcs.append(try reader.readUInt32()) }
    }
}
