import AsyncHTTPClient
import Glibc
import ICEServers
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// A published session: the endpoint's answer and the resource to DELETE when done.
public struct WHIPSession: Sendable, Hashable {
    /// The SDP answer of the 201.
    public let answer: String
    /// The session's URL: the 201's `Location`, resolved against the endpoint URL.
    public let resource: ResourceURL
    /// The 201's `ETag`, naming the ICE session for PATCH's `If-Match` (RFC 9725 section 4.3).
    public let entityTag: String?
    /// The STUN and TURN servers the 201 offers in `Link` fields (RFC 9725 section 4.6).
    public let iceServers: ICEServerLinks

    public init(answer: String, resource: ResourceURL, entityTag: String? = nil, iceServers: ICEServerLinks = ICEServerLinks()) {
        self.answer = answer
        self.resource = resource
        self.entityTag = entityTag
        self.iceServers = iceServers
    }
}

/// What a PATCH did (RFC 9725 section 4.3).
public enum WHIPPatchOutcome: Sendable, Hashable {
    /// 204: the candidates were taken.
    case applied
    /// 200: the ICE restart was taken; the endpoint's fragment and its new ICE session's ETag.
    case restarted(fragment: String, entityTag: String?)
}

/// The client side of WHIP (RFC 9725): POST the SDP offer as `application/sdp` (with
/// `Authorization: Bearer` when given), expect `201 Created` with the answer and a `Location`,
/// and DELETE that resource to end the session; OPTIONS for the ICE servers an endpoint offers
/// before the offer, PATCH for trickle ICE and ICE restarts. Each exchange has a deadline and a
/// bounded response; every failure is a `WHIPError` that says what the endpoint did.
///
/// It owns its HTTP client, which does not retry a refused connection (an endpoint that is not
/// there is reported at once), and shuts it down when released. An `https://` endpoint's
/// certificate is verified against the system's trust store and its name checked; `caFile` adds
/// a private CA. Verification cannot be turned off.
public final class WHIPClient: Sendable {
    /// An answer is a few kB; a larger body is refused.
    public static let defaultMaximumResponseBytes = 256 * 1024
    /// At most this much of an error body is quoted.
    static let maximumQuotedBodyCharacters = 200

    public let endpoint: ResourceURL
    public let bearerToken: String?
    public let timeoutNs: Int64
    public let maximumResponseBytes: Int
    private let client: HTTPClient
    private let logger: Logger
    /// Seconds since the epoch, for a `Retry-After` given as a date.
    private let wallClock: @Sendable () -> Double

    /// - Parameters:
    ///   - endpoint: the WHIP endpoint's URL, `http://` or `https://`.
    ///   - timeoutNs: for each exchange, connecting included.
    ///   - caFile: PEM certificates of CAs to trust besides the system's.
    ///   - wallClock: seconds since the epoch, for a `Retry-After` given as a date.
    public init(
        endpoint: String, bearerToken: String? = nil, timeoutNs: Int64 = 10_000_000_000,
        maximumResponseBytes: Int = WHIPClient.defaultMaximumResponseBytes, caFile: String? = nil,
        logger: Logger = Logger(label: "camrtp.whip"), wallClock: @escaping @Sendable () -> Double = { Double(time(nil)) }
    ) throws(WHIPError) {
        guard let url = ResourceURL(parsing: endpoint) else { throw .invalidURL(endpoint) }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.certificates(try Self.certificates(in: caFile))] }
        self.wallClock = wallClock
        self.endpoint = url
        self.bearerToken = bearerToken
        self.timeoutNs = timeoutNs
        self.maximumResponseBytes = maximumResponseBytes
        self.logger = logger
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .nanoseconds(timeoutNs)
        configuration.tlsConfiguration = tls
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    private static func certificates(in caFile: String) throws(WHIPError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw .caFile(path: caFile, reason: "cannot be read or holds no PEM certificate (\(error))")
        }
        guard !certificates.isEmpty else { throw .caFile(path: caFile, reason: "holds no PEM certificate") }
        return certificates
    }

    deinit {
        try? client.syncShutdown()
    }

    /// POSTs `offer`; returns the answer and the session's resource.
    public func publish(offer: String) async throws(WHIPError) -> WHIPSession {
        var request = HTTPClientRequest(url: endpoint.description)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/sdp")
        request.headers.add(name: "Accept", value: "application/sdp")
        authorize(&request)
        request.body = .bytes(ByteBuffer(string: offer))
        let (response, body) = try await exchange(request, method: "POST", url: endpoint)
        guard response.status == .created else { throw failure(response, body: body, method: "POST", url: endpoint) }
        let contentType = response.headers.first(name: "Content-Type")
        guard let contentType, Self.mediaType(contentType) == "application/sdp" else { throw .wrongContentType(contentType) }
        guard let location = response.headers.first(name: "Location") else { throw .missingLocation }
        guard let resource = endpoint.resolving(location) else { throw .invalidLocation(location) }
        logger.info("WHIP session \(resource)")
        return WHIPSession(
            answer: body, resource: resource, entityTag: response.headers.first(name: "ETag"), iceServers: iceServers(response))
    }

    /// OPTIONS to the endpoint: the STUN and TURN servers it offers before the offer, for an
    /// agent that cannot take them after gathering (RFC 9725 section 4.6). An endpoint that
    /// answers OPTIONS with an error offers none.
    public func offeredICEServers() async throws(WHIPError) -> ICEServerLinks {
        var request = HTTPClientRequest(url: endpoint.description)
        request.method = .OPTIONS
        authorize(&request)
        let (response, _) = try await exchange(request, method: "OPTIONS", url: endpoint)
        guard (200..<300).contains(Int(response.status.code)) else { return ICEServerLinks() }
        return iceServers(response)
    }

    /// PATCHes an `application/trickle-ice-sdpfrag` (RFC 8840) to the session: candidates
    /// gathered after the offer with the ICE session's ETag (204), or an ICE restart with
    /// `If-Match: *` (200 with the endpoint's fragment and a new ETag).
    public func patch(_ session: WHIPSession, fragment: String, ifMatch: String?) async throws(WHIPError) -> WHIPPatchOutcome {
        var request = HTTPClientRequest(url: session.resource.description)
        request.method = .PATCH
        request.headers.add(name: "Content-Type", value: Self.sdpFragmentType)
        if let ifMatch { request.headers.add(name: "If-Match", value: ifMatch) }
        authorize(&request)
        request.body = .bytes(ByteBuffer(string: fragment))
        let (response, body) = try await exchange(request, method: "PATCH", url: session.resource)
        switch response.status.code {
        case 204:
            return .applied
        case 200:
            let contentType = response.headers.first(name: "Content-Type")
            guard let contentType, Self.mediaType(contentType) == Self.sdpFragmentType else {
                throw .wrongPatchAnswer("is \(contentType.map { "Content-Type \($0)" } ?? "without a Content-Type"), not \(Self.sdpFragmentType)")
            }
            return .restarted(fragment: body, entityTag: response.headers.first(name: "ETag"))
        default:
            throw failure(response, body: body, method: "PATCH", url: session.resource)
        }
    }

    static let sdpFragmentType = "application/trickle-ice-sdpfrag"

    private func iceServers(_ response: HTTPClientResponse) -> ICEServerLinks {
        let links = ICEServerLinks(fieldValues: response.headers["Link"])
        for problem in links.problems { logger.warning("WHIP endpoint \(endpoint): \(problem)") }
        return links
    }

    /// An error status as `WHIPError`: `retryLater` for a 429 or 503 with a usable `Retry-After`.
    private func failure(_ response: HTTPClientResponse, body: String, method: String, url: ResourceURL) -> WHIPError {
        let code = Int(response.status.code)
        if code == 429 || code == 503, let field = response.headers.first(name: "Retry-After"),
            let seconds = RetryAfter.seconds(field, now: wallClock())
        {
            return .retryLater(code: code, method: method, url: url.description, bodyLine: Self.firstLine(body), seconds: seconds)
        }
        return .status(code: code, method: method, url: url.description, bodyLine: Self.firstLine(body))
    }

    /// DELETEs the session's resource (RFC 9725 section 4.2): the endpoint ends the session.
    public func stop(_ session: WHIPSession) async throws(WHIPError) {
        var request = HTTPClientRequest(url: session.resource.description)
        request.method = .DELETE
        authorize(&request)
        let (response, body) = try await exchange(request, method: "DELETE", url: session.resource)
        guard (200..<300).contains(Int(response.status.code)) else { throw failure(response, body: body, method: "DELETE", url: session.resource) }
    }

    private func authorize(_ request: inout HTTPClientRequest) {
        if let bearerToken { request.headers.add(name: "Authorization", value: "Bearer \(bearerToken)") }
    }

    /// One request and its whole (bounded) body, with the deadline; failures as `WHIPError`.
    private func exchange(
        _ request: HTTPClientRequest, method: String, url: ResourceURL
    ) async throws(WHIPError) -> (HTTPClientResponse, String) {
        let deadline = NIODeadline.now() + .nanoseconds(timeoutNs)
        do {
            let response = try await client.execute(request, deadline: deadline, logger: logger)
            let buffer = try await response.body.collect(upTo: maximumResponseBytes)
            return (response, String(buffer: buffer))
        } catch {
            throw classify(error, method: method, url: url)
        }
    }

    private func classify(_ error: any Error, method: String, url: ResourceURL) -> WHIPError {
        if let error = error as? WHIPError { return error }
        if error is NIOTooManyBytesError { return .responseTooLarge(limit: maximumResponseBytes) }
        if error is NIOSSLError || error is NIOSSLExtraError {
            return .untrustedCertificate(url: url.description, detail: String("\(error)".prefix(Self.maximumQuotedBodyCharacters)))
        }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
            return .timeout(method: method, url: url.description, seconds: Double(timeoutNs) / 1e9)
        }
        let detail = "\(error)"
        if detail.contains("refused") || detail.contains("errno: 111") { return .connectionRefused(url: url.description) }
        return .transport(method: method, url: url.description, detail: String(detail.prefix(Self.maximumQuotedBodyCharacters)))
    }

    /// `application/sdp` from `Application/SDP; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmingBlanks.lowercased()
    }

    /// The first non-blank line of an error body, without control characters, cut short.
    static func firstLine(_ body: String) -> String {
        let line = body.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first { !String($0).trimmingBlanks.isEmpty } ?? ""
        let printable = line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        var text = String(String.UnicodeScalarView(printable)).trimmingBlanks
        if text.count > maximumQuotedBodyCharacters { text = String(text.prefix(maximumQuotedBodyCharacters)) + "…" }
        return text
    }
}
