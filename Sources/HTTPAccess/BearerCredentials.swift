/// The credentials of an `Authorization` header that uses the Bearer scheme (RFC 6750 §2.1):
///
/// ```
/// credentials = "Bearer" 1*SP b64token
/// b64token    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
/// ```
///
/// The scheme is matched without case (RFC 9110 §11.1). A header longer than `maximumLength` is
/// refused before it is looked at, so a client cannot make us scan an arbitrarily long value.
/// `description` never shows the token: it must not reach a log.
public struct BearerCredentials: Sendable, Equatable, CustomStringConvertible {
    /// Longer headers are refused (`BearerCredentialsError.oversized`); tokens are far shorter.
    public static let maximumLength = 4096

    /// The token, as the client sent it.
    public let token: [UInt8]

    public init(parsing header: String) throws(BearerCredentialsError) {
        let bytes = Array(header.utf8)
        guard bytes.count <= Self.maximumLength else { throw .oversized(bytes: bytes.count) }
        let scheme = Array("bearer".utf8)
        guard bytes.count >= scheme.count, zip(bytes, scheme).allSatisfy({ Self.lowercased($0.0) == $0.1 }) else {
            throw .notBearer
        }
        var index = scheme.count
        guard index < bytes.count else { throw .malformed }
        guard bytes[index] == UInt8(ascii: " ") else { throw .notBearer }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        let token = Array(bytes[index...])
        guard Self.isB64Token(token) else { throw .malformed }
        self.token = token
    }

    public init(token: [UInt8]) {
        self.token = token
    }

    /// The header value that carries `token`.
    public var headerValue: String { "Bearer " + String(decoding: token, as: UTF8.self) }

    public var description: String { "Bearer credentials (\(token.count) bytes)" }

    /// `b64token` of RFC 6750 §2.1: at least one character of the set, then any number of `=`.
    public static func isB64Token(_ token: some Collection<UInt8>) -> Bool {
        var padding = false
        var characters = 0
        for byte in token {
            if byte == UInt8(ascii: "=") {
                padding = true
            } else if padding || !isTokenCharacter(byte) {
                return false
            } else {
                characters += 1
            }
        }
        return characters > 0
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}

/// Why an `Authorization` header holds no usable bearer token.
public enum BearerCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another scheme (Basic, Digest): for this server, no bearer credentials at all.
    case notBearer
    /// `Bearer` followed by something that is not a `b64token`.
    case malformed
    case oversized(bytes: Int)

    public var description: String {
        switch self {
        case .notBearer: "the Authorization header does not use the Bearer scheme"
        case .malformed: "the Authorization header's bearer token is malformed (RFC 6750 section 2.1)"
        case .oversized(let bytes): "the Authorization header is \(bytes) bytes long, more than \(BearerCredentials.maximumLength)"
        }
    }
}
