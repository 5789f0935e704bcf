import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MediaCore
import Testing
import WHEP

@Suite struct WHEPServerTests {
    static let offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=recvonly\r\n"
    static let sdpHeaders: HTTPFields = [.contentType: "application/sdp"]

    private func withServer(
        maxViewers: Int = 4, maxOfferBytes: Int = 64 * 1024,
        _ body: @escaping @Sendable (any TestClientProtocol, WHEPServer, FakeSessionFactory) async throws -> Void
    ) async throws {
        let factory = FakeSessionFactory()
        let server = WHEPServer(
            configuration: .init(maxViewers: maxViewers, maxOfferBytes: maxOfferBytes), factory: factory,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in try await body(client, server, factory) }
    }

    private func post(_ client: any TestClientProtocol, _ offer: String = offer, headers: HTTPFields = sdpHeaders) async throws -> TestResponse {
        try await client.execute(uri: "/whep", method: .post, headers: headers, body: ByteBuffer(string: offer))
    }

    @Test func anOfferGetsA201WithTheAnswerAndTheSessionsLocation() async throws {
        try await withServer { client, server, factory in
            let response = try await post(client)
            #expect(response.status == .created)
            #expect(response.headers[.contentType] == "application/sdp")
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix("/whep/"))
            let id = String(location.dropFirst("/whep/".count))
            #expect(id.count == 32)
            #expect(String(buffer: response.body) == "v=0\r\ns=answer \(id)\r\n")
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.accessControlExposeHeaders]?.contains("Location") == true)
            #expect(server.resourceIDs == [id])
            #expect(factory.sessions.map(\.resourceID) == [id])
        }
    }

    @Test func twoViewersGetDifferentResources() async throws {
        try await withServer { client, server, _ in
            let first = try await post(client).headers[.location]
            let second = try await post(client).headers[.location]
            #expect(first != nil && second != nil && first != second)
            #expect(server.sessionCount == 2)
        }
    }

    @Test func deleteEndsTheSessionAndAnUnknownOneIs404() async throws {
        try await withServer { client, server, factory in
            let location = try #require(try await post(client).headers[.location])
            let deleted = try await client.execute(uri: location, method: .delete)
            #expect(deleted.status == .ok)
            #expect(factory.sessions.first?.isClosed == true)
            #expect(server.sessionCount == 0)
            let status1 = try await client.execute(uri: location, method: .delete).status
            #expect(status1 == .notFound)
            let status2 = try await client.execute(uri: "/whep/nonsense", method: .delete).status
            #expect(status2 == .notFound)
        }
    }

    @Test func aSessionThatEndsByItselfIsForgotten() async throws {
        try await withServer { client, server, factory in
            let location = try #require(try await post(client).headers[.location])
            factory.sessions.first?.ended()
            #expect(server.sessionCount == 0)
            let status3 = try await client.execute(uri: location, method: .delete).status
            #expect(status3 == .notFound)
        }
    }

    @Test func theKeyframeButtonReachesTheSession() async throws {
        try await withServer { client, _, factory in
            let location = try #require(try await post(client).headers[.location])
            let response = try await client.execute(uri: location + "/keyframe", method: .post)
            #expect(response.status == .noContent)
            #expect(factory.sessions.first?.keyframeRequests == 1)
            let status4 = try await client.execute(uri: "/whep/0123/keyframe", method: .post).status
            #expect(status4 == .notFound)
        }
    }

    @Test func aBadOfferGets400WithTheReason() async throws {
        try await withServer { client, server, _ in
            let response = try await post(client, "hello")
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body) == "SDP line 1: expected v=0\n")
            let noVideo = try await post(client, "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n")
            #expect(String(buffer: noVideo.body) == "the offer has no video section\n")
            #expect(server.sessionCount == 0)
        }
    }

    @Test func aFailingFactoryGets500AndFreesTheSlot() async throws {
        try await withServer(maxViewers: 1) { client, _, _ in
            let response = try await post(client, Self.offer + "a=x-break\r\n")
            #expect(response.status == .internalServerError)
            #expect(String(buffer: response.body).contains("ICE agent could not start"))
            let status5 = try await post(client).status
            #expect(status5 == .created)
        }
    }

    @Test func theOfferMustBeSDP() async throws {
        try await withServer { client, _, _ in
            let status6 = try await post(client, headers: [.contentType: "text/plain"]).status
            #expect(status6 == .unsupportedMediaType)
            let status7 = try await post(client, headers: [:]).status
            #expect(status7 == .unsupportedMediaType)
            let status8 = try await post(client, headers: [.contentType: "Application/SDP; charset=utf-8"]).status
            #expect(status8 == .created)
        }
    }

    @Test func offersAreBoundedAndMustBeUTF8() async throws {
        try await withServer(maxOfferBytes: 1024) { client, server, _ in
            let big = Self.offer + String(repeating: "a=x-padding:0123456789\r\n", count: 100)
            let response = try await post(client, big)
            #expect(response.status == .contentTooLarge)
            let invalid = try await client.execute(
                uri: "/whep", method: .post, headers: Self.sdpHeaders, body: ByteBuffer(bytes: Array(Self.offer.utf8) + [0xFF, 0xFE]))
            #expect(invalid.status == .badRequest)
            #expect(String(buffer: invalid.body) == "the offer is not UTF-8 text\n")
            #expect(server.sessionCount == 0)
        }
    }

    @Test func viewersBeyondTheLimitGet503UntilOneLeaves() async throws {
        try await withServer(maxViewers: 2) { client, _, _ in
            _ = try await post(client)
            let second = try #require(try await post(client).headers[.location])
            let refused = try await post(client)
            #expect(refused.status == .serviceUnavailable)
            #expect(String(buffer: refused.body).contains("at most 2 viewers"))
            _ = try await client.execute(uri: second, method: .delete)
            let status9 = try await post(client).status
            #expect(status9 == .created)
        }
    }

    @Test func preflightAllowsPagesOnOtherOrigins() async throws {
        try await withServer { client, _, _ in
            let response = try await client.execute(
                uri: "/whep", method: .options,
                headers: [.origin: "http://example.test", .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type"])
            #expect(response.status == .noContent)
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
            #expect(response.headers[.accessControlAllowMethods]?.contains("DELETE") == true)
            #expect(response.headers[.accessControlAllowHeaders]?.contains("Content-Type") == true)
            #expect(response.headers[HTTPField.Name("Accept-Post")!] == "application/sdp")
        }
    }

    @Test func theViewerPageIsServedFromTheBinary() async throws {
        try await withServer { client, _, _ in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let page = String(buffer: response.body)
            #expect(page.contains("RTCPeerConnection"))
            #expect(page.contains("recvonly"))
            #expect(page.contains("application/sdp"))
            #expect(page.contains("/keyframe"))
            // Offline: nothing is loaded from elsewhere.
            #expect(!page.contains("<script src"))
            #expect(!page.contains("https://"))
        }
    }

    @Test func shutdownClosesEverySessionAndRefusesNewOnes() async throws {
        try await withServer { client, server, factory in
            _ = try await post(client)
            _ = try await post(client)
            await server.closeAll()
            let allClosed = factory.sessions.allSatisfy { $0.isClosed }
            #expect(allClosed)
            let status10 = try await post(client).status
            #expect(status10 == .serviceUnavailable)
        }
    }
}

@Suite struct OfferRateLimitTests {
    @Test func aFloodOfOffersGets429AndTheBucketRefills() async throws {
        let clock = TestClock()
        let factory = FakeSessionFactory()
        let server = WHEPServer(
            configuration: .init(maxViewers: 64, offersPerSecond: 2, offerBurst: 3), factory: factory,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: { clock.nowNs })
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 {
                let response = try await client.execute(
                    uri: "/whep", method: .post, headers: WHEPServerTests.sdpHeaders, body: ByteBuffer(string: WHEPServerTests.offer))
                statuses.append(response.status)
            }
            #expect(statuses == [.created, .created, .created, .tooManyRequests, .tooManyRequests])
            clock.advance(ms: 500)
            let refilled = try await client.execute(
                uri: "/whep", method: .post, headers: WHEPServerTests.sdpHeaders, body: ByteBuffer(string: WHEPServerTests.offer))
            #expect(refilled.status == .created)
            #expect(factory.sessions.count == 4)
        }
    }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = ThreadCondition()
    private var value: Int64 = 1_000_000_000

    var nowNs: Int64 { lock.withLock { value } }
    func advance(ms: Int64) { lock.withLock { value += ms * 1_000_000 } }
}
