/// The `o=` fields (RFC 8866 section 5.2). The session id and version are numbers the writer chooses;
/// NTP-format timestamps are suggested but any stable value works (JSEP: a random 63-bit id).
public struct Origin: Sendable, Hashable {
    public var username: String
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    public var address: ConnectionAddress

    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64 = 1, address: ConnectionAddress) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.address = address
    }

    var sdpValue: String { "\(username) \(sessionID) \(sessionVersion) IN \(address.sdpText)" }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = try SDPText.tokens(
            sdpValue, count: 6, field: "o=", form: "<username> <sess-id> <sess-version> IN <addrtype> <address>")
        username = String(parts[0])
        sessionID = try SDPText.number(parts[1], as: UInt64.self, field: "o=", what: "a session id")
        sessionVersion = try SDPText.number(parts[2], as: UInt64.self, field: "o=", what: "a session version")
        address = try ConnectionAddress(parts[3...], field: "o=")
    }
}

/// A unicast address with its SDP address type (RFC 8866 section 5.7). A multicast TTL or count
/// (`224.2.1.1/127`) stays part of the address text.
public enum ConnectionAddress: Sendable, Hashable {
    case ipv4(String)
    case ipv6(String)

    /// `IP4 127.0.0.1` or `IP6 ::1`.
    public var sdpText: String {
        switch self {
        case .ipv4(let address): "IP4 \(address)"
        case .ipv6(let address): "IP6 \(address)"
        }
    }

    public var address: String {
        switch self {
        case .ipv4(let address), .ipv6(let address): address
        }
    }

    /// `0.0.0.0`: the address JSEP writes when no candidate is known yet (RFC 8829 section 5.2.1).
    public static let unspecifiedIPv4 = ConnectionAddress.ipv4("0.0.0.0")

    /// From `IN <addrtype> <address>`.
    init(_ parts: ArraySlice<Substring>, field: String) throws(SDPParseError.Reason) {
        let parts = Array(parts)
        guard parts.count == 3, parts[0] == "IN" else {
            throw .invalid(field: field, problem: "expected \"IN IP4|IP6 <address>\", found \(quoted(parts.joined(separator: " ")))")
        }
        switch parts[1] {
        case "IP4": self = .ipv4(String(parts[2]))
        case "IP6": self = .ipv6(String(parts[2]))
        default: throw .invalid(field: field, problem: "unknown address type \(quoted(parts[1]))")
        }
    }

    init(sdpValue: Substring, field: String) throws(SDPParseError.Reason) {
        try self.init(ArraySlice(SDPText.tokens(sdpValue)), field: field)
    }
}

/// `b=<modifier>:<value>` (RFC 8866 section 5.8, RFC 3890).
public enum Bandwidth: Sendable, Hashable {
    /// `b=AS:`: the application's total, in kilobits per second.
    case applicationSpecific(kbps: UInt64)
    /// `b=TIAS:` (RFC 3890): the media alone, without IP, UDP or RTP headers, in bits per second.
    case transportIndependent(bps: UInt64)
    /// Any other modifier (`CT`, `RS`, `RR`, ...), kept as written.
    case other(modifier: String, value: UInt64)

    var sdpValue: String {
        switch self {
        case .applicationSpecific(let kbps): "AS:\(kbps)"
        case .transportIndependent(let bps): "TIAS:\(bps)"
        case .other(let modifier, let value): "\(modifier):\(value)"
        }
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        guard let (modifier, text) = SDPText.split(sdpValue, at: ":"), !modifier.isEmpty else {
            throw .invalid(field: "b=", problem: "expected \"<modifier>:<value>\", found \(quoted(sdpValue))")
        }
        let value = try SDPText.number(text, as: UInt64.self, field: "b=", what: "a bandwidth")
        switch modifier {
        case "AS": self = .applicationSpecific(kbps: value)
        case "TIAS": self = .transportIndependent(bps: value)
        default: self = .other(modifier: String(modifier), value: value)
        }
    }
}

/// `t=<start> <stop>` (RFC 8866 section 5.9) in NTP seconds; `0 0` is a permanent session.
public struct Timing: Sendable, Hashable {
    public var startTime: UInt64
    public var stopTime: UInt64

    public init(startTime: UInt64 = 0, stopTime: UInt64 = 0) {
        self.startTime = startTime
        self.stopTime = stopTime
    }

    public static let permanent = Timing()

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = try SDPText.tokens(sdpValue, count: 2, field: "t=", form: "<start> <stop>")
        startTime = try SDPText.number(parts[0], as: UInt64.self, field: "t=", what: "a start time")
        stopTime = try SDPText.number(parts[1], as: UInt64.self, field: "t=", what: "a stop time")
    }
}

/// A field this model does not type, kept as written: `i=`, `u=`, `e=`, `p=`, `r=`, `z=`, `k=`,
/// or a letter RFC 8866 does not define. The writer puts `i=`, `u=`, `e=` and `p=` before `c=`
/// and the others after `t=` (session) or `b=` (media), as RFC 8866 section 5 orders them.
public struct SDPField: Sendable, Hashable {
    public var type: Character
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }

    var sdpLine: String { "\(type)=\(value)" }
    /// Session level: `i=`, `u=`, `e=` and `p=` come before `c=`.
    var comesBeforeConnection: Bool { "iuep".contains(type) }
    /// Media level: `i=` comes right after `m=`.
    var isInformation: Bool { type == "i" }

    /// `fields` with those `first` selects ahead of the rest, each group in its own order: the
    /// order the writer puts them in.
    static func inWritingOrder(_ fields: [SDPField], first: (SDPField) -> Bool) -> [SDPField] {
        fields.filter(first) + fields.filter { !first($0) }
    }
}

/// An attribute this model does not type, kept as written: `a=<name>` or `a=<name>:<value>`.
public struct Attribute: Sendable, Hashable {
    public var name: String
    /// Nil for a property attribute (`a=name`); the text after the colon otherwise.
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    var sdpLine: String { value.map { "a=\(name):\($0)" } ?? "a=\(name)" }
}
