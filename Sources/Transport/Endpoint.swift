import Glibc

/// A resolved UDP destination parsed from `HOST:PORT` (the CLI's `--to`).
///
/// Accepted forms: `127.0.0.1:5004`, `[::1]:5004` (RFC 3986 section 3.2.2 brackets, needed because
/// an IPv6 address contains colons) and `name:5004`, resolved once with `getaddrinfo`.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The IP address family of an endpoint.
    public enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    public let family: Family
    /// The numeric address, such as `127.0.0.1` or `::1`: what an SDP `c=` line carries.
    public let address: String
    public let port: UInt16
    /// Network-order address bytes: 4 for IPv4, 16 for IPv6.
    let addressBytes: [UInt8]

    /// Parses and resolves `input`. `option` names the flag in error messages.
    public init(parsing input: String, option: String = "--to") throws(EndpointError) {
        let (host, portText, bracketed) = try Self.split(input, option: option)
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw EndpointError(option: option, input: input, problem: .malformed)
        }
        guard let portValue = Int(portText), (1...65_535).contains(portValue) else {
            throw EndpointError(option: option, input: input, problem: .portOutOfRange(portText))
        }
        self = try Self.resolve(host: host, port: UInt16(portValue), numericIPv6Only: bracketed,
                                option: option, input: input)
    }

    init(family: Family, addressBytes: [UInt8], port: UInt16) {
        self.family = family
        self.addressBytes = addressBytes
        self.port = port
        self.address = Self.presentation(family: family, bytes: addressBytes)
    }

    /// RFC 3550 section 11: RTP uses an even port and RTCP the next odd one. Odd RTP ports work
    /// with receivers told the RTCP port explicitly (`a=rtcp:`), so this is a warning, not an error.
    public var hasEvenPort: Bool { port % 2 == 0 }

    /// The same address at another port.
    public func with(port: UInt16) -> Endpoint {
        Endpoint(family: family, addressBytes: addressBytes, port: port)
    }

    /// The RTCP destination by the RFC 3550 section 11 default: RTP port + 1. `nil` for port 65535.
    public var defaultRTCPEndpoint: Endpoint? {
        port < UInt16.max ? with(port: port + 1) : nil
    }

    /// `127.0.0.1:5004` or `[::1]:5004`.
    public var description: String {
        family == .ipv6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    /// Calls `body` with this endpoint as a `sockaddr` of the right size.
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Reads an endpoint back from a `sockaddr_storage` filled by the kernel.
    init?(socketAddress storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            let bytes = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
            self.init(family: .ipv4, addressBytes: bytes, port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
            self.init(family: .ipv6, addressBytes: bytes, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }

    private static func split(_ input: String, option: String) throws(EndpointError)
        -> (host: String, port: Substring, bracketed: Bool)
    {
        if input.hasPrefix("[") {
            guard let close = input.firstIndex(of: "]") else {
                throw EndpointError(option: option, input: input, problem: .malformed)
            }
            let host = String(input[input.index(after: input.startIndex)..<close])
            let rest = input[input.index(after: close)...]
            guard rest.hasPrefix(":"), !host.isEmpty else {
                throw EndpointError(option: option, input: input, problem: .malformed)
            }
            return (host, rest.dropFirst(), true)
        }
        guard let colon = input.lastIndex(of: ":") else {
            throw EndpointError(option: option, input: input, problem: .malformed)
        }
        let host = String(input[..<colon])
        guard !host.isEmpty else { throw EndpointError(option: option, input: input, problem: .malformed) }
        guard !host.contains(":") else {
            throw EndpointError(option: option, input: input, problem: .unbracketedIPv6)
        }
        return (host, input[input.index(after: colon)...], false)
    }

    private static func resolve(
        host: String, port: UInt16, numericIPv6Only: Bool, option: String, input: String
    ) throws(EndpointError) -> Endpoint {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = numericIPv6Only ? AF_INET6 : AF_UNSPEC
        hints.ai_flags = numericIPv6Only ? AI_NUMERICHOST : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let first = list?.pointee, let address = first.ai_addr else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            let problem: EndpointError.Problem = numericIPv6Only
                ? .invalidIPv6(host) : .unknownHost(host, reason: reason)
            throw EndpointError(option: option, input: input, problem: problem)
        }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(first.ai_addrlen)))
        }
        guard let resolved = Endpoint(socketAddress: storage) else {
            throw EndpointError(option: option, input: input, problem: .unknownHost(host, reason: "no IP address"))
        }
        return resolved.with(port: port)
    }

    private static func presentation(family: Family, bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let af = family == .ipv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(af, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        precondition(ok, "inet_ntop failed for a well-formed address")
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a `HOST:PORT` argument was rejected. The description names the input and the fix.
public struct EndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// Not `HOST:PORT` at all.
        case malformed
        /// An IPv6 address without the brackets that separate it from the port.
        case unbracketedIPv6
        /// A bracketed host that is not an IPv6 address.
        case invalidIPv6(String)
        /// The port is not in 1…65535 (carries the text given).
        case portOutOfRange(Substring)
        /// The name did not resolve (carries the resolver's reason).
        case unknownHost(String, reason: String)
    }

    public let option: String
    public let input: String
    public let problem: Problem

    public var description: String {
        let prefix = "\(option) \"\(input)\""
        switch problem {
        case .malformed:
            return "\(prefix): expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"
        case .unbracketedIPv6:
            return "\(prefix): put an IPv6 address in brackets, such as [::1]:5004"
        case .invalidIPv6(let host):
            return "\(prefix): \"\(host)\" is not an IPv6 address; brackets are for IPv6, such as [::1]:5004"
        case .portOutOfRange(let port):
            return "\(prefix): port must be 1…65535, got \(port)"
        case .unknownHost(let host, let reason):
            return "\(prefix): unknown host \"\(host)\" (\(reason)); use an IP address or a resolvable name"
        }
    }
}
