import Foundation
import ICEServers
import Testing
import TestSupport
@testable import WHIP

/// The WHIP client against a small HTTP server that answers each path its own way.
@Suite("WHIP: client", .serialized)
final class WHIPClientTests {
    let server: ExternalTool.Running
    let base: String

    init() throws {
        server = try ExternalTool("/usr/bin/python3").start(["-u", TestTools.path("whip_test_server.py")])
        guard let line = server.waitForLine(containing: "listening ", in: .stdout), let port = line.split(separator: " ").last else {
            throw ServerDidNotStart(description: "the WHIP test server did not start: \(server.output(.stderr))")
        }
        base = "http://127.0.0.1:\(port)"
    }

    deinit {
        server.interrupt()
        _ = server.wait(timeout: 10)
    }

    @Test(.timeLimit(.minutes(1)))
    func publishesResolvesTheLocationAndDeletes() async throws {
        let client = try WHIPClient(endpoint: base + "/ok", bearerToken: "tok")
        let session = try await client.publish(offer: "v=0\r\n")
        #expect(session.answer.hasPrefix("v=0\r\n"))
        #expect(session.resource.description == base + "/sessions/1")
        #expect(server.waitForLine(containing: "POST /ok auth=Bearer tok type=application/sdp bytes=5", in: .stdout) != nil)
        try await client.stop(session)
        #expect(server.waitForLine(containing: "DELETE /sessions/1 auth=Bearer tok", in: .stdout) != nil)

        let absolute = try await WHIPClient(endpoint: base + "/absolute").publish(offer: "v=0\r\n")
        #expect(absolute.resource.description.hasSuffix("/elsewhere/2"))
        #expect(server.waitForLine(containing: "POST /absolute auth=- ", in: .stdout) != nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func errorsSayWhatTheEndpointDid() async throws {
        await #expect(throws: WHIPError.status(code: 401, method: "POST", url: base + "/auth", bodyLine: "bad token")) {
            _ = try await WHIPClient(endpoint: base + "/auth", bearerToken: "wrong").publish(offer: "v=0")
        }
        _ = try await WHIPClient(endpoint: base + "/auth", bearerToken: "secret").publish(offer: "v=0")
        await #expect(throws: WHIPError.status(code: 503, method: "POST", url: base + "/error", bodyLine: "over capacity, try later")) {
            _ = try await WHIPClient(endpoint: base + "/error").publish(offer: "v=0")
        }
        await #expect(throws: WHIPError.wrongContentType("text/plain")) {
            _ = try await WHIPClient(endpoint: base + "/badtype").publish(offer: "v=0")
        }
        await #expect(throws: WHIPError.missingLocation) {
            _ = try await WHIPClient(endpoint: base + "/noloc").publish(offer: "v=0")
        }
        await #expect(throws: WHIPError.responseTooLarge(limit: 64 * 1024)) {
            _ = try await WHIPClient(endpoint: base + "/big", maximumResponseBytes: 64 * 1024).publish(offer: "v=0")
        }
        let description = "\(WHIPError.status(code: 401, method: "POST", url: "u", bodyLine: "x"))"
        #expect(description.contains("--bearer"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aSilentEndpointTimesOut() async throws {
        let client = try WHIPClient(endpoint: base + "/hang", timeoutNs: 300_000_000)
        await #expect(throws: WHIPError.timeout(method: "POST", url: base + "/hang", seconds: 0.3)) {
            _ = try await client.publish(offer: "v=0")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClosedPortIsRefused() async throws {
        let refusing = try RefusingTCPPort()
        let port = refusing.port
        let url = "http://127.0.0.1:\(port)/whip"
        await #expect(throws: WHIPError.connectionRefused(url: url)) {
            _ = try await WHIPClient(endpoint: url).publish(offer: "v=0")
        }
        #expect(throws: WHIPError.invalidURL("ftp://x/y")) { _ = try WHIPClient(endpoint: "ftp://x/y") }
        #expect(throws: WHIPError.invalidURL("127.0.0.1:8080")) { _ = try WHIPClient(endpoint: "127.0.0.1:8080") }
    }
}

extension WHIPClientTests {
    /// RFC 9725 section 4.6: ICE servers in Link fields of the 201 and of OPTIONS; a broken
    /// link is dropped without its credential reaching the error text.
    @Test(.timeLimit(.minutes(1)))
    func readsTheICEServersOfTheCreatedAndOptions() async throws {
        let client = try WHIPClient(endpoint: base + "/links")
        let session = try await client.publish(offer: "v=0")
        #expect(session.entityTag == "\"e1\"")
        #expect(session.iceServers.servers.map(\.description) == ["stun:stun.example.net:3478", "turn:turn.example.net:3478?transport=tcp"])
        #expect(session.iceServers.servers.last?.credential == "p\"q")
        #expect(session.iceServers.problems.count == 1 && !session.iceServers.problems[0].contains("secret"))
        #expect(try await client.offeredICEServers().servers == session.iceServers.servers)
        // An endpoint that does not answer OPTIONS offers nothing, and that is no error.
        #expect(try await WHIPClient(endpoint: base + "/ok").offeredICEServers().servers.isEmpty)
    }

    /// Trickle (204) and restart (200 with a fragment and a new ETag) PATCHes, If-Match as given.
    @Test(.timeLimit(.minutes(1)))
    func patchesTrickleAndRestart() async throws {
        let client = try WHIPClient(endpoint: base + "/links")
        let session = try await client.publish(offer: "v=0")
        let trickle = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=candidate:1 1 udp 1 10.0.0.1 5000 typ host\r\n"
        #expect(try await client.patch(session, fragment: trickle, ifMatch: session.entityTag) == .applied)
        #expect(server.waitForLine(containing: "PATCH /sessions/5 auth=- type=application/trickle-ice-sdpfrag", in: .stdout) != nil)
        #expect(server.waitForLine(containing: "if-match=\"e1\"", in: .stdout) != nil)
        let restart = try await client.patch(session, fragment: "a=ice-ufrag:new\r\n", ifMatch: "*")
        guard case .restarted(let fragment, let tag) = restart else { Issue.record("not restarted: \(restart)"); return }
        #expect(fragment.contains("a=ice-ufrag:srv") && tag == "\"restarted\"")
        await #expect(throws: WHIPError.status(code: 428, method: "PATCH", url: session.resource.description, bodyLine: "If-Match required")) {
            _ = try await client.patch(session, fragment: trickle, ifMatch: nil)
        }
        let unsupported = WHIPSession(answer: "", resource: try #require(ResourceURL(parsing: base + "/ok")))
        await #expect(throws: WHIPError.status(code: 405, method: "PATCH", url: base + "/ok", bodyLine: "no PATCH here")) {
            _ = try await client.patch(unsupported, fragment: trickle, ifMatch: "*")
        }
    }

    /// 503 and 429 with Retry-After say how long to wait, in seconds or as a date.
    @Test(.timeLimit(.minutes(1)))
    func retryAfterComesWithTheStatus() async throws {
        await #expect(throws: WHIPError.retryLater(code: 503, method: "POST", url: base + "/busy", bodyLine: "busy", seconds: 7)) {
            _ = try await WHIPClient(endpoint: base + "/busy").publish(offer: "v=0")
        }
        do {
            _ = try await WHIPClient(endpoint: base + "/slow").publish(offer: "v=0")
            Issue.record("a 429 was taken")
        } catch {
            guard case .retryLater(429, _, _, "slow down", let seconds) = error else { Issue.record("\(error)"); return }
            #expect((25...31).contains(seconds), "\(seconds)")
            #expect(error.description.hasSuffix("(retry after \(Int(seconds)) s)"))
        }
    }
}

@Suite("WHIP: Retry-After (RFC 9110 section 10.2.3)")
struct RetryAfterTests {
    /// 1994-11-06 08:49:37 UTC, the RFC's example date.
    static let rfcDate: Double = 784_111_777

    @Test(arguments: [
        ("120", 120.0),
        (" 0 ", 0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 60),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 60),
        ("Sun Nov  6 08:49:37 1994", 60),
        ("Sun, 06 Nov 1994 08:48:00 GMT", 0),
        ("99999999", RetryAfter.maximumSeconds),
    ])
    func readsSecondsAndAllThreeDateForms(_ field: String, _ seconds: Double) {
        #expect(RetryAfter.seconds(field, now: Self.rfcDate - 60) == seconds)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 CET", String(repeating: "9", count: 100)])
    func ignoresWhatIsNoDelay(_ field: String) {
        #expect(RetryAfter.seconds(field, now: Self.rfcDate) == nil)
    }

    /// A two-digit year more than 50 years ahead is in the past century.
    @Test func twoDigitYearsFollowRFC9110() {
        let now2026: Double = 1_767_225_600  // 2026-01-01
        #expect(RetryAfter.fullYear(94, now: now2026) == 1994)
        #expect(RetryAfter.fullYear(30, now: now2026) == 2030)
        #expect(RetryAfter.fullYear(76, now: now2026) == 2076)
        #expect(RetryAfter.fullYear(77, now: now2026) == 1977)
    }
}

struct ServerDidNotStart: Error, CustomStringConvertible {
    let description: String
}

@Suite("WHIP: resource URLs")
struct ResourceURLTests {
    @Test(arguments: [
        ("http://h:8080/whip/endpoint", "sessions/1", "http://h:8080/whip/sessions/1"),
        ("http://h:8080/whip/endpoint", "/resource/abc", "http://h:8080/resource/abc"),
        ("http://h:8080/whip/endpoint", "../x", "http://h:8080/x"),
        ("http://h:8080/whip/endpoint?token=1", "./s?x=2", "http://h:8080/whip/s?x=2"),
        ("https://h/whip", "//other:9/r", "https://other:9/r"),
        ("http://h/whip", "https://cdn.example/r/1#frag", "https://cdn.example/r/1"),
        ("http://h/a/b/c", "../../d/./e", "http://h/d/e"),
    ])
    func resolvesAsRFC3986Says(_ base: String, _ reference: String, _ expected: String) throws {
        let url = try #require(ResourceURL(parsing: base))
        #expect(url.resolving(reference)?.description == expected)
    }

    @Test func refusesWhatIsNoHTTPURL() throws {
        for text in ["", "http://", "ftp://h/x", "h/x", "http:/h/x", "http://a b/x"] {
            #expect(ResourceURL(parsing: text) == nil)
        }
        let url = try #require(ResourceURL(parsing: "http://h/x"))
        #expect(url.resolving("") == nil)
        #expect(url.resolving("a b") == nil)
        #expect(url.resolving("mailto:x@y") == nil)
    }
}
