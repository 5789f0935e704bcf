import DTLS
import ICE
import Transport

/// How a `WebRTCConnection` reaches its peer: ICE gathering, the DTLS certificate, the SRTP
/// suites offered in the handshake, and how long connecting may take.
public struct WebRTCTransportOptions: Sendable {
    /// `--stun HOST:PORT`: adds a server-reflexive candidate.
    public var stunServer: STUNServerAddress?
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

    public static let defaultConnectTimeoutNs: Int64 = 20_000_000_000

    public init(
        stunServer: STUNServerAddress? = nil, localAddresses: [String] = [], certificate: DTLSCertificate? = nil,
        connectTimeoutNs: Int64 = Self.defaultConnectTimeoutNs, srtpSuites: [SRTPSuite] = DTLSSession.defaultSRTPSuites,
        consentFreshness: Bool = true
    ) {
        self.stunServer = stunServer
        self.localAddresses = localAddresses
        self.certificate = certificate
        self.connectTimeoutNs = connectTimeoutNs
        self.srtpSuites = srtpSuites
        self.consentFreshness = consentFreshness
    }
}
