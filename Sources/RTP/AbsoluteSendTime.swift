/// The abs-send-time header extension (webrtc.org, `rtp-hdrext/abs-send-time`): 3 data bytes,
/// the send time in seconds as 6.18 fixed point, so it wraps every 64 s.
///
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  seconds  |            fraction (18 bits)     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The value is only known when the packet leaves, after packetizing and pacing, so the sender
/// patches it into an already serialised packet with `patch(_:atByteOffset:)`.
public struct AbsoluteSendTime: Equatable, Sendable {
    public static let dataCount = 3

    /// The 24-bit wire value.
    public let value: UInt32

    public init(value: UInt32) {
        self.value = value & 0xFF_FFFF
    }

    /// `((ns << 18) / 10⁹) & 0xFFFFFF`, formed at 128-bit width so no shift overflows.
    public init(timeNs: Int64) {
        self.init(value: UInt32(truncatingIfNeeded: scaleNanoseconds(timeNs, by: 1 << 18)))
    }

    public init(element: RTPHeaderExtensionElement) throws(WireFormatError) {
        guard element.count == Self.dataCount else {
            throw .invalid(structure: "abs-send-time extension", reason: "\(element.count) data bytes, expected 3")
        }
        self.init(value: element.withUnsafeData { UInt32($0[0]) << 16 | UInt32($0[1]) << 8 | UInt32($0[2]) })
    }

    public func element(id: UInt8) throws(WireFormatError) -> RTPHeaderExtensionElement {
        var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { patch($0, atByteOffset: 0) }
        return try RTPHeaderExtensionElement(id: id, bytesOf: bytes)
    }

    /// Writes the value over the 3 data bytes at `offset` of a serialised packet, for example the
    /// offset `RTPPacketBatch.absoluteSendTimeOffset(at:)` reports.
    public func patch(_ packet: UnsafeMutableRawBufferPointer, atByteOffset offset: Int) {
        precondition(offset >= 0 && offset + Self.dataCount <= packet.count, "abs-send-time offset outside the packet")
        packet[offset] = UInt8(truncatingIfNeeded: value >> 16)
        packet[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        packet[offset + 2] = UInt8(truncatingIfNeeded: value)
    }
}
