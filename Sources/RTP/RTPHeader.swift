/// The RTP fixed header (RFC 3550 §5.1) with its CSRC list and an optional RFC 8285 one-byte
/// header extension block (§4.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0xBE    |    0xDE       |           length              |  (X = 1)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   |  len  |  data ...     |  0 (padding)  |  ID   |  len  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// `length` counts the 32-bit words of elements after the 0xBEDE word; the elements are padded
/// with zero bytes to fill them. X is set exactly when `extensionElements` is not empty.
///
/// Only the one-byte form is read: a block with any other profile, including the two-byte form
/// (RFC 8285 §4.3, 0x100X), is rejected with `WireFormatError.invalid`, since this sender never
/// negotiates it.
public struct RTPHeader: WireFormat, Equatable, Sendable {
    public static let version: UInt8 = 2
    public static let fixedSize = 12
    public static let oneByteExtensionProfile: UInt16 = 0xBEDE
    public static let maximumCSRCCount = 15

    public var hasPadding: Bool
    public var marker: Bool
    /// 7 bits; higher bits are not sent.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// At most 15; more are not sent.
    public var csrcs: [UInt32]
    public var extensionElements: [RTPHeaderExtensionElement]

    public init(
        hasPadding: Bool = false, marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16,
        timestamp: UInt32, ssrc: UInt32, csrcs: [UInt32] = [], extensionElements: [RTPHeaderExtensionElement] = []
    ) {
        self.hasPadding = hasPadding
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensionElements = extensionElements
    }

    private var csrcCount: Int { min(csrcs.count, Self.maximumCSRCCount) }

    // The loops below index the arrays directly: generic iteration allocates a coroutine frame
    // per call in unoptimised builds, and these run for every packet sent.

    /// Bytes of extension elements before padding to a 32-bit word.
    private var extensionElementBytes: Int {
        var total = 0
        for index in extensionElements.indices { total += extensionElements[index].serializedSize }
        return total
    }

    /// The whole extension block: the 0xBEDE word plus the padded elements; 0 when there are none.
    public var extensionBlockSize: Int {
        extensionElements.isEmpty ? 0 : 4 + (extensionElementBytes + 3) / 4 * 4
    }

    public var serializedSize: Int { Self.fixedSize + 4 * csrcCount + extensionBlockSize }

    /// Where the data of the first element with `id` starts in the serialised header, so that a
    /// value known only at send time can be patched in place.
    public func byteOffset(ofExtensionData id: UInt8) -> Int? {
        var offset = Self.fixedSize + 4 * csrcCount + 4
        for index in extensionElements.indices {
            if extensionElements[index].id == id { return offset + 1 }
            offset += extensionElements[index].serializedSize
        }
        return nil
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTP header")
        let hasExtension: UInt8 = extensionElements.isEmpty ? 0 : 0x10
        writer.write(Self.version << 6 | (hasPadding ? 0x20 : 0) | hasExtension | UInt8(csrcCount))
        writer.write((marker ? 0x80 : 0) | payloadType & 0x7F)
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
        for index in 0..<csrcCount { writer.write(csrcs[index]) }
        if !extensionElements.isEmpty {
            writer.write(Self.oneByteExtensionProfile)
            writer.write(UInt16((extensionBlockSize - 4) / 4))
            for index in extensionElements.indices { extensionElements[index].write(to: &writer) }
            writer.padToWordBoundary()
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        self = try Self.parse(prefixOf: bytes).header
    }

    /// Reads the header at the start of a packet and returns how many bytes it took. That can
    /// exceed `serializedSize`, since a sender may pad its extension block more than needed or
    /// end it early with ID 15; the payload starts at `size`.
    public static func parse(prefixOf bytes: UnsafeRawBufferPointer) throws(WireFormatError) -> (header: RTPHeader, size: Int) {
        var reader = ByteReader(bytes, structure: "RTP header")
        let first = try reader.readUInt8()
        guard first >> 6 == Self.version else {
            throw .invalid(structure: "RTP header", reason: "version \(first >> 6), expected 2")
        }
        let second = try reader.readUInt8()
        var header = RTPHeader(
            hasPadding: first & 0x20 != 0, marker: second & 0x80 != 0, payloadType: second & 0x7F,
            sequenceNumber: try reader.readUInt16(), timestamp: try reader.readUInt32(), ssrc: try reader.readUInt32())
        let csrcCount = Int(first & 0x0F)
        try reader.require(4 * csrcCount)
        for _ in 0..<csrcCount { header.csrcs.append(try reader.readUInt32()) }
        if first & 0x10 != 0 {
            let profile = try reader.readUInt16()
            guard profile == Self.oneByteExtensionProfile else {
                throw .invalid(
                    structure: "RTP header extension",
                    reason: "profile 0x\(String(profile, radix: 16)) is not the one-byte form 0xbede")
            }
            let wordCount = Int(try reader.readUInt16())
            var block = ByteReader(try reader.readBytes(4 * wordCount), structure: "RTP header extension block")
            header.extensionElements = try Self.parseOneByteElements(&block)
        }
        return (header, reader.offset)
    }

    /// RFC 8285 §4.2: bytes with ID 0 are padding and are skipped; ID 15 ends processing of the block.
    private static func parseOneByteElements(_ block: inout ByteReader) throws(WireFormatError) -> [RTPHeaderExtensionElement] {
        var elements: [RTPHeaderExtensionElement] = []
        while block.remaining > 0 {
            let byte = try block.readUInt8()
            let id = byte >> 4
            guard id != 0 else { continue }
            guard id != 15 else { break }
            let data = try block.readBytes(Int(byte & 0x0F) + 1)
            elements.append(try RTPHeaderExtensionElement(id: id, data: data))
        }
        return elements
    }
}
