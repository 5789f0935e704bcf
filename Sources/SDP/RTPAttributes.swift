/// An RTP header extension negotiated with `a=extmap:<id>[/<direction>] <URI> [<attributes>]`
/// (RFC 8285 section 5).
public struct HeaderExtensionMapping: Sendable, Hashable {
    /// 1…14 for one-byte headers, up to 255 for two-byte headers.
    public var id: UInt8
    public var uri: String
    /// Set when the extension flows one way only (RFC 8285 section 6).
    public var direction: MediaDirection?
    /// Extension attributes after the URI, kept as written.
    public var attributes: String?

    public init(id: UInt8, uri: String, direction: MediaDirection? = nil, attributes: String? = nil) {
        self.id = id
        self.uri = uri
        self.direction = direction
        self.attributes = attributes
    }

    var sdpValue: String {
        var value = "\(id)"
        if let direction { value += "/\(direction.rawValue)" }
        value += " \(uri)"
        if let attributes { value += " \(attributes)" }
        return value
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let field = "a=extmap"
        let (head, rest) = SDPText.firstToken(sdpValue)
        let (uriText, attributesText) = SDPText.firstToken(rest)
        guard !uriText.isEmpty else {
            throw .invalid(field: field, problem: "expected \"<id>[/<direction>] <URI>\", found \(quoted(sdpValue))")
        }
        let idText = SDPText.split(head, at: "/")?.head ?? head
        id = try SDPText.number(idText, as: UInt8.self, in: 1...255, field: field, what: "an extension id")
        if let directionText = SDPText.split(head, at: "/")?.tail {
            guard let direction = MediaDirection(rawValue: String(directionText)) else {
                throw .invalid(field: field, problem: "unknown direction \(quoted(directionText))")
            }
            self.direction = direction
        }
        uri = String(uriText)
        attributes = attributesText.isEmpty ? nil : String(attributesText)
    }
}

/// `a=rtcp:<port> [IN <addrtype> <address>]` (RFC 3605 section 2.1): where RTCP goes when it is
/// not on RTP port + 1. JSEP writes `a=rtcp:9 IN IP4 0.0.0.0` beside `a=rtcp-mux`.
public struct RTCPAttribute: Sendable, Hashable {
    public var port: UInt16
    public var address: ConnectionAddress?

    public init(port: UInt16, address: ConnectionAddress? = nil) {
        self.port = port
        self.address = address
    }

    var sdpValue: String { address.map { "\(port) IN \($0.sdpText)" } ?? "\(port)" }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = SDPText.tokens(sdpValue)
        guard parts.count == 1 || parts.count == 4 else {
            throw .invalid(field: "a=rtcp", problem: "expected \"<port> [IN IP4|IP6 <address>]\", found \(quoted(sdpValue))")
        }
        port = try SDPText.number(parts[0], as: UInt16.self, field: "a=rtcp", what: "a port")
        if parts.count == 4 { address = try ConnectionAddress(parts[1...], field: "a=rtcp") }
    }
}

/// One `a=ssrc:<ssrc> <attribute>[:<value>]` entry (RFC 5576 section 4.1), such as `cname:x`.
public struct SourceAttribute: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// The `a=ssrc` lines of one synchronization source (RFC 5576 section 4.1), in order.
public struct SourceDescription: Sendable, Hashable {
    public var ssrc: UInt32
    public var attributes: [SourceAttribute]

    public init(ssrc: UInt32, attributes: [SourceAttribute]) {
        self.ssrc = ssrc
        self.attributes = attributes
    }

    /// `a=ssrc:SSRC cname:NAME`, the one attribute RFC 5576 makes mandatory.
    public init(ssrc: UInt32, cname: String) {
        self.init(ssrc: ssrc, attributes: [SourceAttribute(name: "cname", value: cname)])
    }

    public var cname: String? { attributes.first { $0.name == "cname" }?.value }

    var sdpValues: [String] {
        guard !attributes.isEmpty else { return ["\(ssrc)"] }
        return attributes.map { attribute in attribute.value.map { "\(ssrc) \(attribute.name):\($0)" } ?? "\(ssrc) \(attribute.name)" }
    }

    /// The SSRC and one attribute of an `a=ssrc` line; the attribute is nil for a bare `a=ssrc:<ssrc>`.
    static func parseLine(_ value: Substring) throws(SDPParseError.Reason) -> (UInt32, SourceAttribute?) {
        let (ssrcText, rest) = SDPText.firstToken(value)
        let ssrc = try SDPText.number(ssrcText, as: UInt32.self, field: "a=ssrc", what: "an SSRC")
        guard !rest.isEmpty else { return (ssrc, nil) }
        if let (name, attributeValue) = SDPText.split(rest, at: ":") {
            return (ssrc, SourceAttribute(name: String(name), value: String(attributeValue)))
        }
        return (ssrc, SourceAttribute(name: String(rest)))
    }
}

/// `a=ssrc-group:<semantics> <ssrc>...` (RFC 5576 section 4.2), such as `FID <media> <rtx>`
/// (RFC 4588 section 8.3) that ties a retransmission stream to its media stream.
public struct SSRCGroup: Sendable, Hashable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    /// `FID <media> <retransmission>`.
    public static func flowIdentification(media: UInt32, retransmission: UInt32) -> SSRCGroup {
        SSRCGroup(semantics: "FID", ssrcs: [media, retransmission])
    }

    var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = SDPText.tokens(sdpValue)
        guard let first = parts.first, parts.count >= 2 else {
            throw .invalid(field: "a=ssrc-group", problem: "expected \"<semantics> <ssrc>...\", found \(quoted(sdpValue))")
        }
        semantics = String(first)
        var ssrcs: [UInt32] = []
        for text in parts.dropFirst() { ssrcs.append(try SDPText.number(text, as: UInt32.self, field: "a=ssrc-group", what: "an SSRC")) }
        self.ssrcs = ssrcs
    }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 section 2): the MediaStream a track belongs to.
/// A stream id of `-` means none.
public struct MediaStreamID: Sendable, Hashable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    var sdpValue: String { trackID.map { "\(streamID) \($0)" } ?? streamID }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = SDPText.tokens(sdpValue)
        guard parts.count == 1 || parts.count == 2 else {
            throw .invalid(field: "a=msid", problem: "expected \"<stream id> [<track id>]\", found \(quoted(sdpValue))")
        }
        streamID = String(parts[0])
        trackID = parts.count == 2 ? String(parts[1]) : nil
    }
}

/// `a=group:<semantics> <mid>...` (RFC 5888 section 5), such as `BUNDLE 0 1` (RFC 9143).
public struct MediaGroup: Sendable, Hashable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public static func bundle(_ mids: [String]) -> MediaGroup { MediaGroup(semantics: "BUNDLE", mids: mids) }

    public var isBundle: Bool { semantics == "BUNDLE" }

    var sdpValue: String { ([semantics] + mids).joined(separator: " ") }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let parts = SDPText.tokens(sdpValue)
        guard let first = parts.first else { throw .invalid(field: "a=group", problem: "no semantics") }
        semantics = String(first)
        mids = parts.dropFirst().map(String.init)
    }
}

/// `a=ice-ufrag` and `a=ice-pwd` (RFC 8839 section 5.4): the ICE agent's short-term credentials
/// as a description carries them (WebRTC's `RTCIceParameters`).
public struct ICEParameters: Sendable, Hashable {
    public var usernameFragment: String
    public var password: String

    public init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }
}
