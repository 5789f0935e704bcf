/// Why a STUN/TURN server URI, a `--turn` URL or an ICE server `Link` header was refused. The
/// text never repeats the input: a TURN URL carries a password, which must not reach a log.
public enum ICEServerError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLong(limit: Int)
    /// Not `stun:`, `stuns:`, `turn:` or `turns:` (nor `turn://`, `turns://` for a `--turn` URL).
    case unknownScheme
    /// `stun://host`: RFC 7064/7065 URIs have no `//`.
    case authorityForm
    case queryOnSTUN
    case badQuery
    case unsupportedTransport(String)
    case badHost
    case badPort
    /// A `--turn` URL without `USER:PASS@`, or with an empty user or password.
    case missingCredentials
    /// A `%` not followed by two hex digits, or text that does not decode to UTF-8.
    case badPercentEncoding
    /// A control character (NUL, CR, LF...) in a user name or password.
    case controlCharacter
    /// A TURN server without a user name and password.
    case turnWithoutCredentials

    public var description: String {
        switch self {
        case .tooLong(let limit): "longer than \(limit) bytes"
        case .unknownScheme: "the scheme is not stun:, stuns:, turn: or turns:"
        case .authorityForm: "STUN and TURN URIs have no \"//\" (RFC 7064, RFC 7065): write turn:HOST:PORT"
        case .queryOnSTUN: "a STUN URI takes no query"
        case .badQuery: "the only query a TURN URI takes is ?transport=udp or ?transport=tcp"
        case .unsupportedTransport(let transport): "transport \"\(transport)\" is not supported (udp or tcp)"
        case .badHost: "the host is not a name, an IPv4 address or an IPv6 address in brackets"
        case .badPort: "the port is not a number from 1 to 65535"
        case .missingCredentials: "it needs a user name and a password, USER:PASS@"
        case .badPercentEncoding: "a % is not followed by two hex digits of UTF-8"
        case .controlCharacter: "the user name or password contains a control character"
        case .turnWithoutCredentials: "a TURN server needs a user name and a credential"
        }
    }
}
