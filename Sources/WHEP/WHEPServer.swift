import HTTPAccess
import Hummingbird
import ICEServers
import Logging
import MediaCore
import MetricsHTTP
import Synchronization

/// The WHEP endpoint (draft-ietf-wish-whep, on RFC 9725's resource model) and the viewer page,
/// on Hummingbird:
///
/// | request | answer |
/// |---|---|
/// | `GET /` | the viewer page |
/// | `POST /whep` with an `application/sdp` offer | 201, the answer, `Location: /whep/<id>` |
/// | `DELETE /whep/<id>` | 200, the session ends; 404 for an unknown id |
/// | `POST /whep/<id>/keyframe` | 204 once the encoder is asked for a keyframe |
/// | `PATCH /whep/<id>` with an `application/trickle-ice-sdpfrag` | 204 (trickle ICE) or 200 and ours (ICE restart) |
/// | `OPTIONS` anything | 204 with CORS and `Accept-Post` (and the ICE servers, see below) |
/// | `GET /metrics` | the Prometheus text, when `metrics` is set |
///
/// With an `authenticator`, `POST /whep` needs a bearer token (RFC 6750; see
/// `BearerAuthenticator` for the answers), and so does `/metrics` unless its page has an
/// authenticator of its own. A session's resource needs no token: its id (128 random bits) is
/// the capability, and unknown ids count as failures of the address that asked, like wrong tokens.
/// With `tls` the server speaks HTTPS, and `allowedOrigins` narrows CORS.
///
/// `iceServers` are offered to viewers in `Link: <turn:...>; rel="ice-server"` fields on the
/// 201 and on OPTIONS (RFC 9725 section 4.6).
///
/// Offers are bounded (64 KiB by default; 413 beyond), must say `application/sdp` (415), and
/// beyond `maxViewers` sessions get 503, and offers beyond `offersPerSecond` (with a burst of
/// `offerBurst`) get 429. A rejected offer gets 400 with the reason as text.
public final class WHEPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var maxViewers: Int
        public var maxOfferBytes: Int
        public var offersPerSecond: Double
        public var offerBurst: Int
        /// The page `GET /` serves.
        public var page: String
        /// Who may offer (and scrape, unless the metrics page has its own); nil: anyone.
        public var authenticator: BearerAuthenticator?
        /// HTTPS with these credentials; nil: plain HTTP.
        public var tls: TLSCredentialStore?
        /// The origins whose pages may call the endpoint; empty: any.
        public var allowedOrigins: [String] = []
        /// `GET /metrics`; nil: not served.
        public var metrics: MetricsPage?
        /// STUN and TURN servers for viewers, offered in `Link` fields.
        public var iceServers: [ICEServer]

        public init(
            host: String = "127.0.0.1", port: Int = 8080, maxViewers: Int = 8, maxOfferBytes: Int = 64 * 1024,
            offersPerSecond: Double = 5, offerBurst: Int = 10, page: String = ViewerPage.html, iceServers: [ICEServer] = []
        ) {
            self.iceServers = iceServers
            self.host = host
            self.port = port
            self.maxViewers = maxViewers
            self.maxOfferBytes = maxOfferBytes
            self.offersPerSecond = offersPerSecond
            self.offerBurst = offerBurst
            self.page = page
        }
    }

    public let configuration: Configuration
    private let factory: any WHEPSessionFactory
    let registry: WHEPSessionRegistry
    let logger: Logger
    let clock: @Sendable () -> Int64
    /// Each offer starts an ICE agent, gathers candidates and makes a DTLS certificate, so a
    /// client that floods `POST /whep` is told 429 before any of that.
    private let offerLimiter: Mutex<TokenBucket>
    /// A PATCH can restart an ICE agent: bounded the same way.
    let patchLimiter = Mutex(TokenBucket(ratePerSecond: WHEPServer.patchesPerSecond, burst: WHEPServer.patchBurst))

    /// `clock`: nanoseconds on `CLOCK_MONOTONIC`, for the offer rate limit; tests pass their own.
    public init(
        configuration: Configuration, factory: any WHEPSessionFactory, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = MonotonicClock.nowNs
    ) {
        self.configuration = configuration
        self.factory = factory
        self.logger = logger
        self.clock = clock
        registry = WHEPSessionRegistry(maxSessions: configuration.maxViewers)
        offerLimiter = Mutex(TokenBucket(ratePerSecond: configuration.offersPerSecond, burst: configuration.offerBurst))
    }

    /// The sessions being served.
    public var sessionCount: Int { registry.count }
    public var resourceIDs: [String] { registry.resourceIDs }

    /// The routes, for `run` and for tests that drive them without a socket.
    public func makeRouter() -> Router<AddressedRequestContext> {
        let router = Router(context: AddressedRequestContext.self)
        router.middlewares.add(ICEServerLinkMiddleware(servers: configuration.iceServers))
        router.middlewares.add(WHEPCORSMiddleware(allowedOrigins: configuration.allowedOrigins))
        router.get("/") { _, _ in self.pageResponse() }
        router.post("/whep") { request, context in
            if let refusal = self.refusal(request, context) { return Response(refusal: refusal) }
            return await self.offer(request)
        }
        router.delete("/whep/:id") { _, context in
            await self.withSession(context) { id, _ in await self.delete(id) }
        }
        router.patch("/whep/:id") { request, context in
            await self.withSession(context) { id, _ in await self.patch(request, id: id) }
        }
        router.post("/whep/:id/keyframe") { _, context in
            await self.withSession(context) { _, session in
                session.requestKeyframe()
                return Response(status: .noContent)
            }
        }
        if let metrics = configuration.metrics {
            let page = metrics.authenticator == nil ? MetricsPage(authenticator: configuration.authenticator, render: metrics.render) : metrics
            router.get("/metrics") { request, context in page.response(to: request, context: context) }
        }
        return router
    }

    /// Serves until the task is cancelled, then shuts down gracefully (open requests are
    /// answered, no new connections taken) and closes every session. `listening` gets the bound
    /// port (useful with port 0).
    public func run(listening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) async throws {
        let app = Application(
            router: makeRouter(),
            server: try configuration.tls?.serverBuilder() ?? .http1(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "camrtp"),
            onServerRunning: { channel in await listening(channel.localAddress?.port ?? 0) },
            logger: logger)
        do {
            try await GracefulService.run(app, logger: logger)
        } catch {
            await closeAll()
            throw error
        }
        await closeAll()
    }

    /// Ends every session and refuses new ones.
    public func closeAll() async {
        for session in registry.closeAll() { await session.close() }
    }

    // MARK: Handlers

    private func pageResponse() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: configuration.page)))
    }

    private func offer(_ request: Request) async -> Response {
        guard WHEPContentType.isSDP(request.headers[.contentType]) else {
            return Self.text(.unsupportedMediaType, "the offer must be sent as Content-Type: application/sdp")
        }
        let now = clock()
        guard offerLimiter.withLock({ $0.admit(nowNs: now) }) else {
            return Self.text(.tooManyRequests, "too many offers; try again in a second", headers: [.retryAfter: "1"])
        }
        let offer: String
        switch await Self.bodyText(of: request, limit: configuration.maxOfferBytes, named: "the offer") {
        case .text(let text): offer = text
        case .refused(let response): return response
        }
        guard registry.reserve() else {
            return Self.text(.serviceUnavailable, "this server takes at most \(configuration.maxViewers) viewers", headers: [.retryAfter: "5"])
        }
        let id = WHEPResourceID.make()
        let answer: WHEPAnswer
        do {
            answer = try await factory.answer(offer: offer, resourceID: id) { [registry] in _ = registry.remove(id) }
        } catch let rejected as WHEPOfferRejected {
            registry.release()
            logger.info("offer rejected", metadata: ["reason": "\(rejected.reason)"])
            return Self.text(.badRequest, rejected.reason)
        } catch {
            registry.release()
            logger.warning("could not answer an offer", metadata: ["error": "\(error)"])
            return Self.text(.internalServerError, "could not answer the offer: \(error)")
        }
        let iceTag = WHEPEntityTag.make()
        guard registry.fill(id, with: answer.session, iceTag: iceTag) else {
            await answer.session.close()
            return Self.text(.serviceUnavailable, "the server is shutting down")
        }
        logger.info("viewer joined", metadata: ["resource": "\(id)"])
        return Response(
            status: .created,
            headers: [.contentType: "application/sdp", .location: "/whep/\(id)", .eTag: iceTag],
            body: .init(byteBuffer: ByteBuffer(string: answer.sdp)))
    }

    /// A refusal from the authenticator, or nil when the request may go on (or nothing is checked).
    private func refusal(_ request: Request, _ context: AddressedRequestContext) -> AccessRefusal? {
        guard let authenticator = configuration.authenticator,
              case .refused(let refusal) = authenticator.check(authorization: request.headers[.authorization], from: context.peerAddress)
        else { return nil }
        return refusal
    }

    /// Runs `body` for the session the path names. An address that keeps naming sessions that do
    /// not exist is guessing, and is slowed down as a wrong token would be.
    private func withSession(
        _ context: AddressedRequestContext, _ body: (String, any WHEPSession) async -> Response
    ) async -> Response {
        let address = context.peerAddress
        if let refusal = configuration.authenticator?.refusalIfSlowed(address) { return Response(refusal: refusal) }
        let id = context.parameters.get("id") ?? ""
        guard let session = registry.session(id) else {
            configuration.authenticator?.recordFailure(from: address)
            return Self.text(.notFound, "no such session")
        }
        return await body(id, session)
    }

    private func delete(_ id: String) async -> Response {
        guard let session = registry.remove(id) else { return Self.text(.notFound, "no such session") }
        await session.close()
        logger.info("viewer left", metadata: ["resource": "\(id)"])
        return Response(status: .ok)
    }

    static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

/// A request body read as text, or the answer that refuses it.
enum BodyText {
    case text(String)
    case refused(Response)
}

extension WHEPServer {
    /// At most `limit` bytes of UTF-8: larger is 413, unreadable or not UTF-8 is 400, the
    /// reason naming the body (`the offer`).
    static func bodyText(of request: Request, limit: Int, named name: String) async -> BodyText {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return .refused(text(.contentTooLarge, "\(name) is larger than \(limit) bytes"))
        } catch {
            return .refused(text(.badRequest, "\(name) could not be read: \(error)"))
        }
        guard body.withUnsafeReadableBytes({ String(validating: $0, as: UTF8.self) != nil }) else {
            return .refused(text(.badRequest, "\(name) is not UTF-8 text"))
        }
        return .text(String(buffer: body))
    }
}
