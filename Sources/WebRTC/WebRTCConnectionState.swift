/// Where a `WebRTCConnection` stands: ICE checks, then the DTLS handshake on the pair they found,
/// then media. `ready` means SRTP keys exist for both directions.
public enum WebRTCConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Created; nothing sent to the peer yet.
    case new
    /// ICE connectivity checks are running (RFC 8445 section 7).
    case checking
    /// A candidate pair works; DTLS has not started on it yet.
    case connected
    /// The DTLS handshake runs on the selected pair (RFC 5764 section 4).
    case dtls
    /// DTLS finished and the SRTP keys are exported: media flows.
    case ready
    /// Ready before, then the path was lost (consent expired, RFC 7675): no media leaves, DTLS
    /// and the keys stay, and an ICE restart within the grace period brings it back to `ready`.
    case disconnected
    case failed(WebRTCFailure)
    /// Closed by us, or by the peer's DTLS close_notify.
    case closed

    /// Failed and closed connections never change again.
    public var isTerminal: Bool {
        switch self {
        case .failed, .closed: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .new: "new"
        case .checking: "checking"
        case .connected: "connected"
        case .dtls: "dtls"
        case .ready: "ready"
        case .disconnected: "disconnected"
        case .failed(let failure): "failed (\(failure))"
        case .closed: "closed"
        }
    }
}

/// Why a connection failed, in words a user can act on.
public enum WebRTCFailure: Sendable, Hashable, CustomStringConvertible {
    /// Every ICE check failed: no candidate pair reaches the peer.
    case iceFailed
    /// RFC 7675: the peer stopped answering consent checks on the selected pair.
    case consentExpired
    /// The DTLS handshake or association failed (a fingerprint mismatch, no common SRTP profile...).
    case dtls(String)
    /// The connection was not ready within the connect timeout; `phase` is where it stood.
    case timeout(phase: String, seconds: Double)
    /// The RTP sender could not start on the connection.
    case sender(String)

    public var description: String {
        switch self {
        case .iceFailed: "ICE failed: no candidate pair reached the peer (check --local-address and --stun)"
        case .consentExpired: "the peer stopped answering ICE consent checks (RFC 7675)"
        case .dtls(let detail): "DTLS failed: \(detail)"
        case .timeout(let phase, let seconds):
            "not connected after \(Self.seconds(seconds)) s (still \(phase)); raise --connect-timeout or check the network"
        case .sender(let detail): "the RTP sender did not start: \(detail)"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
