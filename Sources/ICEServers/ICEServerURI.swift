/// A STUN or TURN server's URI (RFC 7064 section 3.1, RFC 7065 section 3.1):
///
///     stunURI = ("stun" / "stuns") ":" host [ ":" port ]
///     turnURI = ("turn" / "turns") ":" host [ ":" port ] [ "?transport=" ("udp" / "tcp") ]
///
/// `host` is an IP literal in brackets, an IPv4 address or a registered name (RFC 3986 section
/// 3.2.2). The scheme is case-insensitive; the port defaults to 3478, or 5349 for the secure
/// schemes; TURN's transport defaults to UDP, or TCP for `turns:` (TLS runs over TCP). Other
/// transports (`turns:...?transport=udp` would be DTLS) are refused.
///
/// Parsing is bounded (`maximumLength`) and never traps: untrusted text reaches it in a WHIP
/// endpoint's `Link` header.
public struct ICEServerURI: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        case stun, stuns, turn, turns

        /// True for TURN: a relay that needs credentials.
        public var isTURN: Bool { self == .turn || self == .turns }
        /// True for the schemes that run over TLS.
        public var isSecure: Bool { self == .stuns || self == .turns }
        public var defaultPort: UInt16 { isSecure ? 5349 : 3478 }
    }

    /// How a TURN client reaches its server.
    public enum Transport: String, Sendable, Hashable {
        case udp, tcp
    }

    /// Longer text is refused before any work: a URI names a host and a port.
    public static let maximumLength = 512

    public let scheme: Scheme
    /// A registered name (lowercased) or an IP literal, IPv6 without brackets.
    public let host: String
    public let port: UInt16
    /// nil for STUN.
    public let transport: Transport?

    public init(scheme: Scheme, host: String, port: UInt16? = nil, transport: Transport? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.transport = scheme.isTURN ? (transport ?? (scheme == .turns ? .tcp : .udp)) : nil
    }

    /// Reads `turn:turn.example.net:3478?transport=tcp` and the like.
    public init(parsing text: String) throws(ICEServerError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong(limit: Self.maximumLength) }
        guard let colon = text.firstIndex(of: ":"), let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
            throw .unknownScheme
        }
        var rest = Substring(text[text.index(after: colon)...])
        guard !rest.hasPrefix("//") else { throw .authorityForm }
        var transport: Transport?
        if let mark = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
            guard scheme.isTURN else { throw .queryOnSTUN }
            transport = try Self.transport(query)
        }
        let (host, port) = try HostAndPort.parse(rest)
        if scheme == .turns && transport == .udp { throw .unsupportedTransport("udp with turns (DTLS)") }
        self.init(scheme: scheme, host: host, port: port, transport: transport)
    }

    /// `?transport=udp` or `?transport=tcp`, nothing else.
    static func transport(_ query: Substring) throws(ICEServerError) -> Transport {
        let parts = query.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "transport" else { throw .badQuery }
        guard let transport = Transport(rawValue: parts[1].lowercased()) else {
            throw .unsupportedTransport(String(parts[1].prefix(16)))
        }
        return transport
    }

    /// The URI as RFC 7064/7065 write it, port and (for TURN) transport always spelled out.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let query = transport.map { "?transport=\($0.rawValue)" } ?? ""
        return "\(scheme.rawValue):\(shownHost):\(port)\(query)"
    }
}

/// `host [":" port]` of RFC 3986 section 3.2.2 and 3.2.3, as ICE server URIs use it.
enum HostAndPort {
    static func parse(_ text: Substring) throws(ICEServerError) -> (host: String, port: UInt16?) {
        var host = text
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw .badHost }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            guard isIPv6Literal(host) else { throw .badHost }
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badHost }
                portText = after.dropFirst()
            }
        } else {
            if let colon = host.lastIndex(of: ":") {
                portText = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard isRegisteredName(host) else { throw .badHost }
        }
        var port: UInt16?
        if let portText {
            guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = UInt16(portText), value > 0
            else { throw .badPort }
            port = value
        }
        return (host.lowercased(), port)
    }

    /// Letters, digits, `-`, `.` and `_` (an IPv4 address is one too), 1 to 253 of them.
    static func isRegisteredName(_ text: Substring) -> Bool {
        (1...253).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    /// Hex digits, `:` and `.` (an embedded IPv4 tail), at least two colons; the ICE agent checks
    /// the address itself when it resolves it.
    static func isIPv6Literal(_ text: Substring) -> Bool {
        (2...45).contains(text.utf8.count) && text.utf8.filter { $0 == UInt8(ascii: ":") }.count >= 2
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
                    || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
    }
}
