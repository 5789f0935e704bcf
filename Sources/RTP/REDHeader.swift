/// The block headers of an RTP payload for redundant data (RED, RFC 2198 §3), at the start of
/// the payload: one 4-byte header per redundant block (F = 1), then the primary block's 1-byte
/// header (F = 0), then the blocks' data in the same order.
///
/// ```
///  0                   1                    2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |F|   block PT  |  timestamp offset         |   block length    |   F = 1: a redundant block
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |0|   Block PT  |                                                   F = 0: the primary block
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// A video sender (libwebrtc's, and camrtp's) sends the primary block alone: RED is the envelope
/// that lets ULPFEC (RFC 5109) packets share the media stream, told apart by their block PT.
public struct REDHeader: WireFormat, Equatable, Sendable {
    public struct RedundantBlock: Equatable, Sendable {
        public var payloadType: UInt8
        /// 14 bits: how far this block's timestamp is behind the packet's.
        public var timestampOffset: UInt16
        /// 10 bits.
        public var length: UInt16

        public init(payloadType: UInt8, timestampOffset: UInt16, length: UInt16) {
            self.payloadType = payloadType
            self.timestampOffset = timestampOffset
            self.length = length
        }
    }

    /// The primary block header alone: what every packet camrtp sends as RED starts with.
    public static let primaryHeaderSize = 1
    /// A peer's RED packet with more redundant blocks than this is refused (RFC 2198 sets no
    /// limit; a packet of 1500 bytes holds at most 375 block headers, none of them useful).
    public static let maximumRedundantBlocks = 16

    public var redundantBlocks: [RedundantBlock]
    public var primaryPayloadType: UInt8

    public init(redundantBlocks: [RedundantBlock] = [], primaryPayloadType: UInt8) {
        self.redundantBlocks = redundantBlocks
        self.primaryPayloadType = primaryPayloadType
    }

    public var serializedSize: Int { 4 * redundantBlocks.count + Self.primaryHeaderSize }

    /// The bytes after the headers that the redundant blocks take; the primary block is the rest.
    public var redundantLength: Int { redundantBlocks.reduce(0) { $0 + Int($1.length) } }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: "RED header")
        var blocks: [RedundantBlock] = []
        while true {
            let first = try reader.readUInt8()
            guard first & 0x80 != 0 else {
                primaryPayloadType = first & 0x7F
                break
            }
            guard blocks.count < Self.maximumRedundantBlocks else {
                throw .invalid(structure: "RED header", reason: "more than \(Self.maximumRedundantBlocks) redundant blocks")
            }
            let rest = try reader.readUInt24()
            blocks.append(RedundantBlock(
                payloadType: first & 0x7F, timestampOffset: UInt16(rest >> 10), length: UInt16(rest & 0x3FF)))
        }
        redundantBlocks = blocks
        guard redundantLength <= reader.remaining else {
            throw .truncated(structure: "RED payload", needed: reader.offset + redundantLength, available: bytes.count)
        }
    }

    /// Writes `packet` (a whole RTP packet whose header is `headerLength` bytes) into `buffer` as
    /// a RED packet with the primary block alone: the same header with RED's payload type, then
    /// the block header naming the packet's own payload type, then its payload; returns the
    /// length. `buffer` must hold one byte more than the packet. Copies bytes only.
    public static func encapsulate(
        _ packet: UnsafeRawBufferPointer, headerLength: Int, redPayloadType: UInt8, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        precondition(headerLength >= RTPHeader.fixedSize && headerLength <= packet.count && buffer.count > packet.count,
                     "a whole RTP packet, and room for the RED header")
        UnsafeMutableRawBufferPointer(rebasing: buffer[0..<headerLength]).copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<headerLength]))
        buffer[1] = packet[1] & 0x80 | redPayloadType & 0x7F
        buffer[headerLength] = packet[1] & 0x7F
        UnsafeMutableRawBufferPointer(rebasing: buffer[(headerLength + 1)..<(packet.count + 1)])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[headerLength...]))
        return packet.count + 1
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RED header")
        for block in redundantBlocks {
            guard block.timestampOffset < 1 << 14, block.length < 1 << 10 else {
                throw .invalid(structure: "RED header", reason: "a block's timestamp offset or length does not fit its field")
            }
            writer.write(0x80 | block.payloadType & 0x7F)
            writer.writeUInt24(UInt32(block.timestampOffset) << 10 | UInt32(block.length))
        }
        writer.write(primaryPayloadType & 0x7F)
        return writer.offset
    }
}
