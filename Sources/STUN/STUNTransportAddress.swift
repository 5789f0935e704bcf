import Glibc

/// An IP address and UDP port as STUN carries them in (XOR-)MAPPED-ADDRESS (RFC 5389
/// sections 15.1 and 15.2).
public struct STUNTransportAddress: Sendable, Hashable, CustomStringConvertible {
    public enum IP: Sendable, Hashable {
        /// Big-endian value: 192.0.2.1 is 0xC000_0201.
        case v4(UInt32)
        /// Big-endian halves: 2001:db8:: is (0x2001_0db8_0000_0000, 0).
        case v6(upper: UInt64, lower: UInt64)
    }

    public var ip: IP
    public var port: UInt16

    public init(ip: IP, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Reads an address literal such as `192.0.2.1` or `2001:db8::1`; nil if it is neither.
    public init?(address: String, port: UInt16) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            ip = .v4(UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, address, &v6) == 1 {
            let (upper, lower) = withUnsafeBytes(of: v6) { bytes in
                (UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                 UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            ip = .v6(upper: upper, lower: lower)
        } else {
            return nil
        }
        self.port = port
    }

    /// The address in its usual text form, without the port.
    public var address: String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
            text.initialize(repeating: 0)
            switch ip {
            case .v4(let value):
                var raw = in_addr(s_addr: value.bigEndian)
                inet_ntop(AF_INET, &raw, text.baseAddress, socklen_t(text.count))
            case .v6(let upper, let lower):
                var raw = (upper.bigEndian, lower.bigEndian)
                inet_ntop(AF_INET6, &raw, text.baseAddress, socklen_t(text.count))
            }
            return String(cString: text.baseAddress!)
        }
    }

    public var description: String {
        if case .v6 = ip { return "[\(address)]:\(port)" }
        return "\(address):\(port)"
    }
}
