/// The random values that start an RTP stream: SSRC (RFC 3550 §8.1), first sequence number and
/// timestamp offset (§5.1), and the first VP8 PictureID and TL0PICIDX (RFC 7741 §4.2).
///
/// The first sequence number is kept below 2¹⁵, so that the 16-bit counter cannot wrap before
/// at least 32768 packets have been sent and SRTP's rollover counter (RFC 3711 §3.3.1) never
/// has to guess at an early wrap.
public struct RTPSessionParameters: Sendable, Equatable {
    public static let initialSequenceNumberRange: Range<UInt16> = 0..<(1 << 15)
    public static let pictureIDRange: Range<UInt16> = 0..<(1 << 15)

    public var ssrc: UInt32
    public var initialSequenceNumber: UInt16
    public var timestampOffset: UInt32
    /// 15-bit.
    public var initialPictureID: UInt16
    /// The first base-layer frame's TL0PICIDX, with temporal layers.
    public var initialTL0PictureIndex: UInt8

    /// Fixed values, for deterministic tests and for resuming a stream.
    public init(
        ssrc: UInt32, initialSequenceNumber: UInt16, timestampOffset: UInt32, initialPictureID: UInt16,
        initialTL0PictureIndex: UInt8 = 0
    ) {
        self.ssrc = ssrc
        self.initialSequenceNumber = initialSequenceNumber
        self.timestampOffset = timestampOffset
        self.initialPictureID = initialPictureID & 0x7FFF
        self.initialTL0PictureIndex = initialTL0PictureIndex
    }

    /// Values from the system CSPRNG (getrandom on Linux), as RFC 3550 §8.1 asks for the SSRC.
    public static func random() -> RTPSessionParameters {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> RTPSessionParameters {
        RTPSessionParameters(
            ssrc: .random(in: .min ... .max, using: &generator),
            initialSequenceNumber: .random(in: initialSequenceNumberRange, using: &generator),
            timestampOffset: .random(in: .min ... .max, using: &generator),
            initialPictureID: .random(in: pictureIDRange, using: &generator),
            initialTL0PictureIndex: .random(in: .min ... .max, using: &generator))
    }
}
