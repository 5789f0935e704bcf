import Foundation
import Testing
import TestSupport
import WHIP

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
