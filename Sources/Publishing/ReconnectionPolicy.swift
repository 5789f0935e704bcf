import WHIP

/// What `publish` does when its session is in trouble, as a pure policy on the caller's clock
/// (`nowNs`) and random source, tested without sockets.
///
/// - A lost path (consent expired, the peer silent, the local addresses changed) is first met
///   with an ICE restart (RFC 9725 section 4.3.2), if the endpoint takes PATCH.
/// - A restart that fails or does not bring the connection back within `restartWaitNs`, and a
///   session that ends (the peer closed it, ICE or DTLS failed, the connect timeout), is met
///   with a new session: a best-effort DELETE and a new POST after an exponential, jittered
///   backoff from 1 s to 30 s (`ReconnectBackoff`).
/// - The endpoint's answer to a POST decides too: 401, 403 and 404 stop (a wrong token or URL
///   does not heal, nor does a certificate the endpoint's name or `--ca-file` does not vouch
///   for), 429 and 503 with `Retry-After` wait at least that long, anything else
///   (refused, timed out, 5xx, a bad answer) backs off and tries again.
/// - `limit` reconnection attempts in a row without a connection stop it (`--reconnect-limit`).
///   The backoff starts over only after a connection lasted `stableNs`, so an endpoint that
///   drops every session at once is not hammered.
public struct ReconnectionPolicy<Random: RandomNumberGenerator> {
    public typealias Decision = ReconnectionDecision

    public let limit: Int?
    public let restartWaitNs: Int64
    public let stableNs: Int64
    public private(set) var backoff = ReconnectBackoff()
    /// Reconnection attempts since the last connection.
    public private(set) var attemptsInARow = 0
    private var connectedNs: Int64?
    private var random: Random

    public init(limit: Int?, restartWaitNs: Int64 = 5_000_000_000, stableNs: Int64 = 30_000_000_000, random: Random) {
        self.limit = limit
        self.restartWaitNs = restartWaitNs
        self.stableNs = stableNs
        self.random = random
    }

    /// The connection is up (the first, a restarted or a new one).
    public mutating func connected(nowNs: Int64) {
        connectedNs = nowNs
        attemptsInARow = 0
    }

    /// The path is lost but the session may live: restart ICE when the endpoint takes it.
    public mutating func pathLost(nowNs: Int64, restartSupported: Bool) -> Decision {
        restartSupported ? .restartICE : reconnect(nowNs: nowNs, atLeastNs: 0)
    }

    /// The restart failed or did not connect in time, or the session ended: a new session.
    public mutating func sessionLost(nowNs: Int64) -> Decision {
        reconnect(nowNs: nowNs, atLeastNs: 0)
    }

    /// A POST (or what follows it before the connection) failed with `error`.
    public mutating func requestFailed(_ error: WHIPError, nowNs: Int64) -> Decision {
        switch error {
        case .status(let code, _, _, _) where code == 401 || code == 403 || code == 404:
            return .stop(.refused(error))
        case .invalidURL, .untrustedCertificate, .caFile:
            return .stop(.refused(error))
        case .retryLater(_, _, _, _, let seconds):
            return reconnect(nowNs: nowNs, atLeastNs: Int64(seconds * 1e9))
        default:
            return reconnect(nowNs: nowNs, atLeastNs: 0)
        }
    }

    private mutating func reconnect(nowNs: Int64, atLeastNs: Int64) -> Decision {
        if let connectedNs, nowNs - connectedNs >= stableNs { backoff.reset() }
        connectedNs = nil
        if let limit, attemptsInARow >= limit { return .stop(.limitReached(attempts: attemptsInARow, limit: limit)) }
        attemptsInARow += 1
        return .reconnect(delayNs: max(atLeastNs, backoff.nextDelayNs(using: &random)))
    }
}

extension ReconnectionPolicy: Sendable where Random: Sendable {}

/// What `ReconnectionPolicy` says to do.
public enum ReconnectionDecision: Sendable, Hashable {
    /// PATCH an ICE restart and wait `restartWaitNs` for the connection.
    case restartICE
    /// End the session and POST a new one after `delayNs`.
    case reconnect(delayNs: Int64)
    /// Give up.
    case stop(ReconnectionStopReason)
}

public enum ReconnectionStopReason: Sendable, Hashable, CustomStringConvertible {
    /// The endpoint refused the session for good (401, 403, 404).
    case refused(WHIPError)
    /// `limit` attempts in a row found no connection.
    case limitReached(attempts: Int, limit: Int)

    public var description: String {
        switch self {
        case .refused(let error): "\(error)"
        case .limitReached(let attempts, let limit):
            "gave up after \(attempts) reconnection attempt\(attempts == 1 ? "" : "s") (--reconnect-limit \(limit))"
        }
    }
}
