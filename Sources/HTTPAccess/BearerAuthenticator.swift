import HTTPTypes
import MediaCore
import Synchronization

/// Decides whether a request may go on, from its `Authorization` header and the address it came
/// from, as RFC 6750 §3 answers a protected resource:
///
/// | request | answer |
/// |---|---|
/// | no bearer credentials | 401, `WWW-Authenticate: Bearer realm="camrtp"` |
/// | a wrong token | 401, the challenge with `error="invalid_token"` |
/// | a malformed or oversized header | 400, the challenge with `error="invalid_request"` |
/// | too many failures from its address | 429 with `Retry-After`, before anything is compared |
///
/// Wrong, malformed and oversized credentials count as failures of the address (see
/// `FailureLimiter`); so may other failures that probe for secrets, such as unknown session ids.
/// The tokens can be replaced while serving (a token file re-read on SIGHUP). No answer and no
/// log line carries a token.
public final class BearerAuthenticator: Sendable {
    public let realm: String
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>

    private struct State {
        var tokens: BearerTokenSet
        var limiter: FailureLimiter
    }

    /// `clock`: nanoseconds on `CLOCK_MONOTONIC`, for the failure limit; tests pass their own.
    public init(
        tokens: BearerTokenSet, realm: String = "camrtp", limiter: FailureLimiter = FailureLimiter(),
        clock: @escaping @Sendable () -> Int64 = MonotonicClock.nowNs
    ) {
        self.realm = realm
        self.clock = clock
        state = Mutex(State(tokens: tokens, limiter: limiter))
    }

    public var tokenCount: Int { state.withLock { $0.tokens.count } }

    /// Takes a new set of tokens for the requests that follow; sessions already granted are not
    /// asked again.
    public func replaceTokens(_ tokens: BearerTokenSet) {
        state.withLock { $0.tokens = tokens }
    }

    /// Whether a request with this `Authorization` header (nil: none) from `address` may go on.
    public func check(authorization: String?, from address: String?) -> AccessDecision {
        let key = address ?? ""
        let now = clock()
        return state.withLock { state in
            if let slowed = Self.slowed(state.limiter, key, now) { return .refused(slowed) }
            guard let authorization else { return .refused(unauthorized(error: nil)) }
            let credentials: BearerCredentials
            do throws(BearerCredentialsError) {
                credentials = try BearerCredentials(parsing: authorization)
            } catch .notBearer {
                return .refused(unauthorized(error: nil))
            } catch {
                state.limiter.recordFailure(from: key, nowNs: now)
                return .refused(AccessRefusal(
                    status: .badRequest, headers: challenge(error: ("invalid_request", error.description)), message: error.description))
            }
            guard state.tokens.contains(credentials.token) else {
                state.limiter.recordFailure(from: key, nowNs: now)
                return .refused(unauthorized(error: ("invalid_token", "the token is not valid")))
            }
            return .granted
        }
    }

    /// A 429 when `address` has failed too often lately, else nil: for requests that need no
    /// token but can be used to probe (an unknown session id).
    public func refusalIfSlowed(_ address: String?) -> AccessRefusal? {
        let now = clock()
        return state.withLock { Self.slowed($0.limiter, address ?? "", now) }
    }

    /// Counts a failure against `address` that happened outside `check` (an unknown session id).
    public func recordFailure(from address: String?) {
        let now = clock()
        state.withLock { $0.limiter.recordFailure(from: address ?? "", nowNs: now) }
    }

    private static func slowed(_ limiter: FailureLimiter, _ address: String, _ nowNs: Int64) -> AccessRefusal? {
        let waitNs = limiter.waitNs(for: address, nowNs: nowNs)
        guard waitNs > 0 else { return nil }
        let seconds = max(1, (waitNs + 999_999_999) / 1_000_000_000)
        return AccessRefusal(
            status: .tooManyRequests, headers: [.retryAfter: String(seconds)],
            message: "too many failed attempts from this address; try again in \(seconds) s")
    }

    private func unauthorized(error: (code: String, description: String)?) -> AccessRefusal {
        AccessRefusal(
            status: .unauthorized, headers: challenge(error: error),
            message: error == nil ? "this needs Authorization: Bearer <token>" : "the bearer token is not valid")
    }

    /// The `WWW-Authenticate` challenge (RFC 6750 §3); without an error code when the request
    /// carried no credentials (§3.1).
    private func challenge(error: (code: String, description: String)?) -> HTTPFields {
        var value = "Bearer realm=\"\(realm)\""
        if let error { value += ", error=\"\(error.code)\", error_description=\"\(error.description)\"" }
        return [.wwwAuthenticate: value]
    }
}

/// What to do with a request.
public enum AccessDecision: Sendable, Equatable {
    case granted
    case refused(AccessRefusal)
}

/// A refusal: the status, the headers that explain it, and a line of text for the body.
public struct AccessRefusal: Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var message: String

    public init(status: HTTPResponse.Status, headers: HTTPFields, message: String) {
        self.status = status
        self.headers = headers
        self.message = message
    }
}
