import Publishing
import TestSupport
import Testing
import WHIP

@Suite("Publishing: backoff between reconnections")
struct ReconnectBackoffTests {
    /// 1, 2, 4, 8, 16 s, then 30 s for good, each within ±20 % and never outside 1...30 s.
    @Test func growsExponentiallyWithJitterWithinOneAndThirtySeconds() {
        var random = SplitMix64(state: 7)
        var backoff = ReconnectBackoff()
        let bases: [Double] = [1, 2, 4, 8, 16, 30, 30, 30]
        for base in bases {
            let delay = Double(backoff.nextDelayNs(using: &random)) / 1e9
            #expect(delay >= max(1, base * 0.8) && delay <= min(30, base * 1.2), "base \(base): \(delay)")
        }
        #expect(backoff.attempts == bases.count)
        backoff.reset()
        let again = Double(backoff.nextDelayNs(using: &random)) / 1e9
        #expect(again >= 1 && again <= 1.2)
    }

    /// The jitter spreads publishers that failed together: 100 first waits are not all alike.
    @Test func jitterSpreadsTheWaits() {
        var random = SplitMix64(state: 42)
        let thirds = (0..<100).map { _ in
            var backoff = ReconnectBackoff()
            _ = backoff.nextDelayNs(using: &random)
            return backoff.nextDelayNs(using: &random)
        }
        #expect(Set(thirds).count > 90)
        #expect(thirds.min()! < 1_800_000_000 && thirds.max()! > 2_200_000_000)
    }
}

@Suite("Publishing: reconnection policy")
struct ReconnectionPolicyTests {
    static let second: Int64 = 1_000_000_000

    static func policy(limit: Int? = nil) -> ReconnectionPolicy<SplitMix64> {
        ReconnectionPolicy(limit: limit, random: SplitMix64(state: 1))
    }

    static func delay(_ decision: ReconnectionDecision) -> Int64? {
        if case .reconnect(let delayNs) = decision { delayNs } else { nil }
    }

    @Test func aLostPathRestartsICEFirstWhenTheEndpointTakesIt() {
        var policy = Self.policy()
        policy.connected(nowNs: 0)
        #expect(policy.pathLost(nowNs: 5 * Self.second, restartSupported: true) == .restartICE)
        #expect(Self.delay(policy.pathLost(nowNs: 5 * Self.second, restartSupported: false)) != nil)
        #expect(Self.delay(policy.sessionLost(nowNs: 6 * Self.second)) != nil)
    }

    /// 401, 403 and 404 stop with the endpoint's line; other failures back off and try again.
    @Test(arguments: [
        (401, true), (403, true), (404, true), (400, false), (405, false), (415, false), (500, false), (502, false), (503, false),
    ])
    func statusesThatStopAndStatusesThatRetry(_ code: Int, _ stops: Bool) {
        var policy = Self.policy()
        let error = WHIPError.status(code: code, method: "POST", url: "http://e/whip", bodyLine: "no")
        let decision = policy.requestFailed(error, nowNs: 0)
        if stops {
            #expect(decision == .stop(.refused(error)))
            #expect("\(ReconnectionStopReason.refused(error))".contains("answered \(code)"))
        } else {
            #expect(Self.delay(decision) != nil)
        }
    }

    /// A certificate nobody vouches for does not heal by asking again.
    @Test func anUntrustedCertificateStops() {
        var policy = Self.policy()
        for error in [
            WHIPError.untrustedCertificate(url: "https://e/whip", detail: "unknown CA"), .caFile(path: "ca.pem", reason: "holds no PEM certificate"),
        ] {
            #expect(policy.requestFailed(error, nowNs: 0) == .stop(.refused(error)))
        }
    }

    @Test func transportFailuresAndBadAnswersRetry() {
        var policy = Self.policy()
        for error in [
            WHIPError.connectionRefused(url: "http://e/whip"), .timeout(method: "POST", url: "http://e/whip", seconds: 10),
            .transport(method: "POST", url: "http://e/whip", detail: "reset"), .missingLocation, .wrongContentType("text/html"),
            .responseTooLarge(limit: 1),
        ] {
            #expect(Self.delay(policy.requestFailed(error, nowNs: 0)) != nil, "\(error)")
        }
    }

    /// 429 and 503 with Retry-After wait at least that long, even when the backoff is shorter.
    @Test func retryAfterIsAFloor() throws {
        var policy = Self.policy()
        let error = WHIPError.retryLater(code: 503, method: "POST", url: "http://e/whip", bodyLine: "busy", seconds: 12)
        let delay = try #require(Self.delay(policy.requestFailed(error, nowNs: 0)))
        #expect(delay == 12 * Self.second)
        let short = WHIPError.retryLater(code: 429, method: "POST", url: "http://e/whip", bodyLine: "", seconds: 0)
        let backedOff = try #require(Self.delay(policy.requestFailed(short, nowNs: 0)))
        #expect(backedOff >= 2 * Self.second * 8 / 10)
    }

    /// Failures in a row back off further; a connection that lasted starts over at 1 s, one that
    /// dropped at once does not.
    @Test func theBackoffStartsOverOnlyAfterAStableConnection() throws {
        var policy = Self.policy()
        var delays: [Int64] = []
        for index in 0..<4 { delays.append(try #require(Self.delay(policy.sessionLost(nowNs: Int64(index) * Self.second)))) }
        #expect(delays == delays.sorted() && delays[3] >= 8 * Self.second * 8 / 10)

        policy.connected(nowNs: 100 * Self.second)
        let flapped = try #require(Self.delay(policy.sessionLost(nowNs: 101 * Self.second)))
        #expect(flapped >= 16 * Self.second * 8 / 10)

        policy.connected(nowNs: 200 * Self.second)
        let afterStable = try #require(Self.delay(policy.sessionLost(nowNs: 200 * Self.second + policy.stableNs)))
        #expect(afterStable <= Self.second * 12 / 10)
    }

    /// `--reconnect-limit N`: N attempts in a row, then stop; a connection resets the count.
    @Test func theLimitCountsAttemptsInARow() {
        var policy = Self.policy(limit: 2)
        #expect(Self.delay(policy.sessionLost(nowNs: 0)) != nil)
        #expect(Self.delay(policy.requestFailed(.connectionRefused(url: "u"), nowNs: 1)) != nil)
        #expect(policy.requestFailed(.connectionRefused(url: "u"), nowNs: 2) == .stop(.limitReached(attempts: 2, limit: 2)))

        var reset = Self.policy(limit: 1)
        #expect(Self.delay(reset.sessionLost(nowNs: 0)) != nil)
        reset.connected(nowNs: 10)
        #expect(Self.delay(reset.sessionLost(nowNs: 20)) != nil)

        var none = Self.policy(limit: 0)
        let stop = none.requestFailed(.connectionRefused(url: "u"), nowNs: 0)
        #expect(stop == .stop(.limitReached(attempts: 0, limit: 0)))
        #expect("\(ReconnectionStopReason.limitReached(attempts: 0, limit: 0))" == "gave up after 0 reconnection attempts (--reconnect-limit 0)")
        // A restart is no reconnection: it is offered even at the limit.
        #expect(none.pathLost(nowNs: 1, restartSupported: true) == .restartICE)
    }
}
