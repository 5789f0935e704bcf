/// Whether a RID's stream is sent or received by the side that writes the line (RFC 8851 §4).
public enum RIDDirection: String, Sendable, Hashable {
    case send, recv

    /// The direction the other side writes for the same stream.
    public var reversed: RIDDirection { self == .send ? .recv : .send }
}

/// `a=rid:<rid-id> <send|recv> [pt=<fmt>,...;][<restriction>;...]` (RFC 8851 §4, §10): one RTP
/// stream of an m= section, named by its RID, with the formats it may use and restrictions on
/// it such as `max-width=1280` (§5).
///
/// ```
/// rid-syntax        = %s"a=rid:" rid-id SP rid-dir [ rid-pt-param-list / rid-param-list ]
/// rid-id            = 1*(alpha-numeric / "-" / "_")
/// rid-pt-param-list = SP rid-fmt-list *( ";" rid-param )
/// rid-param-list    = SP rid-param *( ";" rid-param )
/// rid-fmt-list      = %s"pt=" fmt *( "," fmt )
/// rid-param-other   = 1*(alpha-numeric / "-") [ "=" param-val ]
/// ```
public struct RIDAttribute: Sendable, Hashable {
    /// RFC 8851 §10 sets no length; the RTP extension carries at most 255 bytes (RFC 8852 §3.1).
    public static let maximumIDLength = 255

    public var id: String
    public var direction: RIDDirection
    /// `pt=`: the payload types the stream may use; empty: any of the section's.
    public var payloadTypes: [UInt8]
    /// The restrictions (§5), such as `max-width`, in the order written.
    public var restrictions: [FormatParameter]

    public init(id: String, direction: RIDDirection, payloadTypes: [UInt8] = [], restrictions: [FormatParameter] = []) {
        self.id = id
        self.direction = direction
        self.payloadTypes = payloadTypes
        self.restrictions = restrictions
    }

    /// `max-width` and `max-height` (RFC 8851 §5), as integers; nil when absent or not a number.
    public var maxWidth: Int? { integerRestriction("max-width") }
    public var maxHeight: Int? { integerRestriction("max-height") }

    private func integerRestriction(_ name: String) -> Int? {
        restrictions.first { $0.name == name }?.value.flatMap { SDPText.unsigned(Substring($0), as: UInt32.self) }.map(Int.init)
    }

    /// Whether `text` is a rid-id (RFC 8851 §10) of at most `maximumIDLength` characters.
    public static func isValidID(_ text: some StringProtocol) -> Bool {
        (1...maximumIDLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    var sdpValue: String {
        var parameters = payloadTypes.isEmpty ? [] : ["pt=" + payloadTypes.map(String.init).joined(separator: ",")]
        parameters += restrictions.map(\.sdpText)
        return parameters.isEmpty ? "\(id) \(direction.rawValue)" : "\(id) \(direction.rawValue) \(parameters.joined(separator: ";"))"
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let field = "a=rid"
        let (idText, rest) = SDPText.firstToken(sdpValue)
        let (directionText, parametersText) = SDPText.firstToken(rest)
        guard Self.isValidID(idText) else {
            throw .invalid(field: field, problem: "expected a rid-id of 1…255 letters, digits, - or _, found \(quoted(idText))")
        }
        guard let direction = RIDDirection(rawValue: String(directionText)) else {
            throw .invalid(field: field, problem: "expected send or recv after the rid-id, found \(quoted(directionText))")
        }
        var parameters = FormatParameter.list(parametersText)
        var payloadTypes: [UInt8] = []
        if let first = parameters.first, first.name == "pt" {
            for format in (first.value ?? "").unicodeScalars.split(separator: ",", omittingEmptySubsequences: false) {
                payloadTypes.append(try SDPText.number(Substring(format), as: UInt8.self, in: 0...127, field: field, what: "a payload type"))
            }
            parameters.removeFirst()
        }
        for parameter in parameters where !Self.isRestrictionName(parameter.name) || parameter.value?.isEmpty == true {
            throw .invalid(field: field, problem: "expected <name>[=<value>] restrictions, found \(quoted(parameter.sdpText))")
        }
        self.init(id: String(idText), direction: direction, payloadTypes: payloadTypes, restrictions: parameters)
    }

    /// RFC 8851 §10: `1*(alpha-numeric / "-")`; `pt` only first.
    private static func isRestrictionName(_ name: String) -> Bool {
        !name.isEmpty && name != "pt" && name.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}

/// One RID in an `a=simulcast` list; `~` before it pauses the stream (RFC 8853 §5.1).
public struct SimulcastRID: Sendable, Hashable {
    public var rid: String
    public var isPaused: Bool

    public init(_ rid: String, isPaused: Bool = false) {
        self.rid = rid
        self.isPaused = isPaused
    }

    var sdpText: String { isPaused ? "~" + rid : rid }
}

/// `a=simulcast:<send|recv> <streams> [<recv|send> <streams>]` (RFC 8853 §5.1): the simulcast
/// streams of an m= section, each a list of alternative RIDs.
///
/// ```
/// sc-value     = ( sc-send [SP sc-recv] ) / ( sc-recv [SP sc-send] )
/// sc-send      = %s"send" SP sc-str-list
/// sc-recv      = %s"recv" SP sc-str-list
/// sc-str-list  = sc-alt-list *( ";" sc-alt-list )
/// sc-alt-list  = sc-id *( "," sc-id )
/// sc-id        = [ "~" ] rid-id
/// ```
public struct SimulcastAttribute: Sendable, Hashable {
    /// The streams the writer sends: `;`-separated streams, each `,`-separated alternatives.
    public var send: [[SimulcastRID]]
    /// The streams the writer receives.
    public var receive: [[SimulcastRID]]

    public init(send: [[SimulcastRID]] = [], receive: [[SimulcastRID]] = []) {
        self.send = send
        self.receive = receive
    }

    /// The streams in `direction`.
    public func streams(_ direction: RIDDirection) -> [[SimulcastRID]] { direction == .send ? send : receive }

    var sdpValue: String {
        let lists = [(RIDDirection.send, send), (.recv, receive)].filter { !$0.1.isEmpty }.map { direction, streams in
            "\(direction.rawValue) " + streams.map { $0.map(\.sdpText).joined(separator: ",") }.joined(separator: ";")
        }
        return lists.joined(separator: " ")
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let field = "a=simulcast"
        let parts = SDPText.tokens(sdpValue)
        guard parts.count == 2 || parts.count == 4 else {
            throw .invalid(field: field, problem: "expected \"send|recv <rid>[,<rid>][;<rid>]\", found \(quoted(sdpValue))")
        }
        var send: [[SimulcastRID]]?
        var receive: [[SimulcastRID]]?
        for pair in stride(from: 0, to: parts.count, by: 2) {
            let streams = try Self.streams(parts[pair + 1], field: field)
            switch parts[pair] {
            case "send" where send == nil: send = streams
            case "recv" where receive == nil: receive = streams
            default:
                throw .invalid(field: field, problem: "expected send and recv at most once each, found \(quoted(parts[pair]))")
            }
        }
        self.init(send: send ?? [], receive: receive ?? [])
    }

    private static func streams(_ text: Substring, field: String) throws(SDPParseError.Reason) -> [[SimulcastRID]] {
        var streams: [[SimulcastRID]] = []
        for stream in text.unicodeScalars.split(separator: ";", omittingEmptySubsequences: false) {
            var alternatives: [SimulcastRID] = []
            for alternative in stream.split(separator: ",", omittingEmptySubsequences: false) {
                let text = Substring(alternative)
                let isPaused = text.hasPrefix("~")
                let rid = isPaused ? text.dropFirst() : text
                guard RIDAttribute.isValidID(rid) else {
                    throw .invalid(field: field, problem: "expected [~]<rid-id>, found \(quoted(text))")
                }
                alternatives.append(SimulcastRID(String(rid), isPaused: isPaused))
            }
            streams.append(alternatives)
        }
        return streams
    }
}
