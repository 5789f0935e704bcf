import RTP

/// A STUN message (RFC 5389 section 6): a 20-byte header and attributes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                                                               |
/// |                     Transaction ID (96 bits)                  |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The length counts the attributes' bytes, padding included. Only RFC 5389 messages (with the
/// magic cookie) parse; RFC 3489's are rejected.
public struct STUNMessage: WireFormat, Sendable, Hashable {
    public static let magicCookie: UInt32 = 0x2112_A442
    public static let headerSize = 20

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// In wire order; MESSAGE-INTEGRITY and FINGERPRINT, when present, are the last ones.
    public var attributes: [STUNAttribute]
    /// What fills attributes to 32 bits. RFC 5389 lets the sender choose; RFC 5769's vectors
    /// use spaces. A parsed message keeps its first padding byte, so it serializes to the bytes
    /// it came from and its MESSAGE-INTEGRITY still matches.
    public var paddingByte: UInt8

    public init(type: STUNMessageType, transactionID: STUNTransactionID = .random(), attributes: [STUNAttribute] = [], paddingByte: UInt8 = 0) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
        self.paddingByte = paddingByte
    }

    /// RFC 7983 section 7: a first byte of 0 to 3 is STUN (DTLS is 20 to 63, RTP/RTCP 128 to 191);
    /// the magic cookie confirms it. A quick test for a demultiplexer, not a parse.
    public static func isSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= headerSize && bytes[0] < 4 && bytes.bigEndianUInt32(at: 4) == magicCookie
    }

    // MARK: Attributes by type

    public var username: String? {
        for case .username(let username) in attributes { return username }
        return nil
    }

    public var xorMappedAddress: STUNTransportAddress? {
        for case .xorMappedAddress(let address) in attributes { return address }
        return nil
    }

    public var errorCode: STUNErrorCode? {
        for case .errorCode(let error) in attributes { return error }
        return nil
    }

    // MARK: WireFormat

    public var serializedSize: Int {
        Self.headerSize + attributes.reduce(0) { $0 + $1.serializedSize }
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        let size = serializedSize
        guard size - Self.headerSize <= Int(UInt16.max) else {
            throw .invalid(structure: "STUN message", reason: "\(size - Self.headerSize) bytes of attributes, at most 65535")
        }
        var writer = try ByteWriter(buffer, size: size, structure: "STUN message")
        for attribute in attributes { try attribute.validateForWriting() }
        writer.write(type.wireValue)
        writer.write(UInt16(size - Self.headerSize))
        writer.write(Self.magicCookie)
        writer.write(transactionID.upper)
        writer.write(transactionID.lower)
        for attribute in attributes {
            attribute.write(to: &writer, transactionID: transactionID, paddingByte: paddingByte)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let layout = try STUNMessageLayout(parsing: bytes)
        type = layout.type
        transactionID = layout.transactionID
        attributes = []
        attributes.reserveCapacity(layout.attributes.count)
        for entry in layout.attributes {
            let value = UnsafeRawBufferPointer(rebasing: bytes[entry.valueRange])
            attributes.append(try STUNAttribute(type: entry.type, value: value, transactionID: transactionID))
        }
        paddingByte = layout.paddingByte
    }
}

/// Where a message's header fields and attributes lie in its bytes: the one walk over the TLVs
/// that parsing and the integrity checks share.
struct STUNMessageLayout {
    struct Entry {
        let type: UInt16
        /// Offset of the attribute's header in the message.
        let offset: Int
        let valueRange: Range<Int>
    }

    let type: STUNMessageType
    let transactionID: STUNTransactionID
    /// Header plus attributes, as the length field says.
    let messageSize: Int
    let attributes: [Entry]
    let paddingByte: UInt8

    init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let structure = "STUN message"
        guard bytes.count >= STUNMessage.headerSize else {
            throw .truncated(structure: structure, needed: STUNMessage.headerSize, available: bytes.count)
        }
        let typeField = bytes.bigEndianUInt16(at: 0)
        guard typeField & 0xC000 == 0 else {
            throw .invalid(structure: structure, reason: "the first two bits are not zero")
        }
        guard bytes.bigEndianUInt32(at: 4) == STUNMessage.magicCookie else {
            throw .invalid(structure: structure, reason: "no magic cookie")
        }
        let length = Int(bytes.bigEndianUInt16(at: 2))
        guard length % 4 == 0 else {
            throw .invalid(structure: structure, reason: "length \(length) is not a multiple of 4")
        }
        messageSize = STUNMessage.headerSize + length
        guard bytes.count >= messageSize else {
            throw .truncated(structure: structure, needed: messageSize, available: bytes.count)
        }
        type = STUNMessageType(wireValue: typeField)
        transactionID = STUNTransactionID(upper: bytes.bigEndianUInt32(at: 8), lower: bytes.bigEndianUInt64(at: 12))

        var entries: [Entry] = []
        var padding: UInt8?
        var offset = STUNMessage.headerSize
        while offset < messageSize {
            guard messageSize - offset >= 4 else {
                throw .truncated(structure: "STUN attribute header", needed: offset + 4, available: messageSize)
            }
            let type = bytes.bigEndianUInt16(at: offset)
            let valueLength = Int(bytes.bigEndianUInt16(at: offset + 2))
            let valueStart = offset + 4
            let paddedEnd = valueStart + (valueLength + 3) / 4 * 4
            guard paddedEnd <= messageSize else {
                throw .truncated(structure: "STUN attribute 0x\(String(type, radix: 16))", needed: paddedEnd, available: messageSize)
            }
            if padding == nil, valueLength % 4 != 0 { padding = bytes[valueStart + valueLength] }
            entries.append(Entry(type: type, offset: offset, valueRange: valueStart..<valueStart + valueLength))
            offset = paddedEnd
        }
        attributes = entries
        paddingByte = padding ?? 0
    }
}
