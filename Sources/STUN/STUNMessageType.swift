/// The class of a STUN message (RFC 5389 section 6).
public enum STUNMessageClass: UInt16, Sendable, Hashable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN message type: a 12-bit method and a 2-bit class, interleaved in 14 bits (RFC 5389
/// section 6, figure 3):
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNMessageType: Sendable, Hashable, CustomStringConvertible {
    /// The only method ICE and consent freshness use.
    public static let bindingMethod: UInt16 = 0x001

    public static let bindingRequest = STUNMessageType(method: bindingMethod, messageClass: .request)
    public static let bindingSuccessResponse = STUNMessageType(method: bindingMethod, messageClass: .successResponse)
    public static let bindingErrorResponse = STUNMessageType(method: bindingMethod, messageClass: .errorResponse)
    public static let bindingIndication = STUNMessageType(method: bindingMethod, messageClass: .indication)

    /// 12 bits; higher bits are dropped on the wire.
    public var method: UInt16
    public var messageClass: STUNMessageClass

    public init(method: UInt16, messageClass: STUNMessageClass) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
    }

    /// Reads the 14 bits after the two leading zero bits.
    init(wireValue: UInt16) {
        let method = (wireValue & 0x000F) | (wireValue & 0x00E0) >> 1 | (wireValue & 0x3E00) >> 2
        let classBits = (wireValue & 0x0010) >> 4 | (wireValue & 0x0100) >> 7
        // Two bits always name one of the four classes.
        self.init(method: method, messageClass: STUNMessageClass(rawValue: classBits) ?? .request)
    }

    var wireValue: UInt16 {
        let classBits = messageClass.rawValue
        return (method & 0x000F) | (method & 0x0070) << 1 | (method & 0x0F80) << 2
            | (classBits & 0b01) << 4 | (classBits & 0b10) << 7
    }

    public var description: String {
        let name = method == Self.bindingMethod ? "Binding" : "method 0x\(String(method, radix: 16))"
        return "\(name) \(messageClass)"
    }
}

/// The 96-bit transaction ID that pairs a response with its request (RFC 5389 section 6).
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    /// The first four bytes, big-endian.
    public var upper: UInt32
    /// The last eight bytes, big-endian.
    public var lower: UInt64

    public init(upper: UInt32, lower: UInt64) {
        self.upper = upper
        self.lower = lower
    }

    /// A new ID from the system's random generator, as RFC 5389 asks ("uniformly and randomly").
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return STUNTransactionID(upper: generator.next(), lower: generator.next())
    }

    public var description: String {
        String(upper, radix: 16).leftPadded(to: 8) + String(lower, radix: 16).leftPadded(to: 16)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
