import RTP

/// The header in front of every DTLS record (RFC 6347 section 4.1):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | content type  |    version (major, minor)     |     epoch ... |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... epoch    |         sequence number (48 bits) ...         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           ... sequence number             |    length ...     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | ... length    |  fragment (length bytes) ...
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// A datagram may carry several records back to back (section 4.1.1). The session reads only
/// these headers, to turn away datagrams that are not DTLS before OpenSSL sees them.
public struct DTLSRecordHeader: WireFormat, Sendable, Hashable {
    public static let size = 13
    /// `TLSCiphertext` fragments are at most 2^14 + 2048 bytes (RFC 5246 section 6.2.3).
    public static let maximumLength = (1 << 14) + 2_048

    /// The record content types of DTLS 1.2 (RFC 5246 section 6.2.1).
    public enum ContentType: UInt8, Sendable, Hashable {
        case changeCipherSpec = 20
        case alert = 21
        case handshake = 22
        case applicationData = 23
    }

    public var contentType: ContentType
    /// `0xFEFF` for DTLS 1.0, `0xFEFD` for DTLS 1.2 (the ones' complement of the TLS version).
    public var version: UInt16
    public var epoch: UInt16
    /// 48 bits.
    public var sequenceNumber: UInt64
    /// Bytes of fragment after the header.
    public var length: Int

    public init(contentType: ContentType, version: UInt16, epoch: UInt16, sequenceNumber: UInt64, length: Int) {
        self.contentType = contentType
        self.version = version
        self.epoch = epoch
        self.sequenceNumber = sequenceNumber
        self.length = length
    }

    /// Reads a header and checks that its fragment fits in `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let structure = "DTLS record"
        guard bytes.count >= Self.size else {
            throw .truncated(structure: structure, needed: Self.size, available: bytes.count)
        }
        guard let contentType = ContentType(rawValue: bytes[0]) else {
            throw .invalid(structure: structure, reason: "content type \(bytes[0]) is not 20…23")
        }
        guard bytes[1] == 0xFE else {
            throw .invalid(structure: structure, reason: "version major byte \(bytes[1]) is not 0xFE (DTLS)")
        }
        self.contentType = contentType
        version = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
        epoch = UInt16(bytes[3]) << 8 | UInt16(bytes[4])
        sequenceNumber = (5..<11).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[$1]) }
        length = Int(bytes[11]) << 8 | Int(bytes[12])
        guard length <= Self.maximumLength else {
            throw .invalid(structure: structure, reason: "length \(length) exceeds \(Self.maximumLength)")
        }
        guard Self.size + length <= bytes.count else {
            throw .truncated(structure: structure, needed: Self.size + length, available: bytes.count)
        }
    }

    public var serializedSize: Int { Self.size }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        let structure = "DTLS record"
        guard buffer.count >= Self.size else {
            throw .bufferTooSmall(structure: structure, needed: Self.size, available: buffer.count)
        }
        guard sequenceNumber < 1 << 48, (0...Self.maximumLength).contains(length) else {
            throw .invalid(structure: structure, reason: "sequence number or length out of range")
        }
        buffer[0] = contentType.rawValue
        buffer[1] = UInt8(version >> 8)
        buffer[2] = UInt8(version & 0xFF)
        buffer[3] = UInt8(epoch >> 8)
        buffer[4] = UInt8(epoch & 0xFF)
        for index in 0..<6 { buffer[5 + index] = UInt8(truncatingIfNeeded: sequenceNumber >> (8 * (5 - index))) }
        buffer[11] = UInt8(length >> 8)
        buffer[12] = UInt8(length & 0xFF)
        return Self.size
    }
}
