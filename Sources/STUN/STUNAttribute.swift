import RTP

/// A STUN attribute (RFC 5389 section 15), type-length-value, padded to 32 bits:
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Type                  |            Length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Value (variable)                ....
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The attributes ICE uses are typed; any other keeps its raw value, so a message round-trips.
public enum STUNAttribute: Sendable, Hashable {
    /// RFC 5389 section 15.2: the address the server saw, XORed on the wire with the magic cookie
    /// (and, for IPv6, the transaction ID); held here in the clear.
    case xorMappedAddress(STUNTransportAddress)
    /// RFC 5389 section 15.3; for ICE `<receiver's ufrag>:<sender's ufrag>` (RFC 8445 section 7.2.2).
    case username(String)
    /// RFC 5389 section 15.4: HMAC-SHA1, 20 bytes.
    case messageIntegrity([UInt8])
    /// RFC 5389 section 15.5: CRC-32 of the message before it, XOR 0x5354554e.
    case fingerprint(UInt32)
    /// RFC 8445 section 7.1.1: the priority a peer-reflexive candidate would get.
    case priority(UInt32)
    /// RFC 8445 section 7.1.2: the controlling agent nominates this pair.
    case useCandidate
    /// RFC 8445 section 7.1.3: the sender is controlled; the tie-breaker resolves role conflicts.
    case iceControlled(tieBreaker: UInt64)
    /// RFC 8445 section 7.1.3: the sender is controlling.
    case iceControlling(tieBreaker: UInt64)
    /// RFC 5389 section 15.6.
    case errorCode(STUNErrorCode)
    /// RFC 5389 section 15.10: the sender's software, UTF-8.
    case software(String)
    /// Any other attribute, value as received, without its padding.
    case other(type: UInt16, value: [UInt8])

    /// Type codes (RFC 5389 section 18.2, RFC 8445 section 16.1).
    public enum TypeCode {
        public static let xorMappedAddress: UInt16 = 0x0020
        public static let username: UInt16 = 0x0006
        public static let messageIntegrity: UInt16 = 0x0008
        public static let fingerprint: UInt16 = 0x8028
        public static let priority: UInt16 = 0x0024
        public static let useCandidate: UInt16 = 0x0025
        public static let iceControlled: UInt16 = 0x8029
        public static let iceControlling: UInt16 = 0x802A
        public static let errorCode: UInt16 = 0x0009
        public static let software: UInt16 = 0x8022
    }

    /// Bytes of HMAC-SHA1 in MESSAGE-INTEGRITY.
    public static let messageIntegritySize = 20
    /// RFC 5389 section 15.3: USERNAME is less than 513 bytes.
    static let maximumUsernameBytes = 512
    /// RFC 5389 sections 15.6 and 15.10: reason phrase and SOFTWARE, 127 characters of up to 6 bytes.
    static let maximumTextBytes = 763

    public var typeCode: UInt16 {
        switch self {
        case .xorMappedAddress: TypeCode.xorMappedAddress
        case .username: TypeCode.username
        case .messageIntegrity: TypeCode.messageIntegrity
        case .fingerprint: TypeCode.fingerprint
        case .priority: TypeCode.priority
        case .useCandidate: TypeCode.useCandidate
        case .iceControlled: TypeCode.iceControlled
        case .iceControlling: TypeCode.iceControlling
        case .errorCode: TypeCode.errorCode
        case .software: TypeCode.software
        case .other(let type, _): type
        }
    }

    /// The value's length before padding.
    var valueLength: Int {
        switch self {
        case .xorMappedAddress(let address):
            if case .v4 = address.ip { 8 } else { 20 }
        case .username(let text), .software(let text): text.utf8.count
        case .messageIntegrity(let code): code.count
        case .fingerprint, .priority: 4
        case .useCandidate: 0
        case .iceControlled, .iceControlling: 8
        case .errorCode(let error): 4 + error.reason.utf8.count
        case .other(_, let value): value.count
        }
    }

    /// Header, value and padding.
    var serializedSize: Int { 4 + (valueLength + 3) / 4 * 4 }

    func validateForWriting() throws(WireFormatError) {
        let structure = "STUN attribute 0x\(String(typeCode, radix: 16))"
        switch self {
        case .username(let text) where text.utf8.count > Self.maximumUsernameBytes:
            throw .invalid(structure: structure, reason: "USERNAME of \(text.utf8.count) bytes, at most 512")
        case .software(let text) where text.utf8.count > Self.maximumTextBytes:
            throw .invalid(structure: structure, reason: "SOFTWARE of \(text.utf8.count) bytes, at most 763")
        case .messageIntegrity(let code) where code.count != Self.messageIntegritySize:
            throw .invalid(structure: structure, reason: "MESSAGE-INTEGRITY of \(code.count) bytes, not 20")
        case .errorCode(let error):
            try error.validate()
        case .other(_, let value) where value.count > Int(UInt16.max):
            throw .invalid(structure: structure, reason: "value of \(value.count) bytes")
        default:
            break
        }
    }

    /// Writes header, value and padding where `cursor` is; the message checked its size up front.
    func write(to cursor: inout ByteWriter, transactionID: STUNTransactionID, paddingByte: UInt8) {
        cursor.write(typeCode)
        cursor.write(UInt16(valueLength))
        switch self {
        case .xorMappedAddress(let address):
            cursor.write(UInt8(0))
            switch address.ip {
            case .v4(let ip):
                cursor.write(UInt8(1))
                cursor.write(address.port ^ UInt16(STUNMessage.magicCookie >> 16))
                cursor.write(ip ^ STUNMessage.magicCookie)
            case .v6(let upper, let lower):
                let (keyUpper, keyLower) = Self.xorKeyV6(transactionID)
                cursor.write(UInt8(2))
                cursor.write(address.port ^ UInt16(STUNMessage.magicCookie >> 16))
                cursor.write(upper ^ keyUpper)
                cursor.write(lower ^ keyLower)
            }
        case .username(let text), .software(let text):
            cursor.write(utf8: text)
        case .messageIntegrity(let code):
            cursor.write(code)
        case .fingerprint(let value), .priority(let value):
            cursor.write(value)
        case .useCandidate:
            break
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker):
            cursor.write(tieBreaker)
        case .errorCode(let error):
            cursor.write(UInt16(0))
            cursor.write(UInt8(error.code / 100))
            cursor.write(UInt8(error.code % 100))
            cursor.write(utf8: error.reason)
        case .other(_, let value):
            cursor.write(value)
        }
        cursor.padToWordBoundary(with: paddingByte)
    }

    /// Reads the value of an attribute of `type`; throws on a length or content the type forbids.
    init(type: UInt16, value: UnsafeRawBufferPointer, transactionID: STUNTransactionID) throws(WireFormatError) {
        let structure = "STUN attribute 0x\(String(type, radix: 16))"
        func requireLength(_ length: Int) throws(WireFormatError) {
            guard value.count == length else {
                throw .invalid(structure: structure, reason: "length \(value.count), expected \(length)")
            }
        }
        func text(_ bytes: UnsafeRawBufferPointer, maximumBytes: Int) throws(WireFormatError) -> String {
            guard bytes.count <= maximumBytes else {
                throw .invalid(structure: structure, reason: "\(bytes.count) bytes of text, at most \(maximumBytes)")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw .invalid(structure: structure, reason: "text is not UTF-8")
            }
            return text
        }
        switch type {
        case TypeCode.xorMappedAddress:
            guard value.count >= 4 else { throw .truncated(structure: structure, needed: 4, available: value.count) }
            let port = value.bigEndianUInt16(at: 2) ^ UInt16(STUNMessage.magicCookie >> 16)
            switch value[1] {
            case 1:
                try requireLength(8)
                self = .xorMappedAddress(STUNTransportAddress(ip: .v4(value.bigEndianUInt32(at: 4) ^ STUNMessage.magicCookie), port: port))
            case 2:
                try requireLength(20)
                let (keyUpper, keyLower) = Self.xorKeyV6(transactionID)
                let ip = STUNTransportAddress.IP.v6(
                    upper: value.bigEndianUInt64(at: 4) ^ keyUpper, lower: value.bigEndianUInt64(at: 12) ^ keyLower)
                self = .xorMappedAddress(STUNTransportAddress(ip: ip, port: port))
            default:
                throw .invalid(structure: structure, reason: "address family \(value[1])")
            }
        case TypeCode.username:
            self = .username(try text(value, maximumBytes: Self.maximumUsernameBytes))
        case TypeCode.software:
            self = .software(try text(value, maximumBytes: Self.maximumTextBytes))
        case TypeCode.messageIntegrity:
            try requireLength(Self.messageIntegritySize)
            self = .messageIntegrity(Array(value))
        case TypeCode.fingerprint:
            try requireLength(4)
            self = .fingerprint(value.bigEndianUInt32(at: 0))
        case TypeCode.priority:
            try requireLength(4)
            self = .priority(value.bigEndianUInt32(at: 0))
        case TypeCode.useCandidate:
            try requireLength(0)
            self = .useCandidate
        case TypeCode.iceControlled:
            try requireLength(8)
            self = .iceControlled(tieBreaker: value.bigEndianUInt64(at: 0))
        case TypeCode.iceControlling:
            try requireLength(8)
            self = .iceControlling(tieBreaker: value.bigEndianUInt64(at: 0))
        case TypeCode.errorCode:
            guard value.count >= 4 else { throw .truncated(structure: structure, needed: 4, available: value.count) }
            guard value[3] < 100 else { throw .invalid(structure: structure, reason: "error number \(value[3])") }
            let code = Int(value[2] & 0x07) * 100 + Int(value[3])
            let reason = try text(UnsafeRawBufferPointer(rebasing: value[4...]), maximumBytes: Self.maximumTextBytes)
            let error = STUNErrorCode(code: code, reason: reason)
            try error.validate()
            self = .errorCode(error)
        default:
            self = .other(type: type, value: Array(value))
        }
    }

    /// RFC 5389 section 15.2: an IPv6 address is XORed with the cookie and the transaction ID.
    private static func xorKeyV6(_ transactionID: STUNTransactionID) -> (UInt64, UInt64) {
        (UInt64(STUNMessage.magicCookie) << 32 | UInt64(transactionID.upper), transactionID.lower)
    }
}

/// An ERROR-CODE (RFC 5389 section 15.6): a code from 300 to 699 and a reason phrase.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           Reserved, should be 0         |Class|     Number    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      Reason Phrase (variable)                                ..
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNErrorCode: Sendable, Hashable {
    /// 400 Bad Request: malformed request.
    public static let badRequest = 400
    /// 401 Unauthorized: MESSAGE-INTEGRITY missing or wrong.
    public static let unauthorized = 401
    /// 403 Forbidden: RFC 7675 consent revoked.
    public static let forbidden = 403
    /// 487 Role Conflict: RFC 8445 section 7.3.1.1.
    public static let roleConflict = 487

    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    func validate() throws(WireFormatError) {
        guard (300...699).contains(code) else {
            throw .invalid(structure: "STUN ERROR-CODE", reason: "code \(code) is outside 300 to 699")
        }
        guard reason.utf8.count <= STUNAttribute.maximumTextBytes else {
            throw .invalid(structure: "STUN ERROR-CODE", reason: "reason of \(reason.utf8.count) bytes, at most 763")
        }
    }
}
