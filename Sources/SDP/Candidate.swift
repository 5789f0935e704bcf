/// An ICE candidate, `a=candidate:` (RFC 8839 section 5.1):
///
///     candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
///               [raddr <address>] [rport <port>] *(<extension name> <extension value>)
///
/// Extensions such as `generation 0`, `network-id 1`, `ufrag x` or `tcptype passive`
/// (RFC 6544) are kept in order. The address may be an IP literal or an mDNS name.
public struct Candidate: Sendable, Hashable, CustomStringConvertible {
    /// 1…32 characters (RFC 8839 section 5.1); the same for candidates of one base and server.
    public var foundation: String
    /// 1 for RTP; 2 for RTCP without `rtcp-mux`.
    public var componentID: UInt16
    /// `udp` (browsers) or `UDP` (RFC 8839), or `tcp` (RFC 6544), as written.
    public var transport: String
    public var priority: UInt32
    public var address: String
    public var port: UInt16
    public var type: CandidateType
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    public var extensions: [CandidateExtension]

    public init(
        foundation: String, componentID: UInt16 = 1, transport: String = "udp", priority: UInt32, address: String,
        port: UInt16, type: CandidateType, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
        extensions: [CandidateExtension] = []
    ) {
        self.foundation = foundation
        self.componentID = componentID
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    public var isUDP: Bool { transport.lowercased() == "udp" }

    /// `generation N` (libwebrtc's ICE restart counter), when present.
    public var generation: UInt32? {
        extensionValue("generation").flatMap { SDPText.unsigned(Substring($0), as: UInt32.self) }
    }

    /// The value of the first extension called `name`.
    public func extensionValue(_ name: String) -> String? {
        extensions.first { $0.name == name }?.value
    }

    /// The attribute value, without `candidate:`.
    public var sdpValue: String {
        var parts = [foundation, String(componentID), transport, String(priority), address, String(port), "typ", type.sdpValue]
        if let relatedAddress { parts += ["raddr", relatedAddress] }
        if let relatedPort { parts += ["rport", String(relatedPort)] }
        for item in extensions { parts += [item.name, item.value] }
        return parts.joined(separator: " ")
    }

    public var description: String { "candidate:" + sdpValue }

    /// Parses an attribute value, with or without the `candidate:` prefix a browser's
    /// `RTCIceCandidate.candidate` string carries.
    public init(sdpValue: some StringProtocol) throws(SDPParseError) {
        do throws(SDPParseError.Reason) {
            let text = Substring(sdpValue)
            try self.init(parsing: text.hasPrefix("candidate:") ? text.dropFirst("candidate:".count) : text)
        } catch {
            throw SDPParseError(lineNumber: nil, reason: error)
        }
    }

    static let maxFoundationLength = 32
    /// Well past the handful of extensions any stack writes; bounds the work per line.
    static let maxExtensions = 32

    init(parsing value: Substring) throws(SDPParseError.Reason) {
        let field = "a=candidate"
        let parts = SDPText.tokens(value)
        guard parts.count >= 8 else {
            throw .invalid(field: field, problem: "expected \"<foundation> <component> <transport> <priority> <address> <port> typ <type>\", found \(parts.count) fields")
        }
        guard parts[0].count <= Self.maxFoundationLength else {
            throw .invalid(field: field, problem: "a foundation has at most \(Self.maxFoundationLength) characters")
        }
        foundation = String(parts[0])
        componentID = try SDPText.number(parts[1], as: UInt16.self, in: 1...256, field: field, what: "a component id")
        transport = String(parts[2])
        priority = try SDPText.number(parts[3], as: UInt32.self, field: field, what: "a priority")
        address = String(parts[4])
        port = try SDPText.number(parts[5], as: UInt16.self, field: field, what: "a port")
        guard parts[6] == "typ" else { throw .invalid(field: field, problem: "expected \"typ\", found \(quoted(parts[6]))") }
        type = CandidateType(sdpValue: parts[7])
        let pairs = parts.dropFirst(8)
        guard pairs.count % 2 == 0 else {
            throw .invalid(field: field, problem: "\(quoted(pairs.last ?? "")) has no value")
        }
        guard pairs.count / 2 <= Self.maxExtensions else {
            throw .limitExceeded(what: "a=candidate extensions", limit: Self.maxExtensions)
        }
        var extensions: [CandidateExtension] = []
        var index = pairs.startIndex
        while index < pairs.endIndex {
            let (name, value) = (pairs[index], pairs[index + 1])
            index += 2
            // raddr and rport come first (RFC 8839 section 5.1); later ones are plain extensions.
            if name == "raddr", relatedAddress == nil, relatedPort == nil, extensions.isEmpty {
                relatedAddress = String(value)
            } else if name == "rport", relatedPort == nil, extensions.isEmpty {
                relatedPort = try SDPText.number(value, as: UInt16.self, field: field, what: "a related port")
            } else {
                extensions.append(CandidateExtension(name: String(name), value: String(value)))
            }
        }
        self.extensions = extensions
    }
}

/// `typ` of a candidate (RFC 8445 section 5.1.1).
public enum CandidateType: Sendable, Hashable {
    case host
    /// `srflx`: the address a STUN server saw.
    case serverReflexive
    /// `prflx`: learnt from a connectivity check.
    case peerReflexive
    /// `relay`: allocated on a TURN server.
    case relay
    case other(String)

    public var sdpValue: String {
        switch self {
        case .host: "host"
        case .serverReflexive: "srflx"
        case .peerReflexive: "prflx"
        case .relay: "relay"
        case .other(let value): value
        }
    }

    init(sdpValue: Substring) {
        switch sdpValue {
        case "host": self = .host
        case "srflx": self = .serverReflexive
        case "prflx": self = .peerReflexive
        case "relay": self = .relay
        default: self = .other(String(sdpValue))
        }
    }
}

/// A `<name> <value>` pair after the candidate's type.
public struct CandidateExtension: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
