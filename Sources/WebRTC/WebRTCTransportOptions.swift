import DTLS
import ICE
import ICEServers
import Transport

/// How a `WebRTCConnection` reaches its peer: ICE gathering, the DTLS certificate, the SRTP
/// suites offered in the handshake, how long connecting may take, and how long a lost path may
/// wait for an ICE restart.
public struct WebRTCTransportOptions: Sendable {
    /// `--stun HOST:PORT`: adds a server-reflexive candidate.
    public var stunServer: STUNServerAddress?
    /// `--turn URL`: adds relayed candidates.
    public var turnServers: [ICEServer]
    /// How long `gatherCandidates` waits for the last candidate before returning those it has
    /// (trickle ICE sends the rest later); nil waits for them all.
    public var gatheringWaitNs: Int64?
    /// Host candidates only on these address literals; empty: every usable interface.
    public var localAddresses: [String]
    /// Presented in the handshake and hashed into `a=fingerprint`; nil generates an ECDSA P-256
    /// certificate per connection, which is what browsers do.
    public var certificate: DTLSCertificate?
    /// From applying the peer's description to `ready` (ICE and DTLS together).
    public var connectTimeoutNs: Int64
    /// Offered in the use_srtp extension, in preference order (RFC 5764 section 4.1.2).
    public var srtpSuites: [SRTPSuite]
    /// RFC 7675 consent checks; the connection fails when the peer stops answering them.
    public var consentFreshness: Bool
    /// How long a connection whose path was lost after `ready` stays `disconnected`, waiting for
    /// an ICE restart, before it fails; 0 fails it at once.
    public var disconnectedGraceNs: Int64

    public static let defaultConnectTimeoutNs: Int64 = 20_000_000_000

    public init(
        stunServer: STUNServerAddress? = nil, turnServers: [ICEServer] = [], gatheringWaitNs: Int64? = nil,
        localAddresses: [String] = [], certificate: DTLSCertificate? = nil,
        connectTimeoutNs: Int64 = Self.defaultConnectTimeoutNs, srtpSuites: [SRTPSuite] = DTLSSession.defaultSRTPSuites,
        consentFreshness: Bool = true, disconnectedGraceNs: Int64 = 0
    ) {
        self.stunServer = stunServer
        self.turnServers = turnServers
        self.gatheringWaitNs = gatheringWaitNs
        self.disconnectedGraceNs = disconnectedGraceNs
        self.localAddresses = localAddresses
        self.certificate = certificate
        self.connectTimeoutNs = connectTimeoutNs
        self.srtpSuites = srtpSuites
        self.consentFreshness = consentFreshness
    }
}
