/// A whole RTP packet (RFC 3550 §5.1): header, payload and optional padding.
///
/// ```
/// +----------------+----------------------+---------------------------------+
/// | RTPHeader      | payload              | padding: 0 ... 0, count (P = 1) |
/// +----------------+----------------------+---------------------------------+
/// ```
///
/// The last padding byte counts the padding bytes including itself. This owning form is for
/// receiving and tests; the send path writes packets straight into an `RTPPacketBatch`.
public struct RTPPacket: WireFormat, Equatable, Sendable {
    public var header: RTPHeader
    public var payload: [UInt8]
    /// Padding bytes after the payload, including the count byte; 0 for none.
    public var paddingCount: UInt8 {
        didSet { header.hasPadding = paddingCount > 0 }
    }

    public init(header: RTPHeader, payload: [UInt8], paddingCount: UInt8 = 0) {
        self.header = header
        self.payload = payload
        self.paddingCount = paddingCount
        self.header.hasPadding = paddingCount > 0
    }

    public var serializedSize: Int { header.serializedSize + payload.count + Int(paddingCount) }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTP packet")
        try writer.write(header)
        payload.withUnsafeBytes { writer.write($0) }
        if paddingCount > 0 {
            writer.writeZeros(Int(paddingCount) - 1)
            writer.write(paddingCount)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let (header, headerSize) = try RTPHeader.parse(prefixOf: bytes)
        self.header = header
        var end = bytes.count
        paddingCount = 0
        if header.hasPadding {
            let count = bytes.last ?? 0
            guard count > 0, Int(count) <= bytes.count - headerSize else {
                throw .invalid(
                    structure: "RTP packet",
                    reason: "padding count \(count) does not fit the \(bytes.count - headerSize) bytes after the header")
            }
            paddingCount = count
            end -= Int(count)
        }
        payload = Array(bytes[headerSize..<end])
    }
}
