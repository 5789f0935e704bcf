/// Why publishing to a WHIP endpoint (RFC 9725) or ending the session failed, in one line that
/// names the endpoint's answer.
public enum WHIPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint is no http(s) URL.
    case invalidURL(String)
    /// The endpoint answered 4xx or 5xx (or a status WHIP does not use): the status and the first
    /// line of its body, cut short.
    case status(code: Int, method: String, url: String, bodyLine: String)
    /// 429 or 503 with a `Retry-After`: the endpoint asks to come back after that many seconds.
    case retryLater(code: Int, method: String, url: String, bodyLine: String, seconds: Double)
    /// The 201 was not `application/sdp`.
    case wrongContentType(String?)
    /// A PATCH's 200 without an ICE fragment (RFC 9725 section 4.3.2).
    case wrongPatchAnswer(String)
    /// The 201 had no `Location` header, or one that does not resolve.
    case missingLocation
    case invalidLocation(String)
    /// The response body was larger than the limit.
    case responseTooLarge(limit: Int)
    case timeout(method: String, url: String, seconds: Double)
    case connectionRefused(url: String)
    /// Any other failure of the HTTP exchange (name resolution, a reset connection).
    case transport(method: String, url: String, detail: String)
    /// The TLS handshake failed: mostly a certificate that is not trusted or not the host's.
    case untrustedCertificate(url: String, detail: String)
    /// `--ca-file` cannot be used.
    case caFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "WHIP URL \"\(url)\" is not an http:// or https:// URL"
        case .status(let code, let method, let url, let bodyLine):
            "WHIP \(method) \(url) answered \(code)" + (bodyLine.isEmpty ? "" : ": \(bodyLine)")
                + (code == 401 || code == 403 ? " (check --bearer)" : "")
        case .retryLater(let code, let method, let url, let bodyLine, let seconds):
            "WHIP \(method) \(url) answered \(code)" + (bodyLine.isEmpty ? "" : ": \(bodyLine)")
                + " (retry after \(Self.seconds(seconds)) s)"
        case .wrongContentType(let type):
            "the WHIP endpoint answered with \(type.map { "Content-Type \($0)" } ?? "no Content-Type"), not application/sdp"
        case .wrongPatchAnswer(let why): "the WHIP endpoint's answer to an ICE restart \(why)"
        case .missingLocation: "the WHIP endpoint's 201 has no Location header, so the session could not be ended"
        case .invalidLocation(let value): "the WHIP endpoint's Location \"\(value)\" is not a usable URL"
        case .responseTooLarge(let limit): "the WHIP endpoint's response is larger than \(limit) bytes"
        case .timeout(let method, let url, let seconds):
            "WHIP \(method) \(url) got no answer within \(Self.seconds(seconds)) s (raise --http-timeout?)"
        case .connectionRefused(let url): "WHIP endpoint \(url) refused the connection (is the server running?)"
        case .transport(let method, let url, let detail): "WHIP \(method) \(url) failed: \(detail)"
        case .untrustedCertificate(let url, let detail):
            "the TLS handshake with \(url) failed: \(detail) (a certificate of a private CA needs --ca-file; the name in --whip must be one the certificate names)"
        case .caFile(let path, let reason): "--ca-file \(path) \(reason)"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension WHIPError {
    /// The HTTP status the endpoint answered, if it answered with an error.
    public var statusCode: Int? {
        switch self {
        case .status(let code, _, _, _), .retryLater(let code, _, _, _, _): code
        default: nil
        }
    }
}
