/// The absolute capture time header extension (webrtc.org, `rtp-hdrext/abs-capture-time`): when
/// the frame in the packet was captured, as a 64-bit NTP timestamp (Q32.32 seconds since 1900)
/// on the capture system's clock, and optionally that clock's estimated offset from the sender's
/// own NTP clock (signed Q32.32 seconds), which a receiver adds to bring the time onto its clock.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | len=15|     absolute capture timestamp (bit 0-23)     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             absolute capture timestamp (bit 24-55)            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... (56-63)  |   estimated capture clock offset (bit 0-23)   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           estimated capture clock offset (bit 24-55)          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... (56-63)  |
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// Without the offset the element is 8 data bytes (len = 7). The value here is the data only:
/// `init(parsing:)` reads 8 or 16 bytes, `serialize(into:)` writes them, `element(id:)` wraps
/// them in an RFC 8285 one-byte element, on the stack.
public struct AbsoluteCaptureTime: RTPHeaderExtensionData, Equatable, Sendable {
    public static let timestampOnlyCount = 8
    public static let withOffsetCount = 16

    /// NTP time of capture, Q32.32.
    public var captureTimestamp: UInt64
    /// The capture clock's offset from the sender's NTP clock, Q32.32; nil leaves it out.
    public var estimatedCaptureClockOffset: Int64?

    public init(captureTimestamp: UInt64, estimatedCaptureClockOffset: Int64? = nil) {
        self.captureTimestamp = captureTimestamp
        self.estimatedCaptureClockOffset = estimatedCaptureClockOffset
    }

    public var serializedSize: Int { estimatedCaptureClockOffset == nil ? Self.timestampOnlyCount : Self.withOffsetCount }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        guard bytes.count == Self.timestampOnlyCount || bytes.count == Self.withOffsetCount else {
            throw .invalid(structure: "abs-capture-time extension", reason: "\(bytes.count) data bytes, expected 8 or 16")
        }
        var reader = ByteReader(bytes, structure: "abs-capture-time extension")
        captureTimestamp = UInt64(try reader.readUInt32()) << 32 | UInt64(try reader.readUInt32())
        estimatedCaptureClockOffset = reader.remaining == 0
            ? nil : Int64(bitPattern: UInt64(try reader.readUInt32()) << 32 | UInt64(try reader.readUInt32()))
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "abs-capture-time extension")
        writer.write(captureTimestamp)
        if let estimatedCaptureClockOffset { writer.write(UInt64(bitPattern: estimatedCaptureClockOffset)) }
        return writer.offset
    }
}
