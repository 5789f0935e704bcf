import RTP

/// An RTCP source description, SDES (RFC 3550 §6.5).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                          SSRC/CSRC_1                          |  chunk 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |    CNAME=1    |     length    | user and domain name        ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... more items  |  END=0  |  0 … to the next 32-bit boundary |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
///
/// Each chunk's item list ends with at least one zero byte and is padded to a 32-bit word.
public struct RTCPSourceDescription: WireFormat, Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        /// CNAME (§6.5.1), the one item every SDES must carry.
        public static let cnameType: UInt8 = 1

        public var type: UInt8
        /// UTF-8, at most 255 bytes.
        public var text: String

        public init(type: UInt8, text: String) {
            self.type = type
            self.text = text
        }

        public static func cname(_ text: String) -> Item { Item(type: cnameType, text: text) }
    }

    public struct Chunk: Equatable, Sendable {
        public var ssrc: UInt32
        public var items: [Item]

        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// SSRC, items, the END byte, padding to a word.
        var serializedSize: Int {
            let itemBytes = items.reduce(0) { $0 + 2 + $1.text.utf8.count }
            return 4 + (itemBytes + 1 + 3) / 4 * 4
        }
    }

    /// At most 31; more are not sent.
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// The SDES a sender sends every report: its CNAME.
    public init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [.cname(cname)])])
    }

    private var chunkCount: Int { min(chunks.count, RTCPCommonHeader.maximumCount) }

    public var serializedSize: Int {
        chunks.prefix(chunkCount).reduce(RTCPCommonHeader.size) { $0 + $1.serializedSize }
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        for chunk in chunks.prefix(chunkCount) {
            for item in chunk.items where item.text.utf8.count > 255 {
                throw .invalid(structure: "RTCP SDES", reason: "item of \(item.text.utf8.count) bytes, at most 255 fit")
            }
        }
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP SDES")
        RTCPCommonHeader.write(
            count: chunkCount, packetType: RTCPPacketType.sourceDescription, packetSize: serializedSize, to: &writer)
        for chunk in chunks.prefix(chunkCount) {
            writer.write(chunk.ssrc)
            for item in chunk.items {
                writer.write(item.type)
                writer.write(UInt8(item.text.utf8.count))
                writer.write(utf8: item.text)
            }
            writer.write(UInt8(0))
            writer.padToWordBoundary()
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(
            parsing: bytes, packetType: RTCPPacketType.sourceDescription, structure: "RTCP SDES")
        var reader = ByteReader(header.body, structure: "RTCP SDES")
        chunks = []
        for _ in 0..<header.count {
            var chunk = Chunk(ssrc: try reader.readUInt32(), items: [])
            while true {
                let type = try reader.readUInt8()
                guard type != 0 else { break }
                let length = Int(try reader.readUInt8())
                chunk.items.append(Item(type: type, text: String(decoding: try reader.readBytes(length), as: UTF8.self)))
            }
            // The body starts on a word boundary, so the reader's offset tells the chunk padding.
            try reader.skip(min((4 - reader.offset % 4) % 4, reader.remaining))
            chunks.append(chunk)
        }
    }

    /// The CNAME of the first chunk that has one.
    public var cname: String? {
        chunks.lazy.compactMap { $0.items.first { $0.type == Item.cnameType }?.text }.first
    }
}
