/// The headers at the start of an ULPFEC packet's payload (RFC 5109 §7.3, §7.4): the FEC header,
/// which carries the XOR of the protected packets' RTP header fields, and the header of level 0
/// (the one level a video sender uses, as libwebrtc does), whose mask names the protected
/// packets. After them comes the level's payload: the XOR of the protected packets' bytes past
/// their 12-byte fixed header, each zero-padded to the protection length.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |E|L|P|X|  CC   |M| PT recovery |            SN base            |  FEC header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          TS recovery                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |        length recovery        |       Protection Length       |  level 0 header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             mask              |      mask cont. (L = 1)       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Mask bit i (from the most significant) protects the packet numbered SN base + i: 16 packets
/// with L = 0, 48 with L = 1. E is 0 (reserved for a future extension).
public struct ULPFECHeader: WireFormat, Equatable, Sendable {
    public static let fecHeaderSize = 10
    /// The most packets one FEC packet protects (L = 1).
    public static let maximumProtectedPackets = 48
    /// The headers with a long mask: what a packet at the MTU must leave room for.
    public static let maximumSize = fecHeaderSize + 8

    public var paddingRecovery: Bool
    public var extensionRecovery: Bool
    /// 4 bits.
    public var csrcCountRecovery: UInt8
    public var markerRecovery: Bool
    /// 7 bits.
    public var payloadTypeRecovery: UInt8
    public var sequenceNumberBase: UInt16
    public var timestampRecovery: UInt32
    public var lengthRecovery: UInt16
    /// The bytes of level-0 payload after the headers.
    public var protectionLength: UInt16
    /// Bit i from the top of the 48 bits protects SN base + i.
    public var mask: UInt64
    /// L: the 48-bit mask on the wire (else 16 bits, and the low 32 of `mask` must be 0).
    public var isLongMask: Bool

    public init(
        paddingRecovery: Bool = false, extensionRecovery: Bool = false, csrcCountRecovery: UInt8 = 0,
        markerRecovery: Bool = false, payloadTypeRecovery: UInt8 = 0, sequenceNumberBase: UInt16, timestampRecovery: UInt32 = 0,
        lengthRecovery: UInt16 = 0, protectionLength: UInt16 = 0, mask: UInt64, isLongMask: Bool
    ) {
        self.paddingRecovery = paddingRecovery
        self.extensionRecovery = extensionRecovery
        self.csrcCountRecovery = csrcCountRecovery
        self.markerRecovery = markerRecovery
        self.payloadTypeRecovery = payloadTypeRecovery
        self.sequenceNumberBase = sequenceNumberBase
        self.timestampRecovery = timestampRecovery
        self.lengthRecovery = lengthRecovery
        self.protectionLength = protectionLength
        self.mask = mask
        self.isLongMask = isLongMask
    }

    /// The sequence numbers the mask protects, in order.
    public var protectedSequenceNumbers: [UInt16] {
        (0..<(isLongMask ? 48 : 16)).filter { mask & (1 << (47 - $0)) != 0 }.map { sequenceNumberBase &+ UInt16($0) }
    }

    public var serializedSize: Int { Self.fecHeaderSize + (isLongMask ? 8 : 4) }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: "ULPFEC header")
        let first = try reader.readUInt8()
        guard first & 0x80 == 0 else { throw .invalid(structure: "ULPFEC header", reason: "E is set (reserved)") }
        isLongMask = first & 0x40 != 0
        paddingRecovery = first & 0x20 != 0
        extensionRecovery = first & 0x10 != 0
        csrcCountRecovery = first & 0x0F
        let second = try reader.readUInt8()
        markerRecovery = second & 0x80 != 0
        payloadTypeRecovery = second & 0x7F
        sequenceNumberBase = try reader.readUInt16()
        timestampRecovery = try reader.readUInt32()
        lengthRecovery = try reader.readUInt16()
        protectionLength = try reader.readUInt16()
        var mask = UInt64(try reader.readUInt16()) << 32
        if isLongMask { mask |= UInt64(try reader.readUInt32()) }
        self.mask = mask
        guard Int(protectionLength) <= reader.remaining else {
            throw .truncated(structure: "ULPFEC level 0 payload", needed: reader.offset + Int(protectionLength), available: bytes.count)
        }
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        guard csrcCountRecovery < 16, payloadTypeRecovery < 128, mask < 1 << 48, isLongMask || mask & 0xFFFF_FFFF == 0 else {
            throw .invalid(structure: "ULPFEC header", reason: "a field does not fit its bits, or the mask its length")
        }
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "ULPFEC header")
        writer.write(
            (isLongMask ? 0x40 : 0) | (paddingRecovery ? 0x20 : 0) | (extensionRecovery ? 0x10 : 0) | csrcCountRecovery as UInt8)
        writer.write((markerRecovery ? 0x80 : 0) | payloadTypeRecovery as UInt8)
        writer.write(sequenceNumberBase)
        writer.write(timestampRecovery)
        writer.write(lengthRecovery)
        writer.write(protectionLength)
        writer.write(UInt16(truncatingIfNeeded: mask >> 32))
        if isLongMask { writer.write(UInt32(truncatingIfNeeded: mask)) }
        return writer.offset
    }
}
