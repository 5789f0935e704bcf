import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ICEServers
import Logging
import SDP
import Testing
import WHEP

/// `PATCH /whep/<id>` (RFC 9725 sections 4.3.1, 4.3.2) and the ICE servers offered in `Link`
/// fields (section 4.6), against a fake session.
@Suite struct WHEPPatchTests {
    static let fragmentType: HTTPFields = [.contentType: "application/trickle-ice-sdpfrag"]
    static let trickle = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=ice-ufrag:view\r\na=ice-pwd:viewerpasswordviewerpass\r\n"
        + "a=candidate:1 1 udp 2130706431 192.0.2.1 61764 typ host\r\na=end-of-candidates\r\n"
    static let restart = "a=ice-options:trickle\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=ice-ufrag:new1\r\na=ice-pwd:newpasswordnewpassword12\r\n"
        + "a=candidate:1 1 udp 2130706431 192.0.2.1 61765 typ host\r\n"

    private func withSession(
        iceServers: [ICEServer] = [],
        _ body: @escaping @Sendable (any TestClientProtocol, _ location: String, _ etag: String, FakeSessionFactory) async throws -> Void
    ) async throws {
        let factory = FakeSessionFactory()
        let server = WHEPServer(
            configuration: .init(iceServers: iceServers), factory: factory,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await Application(router: server.makeRouter()).test(.router) { client in
            let created = try await client.execute(
                uri: "/whep", method: .post, headers: WHEPServerTests.sdpHeaders, body: ByteBuffer(string: WHEPServerTests.offer))
            let location = try #require(created.headers[.location])
            let etag = try #require(created.headers[.eTag])
            try await body(client, location, etag, factory)
        }
    }

    private func patch(
        _ client: any TestClientProtocol, _ location: String, ifMatch: String?, _ body: String, headers: HTTPFields = fragmentType
    ) async throws -> TestResponse {
        var headers = headers
        if let ifMatch { headers[.ifMatch] = ifMatch }
        return try await client.execute(uri: location, method: .patch, headers: headers, body: ByteBuffer(string: body))
    }

    @Test func trickledCandidatesReachTheSessionWith204AndNoETag() async throws {
        try await withSession { client, location, etag, factory in
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
            let response = try await patch(client, location, ifMatch: etag, Self.trickle)
            #expect(response.status == .noContent)
            #expect(response.headers[.eTag] == nil)
            let received = try #require(factory.sessions.first?.receivedFragments.first)
            #expect(received.candidates.map(\.port) == [61764])
            #expect(received.isEndOfCandidates)
        }
    }

    /// New credentials restart ICE: 200, the session's fragment, a new ETag; the old ETag then
    /// fails (412), the new one works, and `*` always does.
    @Test func newCredentialsRestartICEWith200AndANewETag() async throws {
        try await withSession { client, location, etag, _ in
            let restarted = try await patch(client, location, ifMatch: "*", Self.restart)
            #expect(restarted.status == .ok)
            #expect(restarted.headers[.contentType] == "application/trickle-ice-sdpfrag")
            let newTag = try #require(restarted.headers[.eTag])
            #expect(newTag != etag)
            let answer = try SDPFragment(parsing: String(buffer: restarted.body))
            #expect(answer.iceCredentials?.usernameFragment == "srv2")
            #expect(answer == FakeSession.restartAnswer)

            let stale = try await patch(client, location, ifMatch: etag, Self.trickle)
            #expect(stale.status == .preconditionFailed)
            let current = try await patch(client, location, ifMatch: "\"other\", \(newTag)", Self.restart)
            #expect(current.status == .noContent)
            let weak = try await patch(client, location, ifMatch: "W/\(newTag)", Self.restart)
            #expect(weak.status == .preconditionFailed)
        }
    }

    @Test func aPatchWithoutIfMatchIs428AndAMalformedOneIs400() async throws {
        try await withSession { client, location, _, factory in
            let missing = try await patch(client, location, ifMatch: nil, Self.trickle)
            #expect(missing.status == .preconditionRequired)
            #expect(String(buffer: missing.body).contains("If-Match"))
            for bad in ["", "abc", "\"unclosed", "\"a\" \"b\"", String(repeating: "\"x\",", count: 300)] {
                let response = try await patch(client, location, ifMatch: bad, Self.trickle)
                #expect(response.status == .badRequest, "If-Match: \(bad.prefix(20))")
            }
            #expect(factory.sessions.first?.receivedFragments.isEmpty == true)
        }
    }

    /// Garbage bodies get a clear 400, 413 or 415; the session takes nothing and stays.
    @Test func garbageIsRefusedAndTouchesNothing() async throws {
        try await withSession { client, location, etag, factory in
            let wrongType = try await patch(client, location, ifMatch: etag, Self.trickle, headers: WHEPServerTests.sdpHeaders)
            #expect(wrongType.status == .unsupportedMediaType)
            let noType = try await patch(client, location, ifMatch: etag, Self.trickle, headers: [:])
            #expect(noType.status == .unsupportedMediaType)
            for garbage in ["v=0\r\n", "m=video\r\n", "a=candidate:1 1 udp 1 10.0.0.1 5 typ host\r\n", "\u{1}\u{2}", "m=video 9 X 96\r\na=candidate:x\r\n"] {
                let response = try await patch(client, location, ifMatch: etag, garbage)
                #expect(response.status == .badRequest, "\(garbage)")
                #expect(String(buffer: response.body).hasPrefix("the fragment is malformed: SDP line"), "\(String(buffer: response.body))")
            }
            var bytes = ByteBuffer()
            bytes.writeBytes([0x61, 0x3D, 0xFF, 0xFE])
            let notUTF8 = try await client.execute(uri: location, method: .patch, headers: [.contentType: "application/trickle-ice-sdpfrag", .ifMatch: etag], body: bytes)
            #expect(notUTF8.status == .badRequest)
            let large = try await patch(client, location, ifMatch: etag, String(repeating: "a=x\r\n", count: 14_000))
            #expect(large.status == .contentTooLarge)
            let refused = try await patch(client, location, ifMatch: etag, "m=video 9 x-refuse 96\r\n")
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("closed"))
            #expect(factory.sessions.first?.isClosed == false)
            let unknown = try await patch(client, "/whep/0123456789abcdef0123456789abcdef", ifMatch: "*", Self.trickle)
            #expect(unknown.status == .notFound)
            // Still answering after all of it.
            #expect(try await patch(client, location, ifMatch: etag, Self.trickle).status == .noContent)
        }
    }

    /// RFC 9725 section 4.6: the servers in Link fields on the 201 and on a plain OPTIONS, not on
    /// a CORS preflight; `Link` exposed to other origins, and `Accept-Patch` on OPTIONS.
    @Test func iceServersAreOfferedInLinkFields() async throws {
        let servers = [
            try ICEServer(uri: ICEServerURI(parsing: "stun:stun.example.net")),
            try ICEServer(turnURL: "turn://viewer:pa%22ss@turn.example.net:3478?transport=udp"),
        ]
        let factory = FakeSessionFactory()
        let server = WHEPServer(
            configuration: .init(iceServers: servers), factory: factory, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await Application(router: server.makeRouter()).test(.router) { client in
            let created = try await client.execute(
                uri: "/whep", method: .post, headers: WHEPServerTests.sdpHeaders, body: ByteBuffer(string: WHEPServerTests.offer))
            let links = created.headers[values: .init("Link")!]
            #expect(ICEServerLinks(fieldValues: links) == ICEServerLinks(servers: servers))
            #expect(created.headers[.accessControlExposeHeaders]?.contains("Link") == true)

            let options = try await client.execute(uri: "/whep", method: .options)
            #expect(options.status == .noContent)
            #expect(ICEServerLinks(fieldValues: options.headers[values: .init("Link")!]).servers == servers)
            #expect(options.headers[.init("Accept-Patch")!] == "application/trickle-ice-sdpfrag")

            let preflight = try await client.execute(
                uri: "/whep", method: .options, headers: [.origin: "http://example.test", .accessControlRequestMethod: "OPTIONS"])
            #expect(preflight.headers[values: .init("Link")!].isEmpty)
            // Nothing else carries them.
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.headers[values: .init("Link")!].isEmpty)
        }
    }
}
