import HTTPAccess
import HTTPTypes
import Synchronization
import Testing

/// The answers of RFC 6750 §3, and the failure limit, with a clock of the test's own.
@Suite struct BearerAuthenticatorTests {
    final class Clock: Sendable {
        let nowNs = Atomic<Int64>(0)
        func advance(seconds: Int64) { nowNs.add(seconds * 1_000_000_000, ordering: .relaxed) }
    }

    let clock = Clock()
    var authenticator: BearerAuthenticator {
        BearerAuthenticator(tokens: BearerTokenSet([Array("right-token".utf8)]), clock: { [clock] in clock.nowNs.load(ordering: .relaxed) })
    }

    private func refusal(_ decision: AccessDecision) -> AccessRefusal? {
        if case .refused(let refusal) = decision { return refusal }
        return nil
    }

    @Test func theRightTokenIsGranted() {
        #expect(authenticator.check(authorization: "Bearer right-token", from: "192.0.2.1") == .granted)
        #expect(authenticator.check(authorization: "bearer   right-token", from: nil) == .granted)
    }

    @Test func noCredentialsGetTheChallengeWithoutAnErrorCode() throws {
        for header in [nil, "Basic dXNlcjpwYXNz"] {
            let refused = try #require(refusal(authenticator.check(authorization: header, from: "192.0.2.1")))
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.wwwAuthenticate] == "Bearer realm=\"camrtp\"")
        }
    }

    @Test func aWrongTokenIsInvalidAndNeverEchoed() throws {
        let refused = try #require(refusal(authenticator.check(authorization: "Bearer wrong-guess", from: "192.0.2.1")))
        #expect(refused.status == .unauthorized)
        #expect(refused.headers[.wwwAuthenticate] == "Bearer realm=\"camrtp\", error=\"invalid_token\", error_description=\"the token is not valid\"")
        #expect(!refused.message.contains("wrong-guess") && !refused.message.contains("right-token"))
    }

    @Test func malformedOrOversizedHeadersAreBadRequests() throws {
        for header in ["Bearer a b", "Bearer " + String(repeating: "a", count: 5000)] {
            let refused = try #require(refusal(authenticator.check(authorization: header, from: "192.0.2.1")))
            #expect(refused.status == .badRequest)
            #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer realm=\"camrtp\", error=\"invalid_request\", error_description=\"") == true)
        }
    }

    @Test func repeatedFailuresFromOneAddressAreSlowedEvenWithTheRightToken() throws {
        let authenticator = authenticator
        for _ in 0..<10 { _ = authenticator.check(authorization: "Bearer guess", from: "192.0.2.1") }
        let slowed = try #require(refusal(authenticator.check(authorization: "Bearer right-token", from: "192.0.2.1")))
        #expect(slowed.status == .tooManyRequests)
        #expect(slowed.headers[.retryAfter] == "6")
        // Another address is not affected, and the first may try again once its wait is over.
        #expect(authenticator.check(authorization: "Bearer right-token", from: "192.0.2.2") == .granted)
        clock.advance(seconds: 6)
        #expect(authenticator.check(authorization: "Bearer right-token", from: "192.0.2.1") == .granted)
    }

    @Test func failuresCountedElsewhereSlowTheAddressToo() {
        let authenticator = authenticator
        for _ in 0..<10 { authenticator.recordFailure(from: "192.0.2.9") }
        #expect(authenticator.refusalIfSlowed("192.0.2.9")?.status == .tooManyRequests)
        #expect(authenticator.refusalIfSlowed("192.0.2.8") == nil)
    }

    @Test func replacedTokensTakeEffectForTheNextRequest() {
        let authenticator = authenticator
        authenticator.replaceTokens(BearerTokenSet([Array("renewed".utf8)]))
        #expect(authenticator.check(authorization: "Bearer renewed", from: nil) == .granted)
        #expect(authenticator.check(authorization: "Bearer right-token", from: nil) != .granted)
        #expect(authenticator.tokenCount == 1)
    }
}

@Suite struct ListenHostTests {
    @Test(arguments: ["127.0.0.1", "127.8.9.10", "localhost", "LocalHost", "::1", "::ffff:127.0.0.1"])
    func loopbackAddresses(_ host: String) {
        #expect(ListenHost.isLoopback(host))
    }

    @Test(arguments: ["0.0.0.0", "::", "192.0.2.10", "2001:db8::1", "example.org", "128.0.0.1", "::2", ""])
    func networkAddresses(_ host: String) {
        #expect(!ListenHost.isLoopback(host))
    }
}
