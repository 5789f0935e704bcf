/// The STUN and TURN servers a WHIP or WHEP endpoint offers in `Link` header fields with
/// `rel="ice-server"` (RFC 9725 section 4.6), read and written per RFC 8288 section 3:
///
///     Link       = #link-value
///     link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
///     link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
///
///     Link: <turn:turn.example.net?transport=udp>; rel="ice-server";
///           username="user"; credential="myPassword"; credential-type="password"
///
/// The target is an RFC 7064/7065 URI; `username` and `credential` are the TURN server's
/// long-term credentials. Only the first `rel` counts (RFC 8288 section 3.3), and relation types
/// compare without case. Links of other relations are skipped; an ice-server link whose URI or
/// credentials are unusable is skipped and reported, by its position only (it may hold a
/// credential). A field whose syntax breaks is reported and dropped whole, since where its next
/// link starts is then unknown. Parsing is bounded and never traps.
public struct ICEServerLinks: Sendable, Hashable {
    /// The usable servers, in the order offered.
    public var servers: [ICEServer]
    /// One line per link or field that was skipped, naming it by position.
    public var problems: [String]

    public static let maximumFieldBytes = 16 * 1024
    public static let maximumLinks = 32
    static let maximumParameters = 16

    public init(servers: [ICEServer] = [], problems: [String] = []) {
        self.servers = servers
        self.problems = problems
    }

    /// Reads the values of every `Link` field of a response, in order.
    public init(fieldValues: [String]) {
        self.init()
        var linkNumber = 0
        for (fieldIndex, value) in fieldValues.enumerated() {
            let field = "Link header \(fieldIndex + 1)"
            guard value.utf8.count <= Self.maximumFieldBytes else {
                problems.append("\(field) ignored: longer than \(Self.maximumFieldBytes) bytes")
                continue
            }
            let links: [LinkValue]
            do throws(LinkSyntaxError) {
                var reader = LinkReader(Array(value.utf8))
                links = try reader.links(limit: Self.maximumLinks - linkNumber)
            } catch {
                problems.append("\(field) ignored: \(error)")
                continue
            }
            for link in links {
                linkNumber += 1
                guard link.isICEServer else { continue }
                do throws(ICEServerError) {
                    servers.append(try link.server())
                } catch {
                    problems.append("ice-server link \(linkNumber) ignored: \(error)")
                }
            }
        }
    }

    /// One field value per server, as an endpoint sends them (RFC 9725 section 4.6).
    public static func fieldValues(for servers: [ICEServer]) -> [String] {
        servers.map { server in
            var value = "<\(server.uri)>; rel=\"ice-server\""
            if let username = server.username, let credential = server.credential {
                value += "; username=\(quotedString(username)); credential=\(quotedString(credential)); credential-type=\"password\""
            }
            return value
        }
    }

    /// RFC 9110 section 5.6.4: `"` and `\` escaped.
    static func quotedString(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}

/// One `<target>; param=value...` of a Link field, parameters lowercased, first of each kept.
struct LinkValue {
    var target: String
    var parameters: [(name: String, value: String?)] = []

    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    var isICEServer: Bool {
        guard let rel = parameter("rel") else { return false }
        return rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).contains("ice-server")
    }

    func server() throws(ICEServerError) -> ICEServer {
        let uri = try ICEServerURI(parsing: target)
        guard uri.scheme.isTURN else { return try ICEServer(uri: uri) }
        if let type = parameter("credential-type"), type.lowercased() != "password" { throw .turnWithoutCredentials }
        return try ICEServer(uri: uri, username: parameter("username"), credential: parameter("credential"))
    }
}

struct LinkSyntaxError: Error, CustomStringConvertible {
    let description: String
}

/// A cursor over a field value's bytes.
struct LinkReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func links(limit: Int) throws(LinkSyntaxError) -> [LinkValue] {
        var links: [LinkValue] = []
        while true {
            skipWhitespaceAndCommas()
            guard index < bytes.count else { return links }
            guard links.count < limit else { throw LinkSyntaxError(description: "more than \(ICEServerLinks.maximumLinks) links") }
            links.append(try link())
            skipWhitespace()
            if index < bytes.count {
                guard bytes[index] == UInt8(ascii: ",") else { throw LinkSyntaxError(description: "expected \",\" between links") }
            }
        }
    }

    private mutating func link() throws(LinkSyntaxError) -> LinkValue {
        guard bytes[index] == UInt8(ascii: "<") else { throw LinkSyntaxError(description: "a link starts with \"<\"") }
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
            guard bytes[index] > 0x20, bytes[index] != 0x7F, bytes[index] != UInt8(ascii: "<") else {
                throw LinkSyntaxError(description: "a link target holds a blank, a control character or \"<\"")
            }
            index += 1
        }
        guard index < bytes.count else { throw LinkSyntaxError(description: "a link target has no closing \">\"") }
        var link = LinkValue(target: String(decoding: bytes[start..<index], as: UTF8.self))
        index += 1
        var parameterCount = 0
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else { return link }
            index += 1
            skipWhitespace()
            parameterCount += 1
            guard parameterCount <= ICEServerLinks.maximumParameters else {
                throw LinkSyntaxError(description: "a link has more than \(ICEServerLinks.maximumParameters) parameters")
            }
            let name = try token().lowercased()
            skipWhitespace()
            var value: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                value = index < bytes.count && bytes[index] == UInt8(ascii: "\"") ? try quotedString() : try token()
            }
            // RFC 8288 section 3.3 keeps the first rel; the first of any other is as good.
            if !link.parameters.contains(where: { $0.name == name }) { link.parameters.append((name, value)) }
        }
    }

    private mutating func token() throws(LinkSyntaxError) -> String {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        guard index > start else { throw LinkSyntaxError(description: "expected a parameter name or value") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// RFC 9110 section 5.6.4: qdtext and quoted-pairs between double quotes.
    private mutating func quotedString() throws(LinkSyntaxError) -> String {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count, Self.isQuotable(bytes[index]) else {
                    throw LinkSyntaxError(description: "a quoted string ends in a lone \"\\\"")
                }
                value.append(bytes[index])
                index += 1
            default:
                guard Self.isQuotable(byte) else { throw LinkSyntaxError(description: "a quoted string holds a control character") }
                value.append(byte)
            }
        }
        throw LinkSyntaxError(description: "a quoted string has no closing quote")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func skipWhitespaceAndCommas() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") { index += 1 }
    }

    /// tchar (RFC 9110 section 5.6.2).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// HTAB, SP, VCHAR and obs-text.
    static func isQuotable(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }
}
