import HTTPAccess
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsHTTP
import Testing
import WHEP

/// The endpoint with viewer tokens, a metrics page and narrowed CORS, driven without a socket.
@Suite struct WHEPAccessTests {
    static let token = "viewer-token-1"

    private func withServer(
        metricsAuthenticator: BearerAuthenticator? = nil, allowedOrigins: [String] = [],
        _ body: @escaping @Sendable (any TestClientProtocol, WHEPServer, FakeSessionFactory) async throws -> Void
    ) async throws {
        let factory = FakeSessionFactory()
        var configuration = WHEPServer.Configuration(maxViewers: 4)
        // A clock that stands still: the failure limit's wait is exact however slow the machine.
        configuration.authenticator = BearerAuthenticator(tokens: BearerTokenSet([Array(Self.token.utf8)]), clock: { 1_000_000_000 })
        configuration.allowedOrigins = allowedOrigins
        configuration.metrics = MetricsPage(authenticator: metricsAuthenticator) { "camrtp_viewers_connected 0\n" }
        let server = WHEPServer(configuration: configuration, factory: factory, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await Application(router: server.makeRouter()).test(.router) { client in try await body(client, server, factory) }
    }

    private func post(_ client: any TestClientProtocol, authorization: String?) async throws -> TestResponse {
        var headers = WHEPServerTests.sdpHeaders
        if let authorization { headers[.authorization] = authorization }
        return try await client.execute(uri: "/whep", method: .post, headers: headers, body: ByteBuffer(string: WHEPServerTests.offer))
    }

    @Test func anOfferNeedsTheToken() async throws {
        try await withServer { client, server, factory in
            let missing = try await post(client, authorization: nil)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer realm=\"camrtp\"")
            let wrong = try await post(client, authorization: "Bearer not-the-token")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.wwwAuthenticate]?.contains("error=\"invalid_token\"") == true)
            let malformed = try await post(client, authorization: "Bearer two words")
            #expect(malformed.status == .badRequest)
            #expect(malformed.headers[.wwwAuthenticate]?.contains("error=\"invalid_request\"") == true)
            let oversized = try await post(client, authorization: "Bearer " + String(repeating: "x", count: 10_000))
            #expect(oversized.status == .badRequest)
            // Nothing was started for any of them.
            #expect(factory.sessions.isEmpty && server.sessionCount == 0)
            let granted = try await post(client, authorization: "Bearer \(Self.token)")
            #expect(granted.status == .created)
            // The refusals are readable and never echo a token.
            #expect(!String(buffer: wrong.body).contains("not-the-token"))
        }
    }

    @Test func aSessionsResourceNeedsOnlyItsIdAndGuessingIsSlowed() async throws {
        try await withServer { client, _, factory in
            let location = try #require(try await post(client, authorization: "Bearer \(Self.token)").headers[.location])
            let keyframe = try await client.execute(uri: location + "/keyframe", method: .post)
            #expect(keyframe.status == .noContent)
            #expect(factory.sessions.first?.keyframeRequests == 1)
            // Unknown ids count as failures: after the burst, even real ones wait.
            for _ in 0..<10 {
                let guess = try await client.execute(uri: "/whep/" + String(repeating: "0", count: 32), method: .delete)
                #expect(guess.status == .notFound)
            }
            let slowed = try await client.execute(uri: location, method: .delete)
            #expect(slowed.status == .tooManyRequests)
            #expect(slowed.headers[.retryAfter] == "6")
            #expect(factory.sessions.first?.isClosed == false)
            let offer = try await post(client, authorization: "Bearer \(Self.token)")
            #expect(offer.status == .tooManyRequests)
        }
    }

    @Test func metricsNeedTheViewersTokenUnlessTheyHaveTheirOwn() async throws {
        try await withServer { client, _, _ in
            let refused = try await client.execute(uri: "/metrics", method: .get)
            #expect(refused.status == .unauthorized)
            let scraped = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(scraped.status == .ok)
            #expect(scraped.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(String(buffer: scraped.body) == "camrtp_viewers_connected 0\n")
        }
        let own = BearerAuthenticator(tokens: BearerTokenSet([Array("scraper".utf8)]))
        try await withServer(metricsAuthenticator: own) { client, _, _ in
            let viewers = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(viewers.status == .unauthorized)
            let scraper = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer scraper"])
            #expect(scraper.status == .ok)
        }
    }

    @Test func allowedOriginsNarrowCORS() async throws {
        try await withServer(allowedOrigins: ["https://dash.example"]) { client, _, _ in
            let allowed = try await client.execute(
                uri: "/whep", method: .options, headers: [.origin: "https://dash.example", .accessControlRequestMethod: "POST"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://dash.example")
            #expect(allowed.headers[.vary] == "Origin")
            let other = try await client.execute(
                uri: "/whep", method: .options, headers: [.origin: "https://evil.example", .accessControlRequestMethod: "POST"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let offer = try await client.execute(
                uri: "/whep", method: .post, headers: [.origin: "https://evil.example", .contentType: "application/sdp"],
                body: ByteBuffer(string: WHEPServerTests.offer))
            #expect(offer.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
