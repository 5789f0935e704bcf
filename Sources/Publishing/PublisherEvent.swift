import ICEServers
import WebRTC
import WHIP

/// What a `WHIPPublisher` does, as it happens, for the one line each deserves.
public enum PublisherEvent: Sendable {
    /// The endpoint took an offer: the session's resource. `reconnection` is 0 for the first.
    case published(WHIPSession, reconnection: Int)
    /// ICE and DTLS are done (or back after an ICE restart, `restarted`).
    case connected(WebRTCConnectionStatistics, reconnection: Int, restarted: Bool)
    /// STUN or TURN servers the endpoint offers that this session did not gather with; the next
    /// session does.
    case iceServersOffered([ICEServer])
    /// TURN servers that gave no relayed candidate: they did not answer, or refused the
    /// credentials.
    case turnServersSilent([ICEServer])
    /// An ICE restart is under way, and why.
    case restartingICE(cause: String)
    /// The endpoint takes no ICE restart (or no trickled candidates): what it answered.
    case patchRefused(what: String, answer: String)
    /// The session is given up: why, and when the next POST goes out.
    case reconnecting(cause: String, delayNs: Int64, attempt: Int)
}
